#include "sim/run/time-series-sampler.h"

#include "sim/workloads/workload.h"

#include "models/engine/fabric-parallel-simulator.h"
#include "models/fabric/port-queue-config.h"

#include "ns3/simulator.h"

#include <set>

namespace mrcsim
{

namespace
{

/// \brief Whether `port` runs in this process (across MPI ranks, the others' are idle copies).
bool
IsLocal(const ns3::Ptr<ns3::FabricPort>& port)
{
  const ns3::FabricParallelSimulatorImpl* sim = ns3::FabricParallelSimulatorImpl::Get();
  return port && (!sim || sim->IsLocal(port->GetNode()->GetId())); // null: left out here (FabricNetwork)
}

uint64_t
SumTxBytes(const std::vector<ns3::Ptr<ns3::FabricPort>>& ports)
{
  uint64_t sum = 0;
  for (const auto& p : ports)
  {
    if (!IsLocal(p))
      continue;
    p->CatchUp(); // the port as of now: its getters are pure
    sum += p->TxBytes();
  }
  return sum;
}

} // namespace

TimeSeriesSampler::TimeSeriesSampler(const ScenarioSpec& spec,
                                     const Fabric& fabric,
                                     ns3::FabricNetwork& net,
                                     const std::string& outDir)
{
  const int planes = std::max(1, fabric.NumPlanes());
  m_lastHop.resize(planes);
  m_up.resize(planes);
  m_upCapacityBps.assign(planes, 0);
  m_lastGood.assign(planes, 0);
  m_lastUp.assign(planes, 0);
  for (uint32_t id = 0; id < fabric.NumLinks(); ++id)
  {
    auto [a, b] = fabric.Ends(id);
    const FabricLink& l = fabric.Link(id);
    for (auto [v, port, peer] : { std::make_tuple(a, l.portA, b), std::make_tuple(b, l.portB, a) })
    {
      const FabricNode& n = fabric.Node(v);
      const FabricNode& p = fabric.Node(peer);
      if (n.role != NodeRole::Switch)
        continue;
      const int plane = std::max<int>(0, n.plane);
      if (p.role == NodeRole::Gpu)
        m_lastHop[plane].push_back(net.GetPort(v, port));
      else if (n.tier == 0 && p.tier == 1)
      {
        m_up[plane].push_back(net.GetPort(v, port));
        m_upCapacityBps[plane] += double(l.rateBps);
      }
    }
  }
  // outputs.ports: both ends of each listed link, each once.
  std::set<std::pair<VertexId, uint16_t>> seen;
  for (const LinkSelector& s : spec.outputs.portLinks)
  {
    const uint32_t id = ResolveLink(fabric, s, spec.file);
    const auto [a, b] = fabric.Ends(id);
    const FabricLink& l = fabric.Link(id);
    for (const auto& [v, port] : { std::make_pair(a, l.portA), std::make_pair(b, l.portB) })
      if (seen.insert({ v, port }).second)
        m_ports.push_back({ id, fabric.VertexName(v), port, net.GetPort(v, port), double(l.rateBps) });
  }
  if (!outDir.empty())
  {
    m_seriesCsv.Open(outDir + "/timeseries.csv");
    m_seriesCsv << "time_us,plane,goodput_gbps,uplink_utilisation\n";
    if (!m_ports.empty())
    {
      m_portsCsv.Open(outDir + "/ports.csv");
      m_portsCsv << "time_us,link,node,port,queue_bytes,utilisation\n";
    }
  }
}

void
TimeSeriesSampler::Sample()
{
  const ns3::Time now = ns3::Simulator::Now();
  const double dt = (now - m_last).GetSeconds();
  if (dt <= 0)
    return;
  m_last = now;
  const double timeUs = ToUs(now);
  // The counts, summed over the ranks of a run across processes (a global event: every rank
  // samples at the same point): per plane, last-hop and uplink bytes; per sampled port, queued
  // and sent bytes.
  std::vector<uint64_t> counts;
  for (std::size_t p = 0; p < m_lastHop.size(); ++p)
  {
    counts.push_back(SumTxBytes(m_lastHop[p]));
    counts.push_back(SumTxBytes(m_up[p]));
  }
  for (SampledPort& sp : m_ports)
  {
    uint64_t queued = 0;
    uint64_t tx = 0;
    if (IsLocal(sp.p))
    {
      sp.p->CatchUp();
      for (uint8_t cls = 0; cls < sp.p->QueueConfig()->NumClasses(); ++cls)
        queued += sp.p->QueueBytes(cls);
      tx = sp.p->TxBytes();
    }
    counts.push_back(queued);
    counts.push_back(tx);
  }
  ns3::FabricParallelSimulatorImpl::SumOverRanks(counts);
  std::size_t next = 0;
  for (std::size_t p = 0; p < m_lastHop.size(); ++p)
  {
    const uint64_t good = counts[next++];
    const uint64_t up = counts[next++];
    const double goodput = double(good - m_lastGood[p]) * 8 / dt / 1e9;
    const double utilisation = m_upCapacityBps[p] > 0 ? double(up - m_lastUp[p]) * 8 / dt / m_upCapacityBps[p] : 0.0;
    m_series.timeUs.push_back(timeUs);
    m_series.plane.push_back(static_cast<int32_t>(p));
    m_series.goodputGbps.push_back(goodput);
    m_series.uplinkUtilisation.push_back(utilisation);
    if (m_seriesCsv.IsOpen())
      m_seriesCsv << timeUs << "," << p << "," << goodput << "," << utilisation << "\n";
    m_lastGood[p] = good;
    m_lastUp[p] = up;
  }
  for (SampledPort& sp : m_ports)
  {
    const uint64_t queued = counts[next++];
    const uint64_t tx = counts[next++];
    const double utilisation = double(tx - sp.lastTx) * 8 / dt / sp.rateBps;
    sp.lastTx = tx;
    TimeSeries::Ports& ps = m_series.ports;
    ps.timeUs.push_back(timeUs);
    ps.link.push_back(sp.link);
    ps.node.push_back(sp.node);
    ps.port.push_back(sp.port);
    ps.queueBytes.push_back(queued);
    ps.utilisation.push_back(utilisation);
    if (m_portsCsv.IsOpen())
      m_portsCsv << timeUs << "," << sp.link << "," << sp.node << "," << sp.port << "," << queued << ","
                 << utilisation << "\n";
  }
}

void
TimeSeriesSampler::Finish()
{
  if (m_seriesCsv.IsOpen())
    m_seriesCsv.Commit();
  if (m_portsCsv.IsOpen())
    m_portsCsv.Commit();
}

} // namespace mrcsim
