#include "sim/run/run-metrics.h"

#include "models/engine/fabric-parallel-simulator.h"
#include "models/fabric/fabric-packet.h"
#include "models/fabric/fabric-port.h"
#include "models/rdma/rdma-connect.h"

#include "ns3/callback.h"

#include <algorithm>

namespace mrcsim
{

namespace
{

using ns3::Ptr;
using ns3::Time;

void
AddLatency(std::vector<LatencyHistogram>* h, Time oneWay)
{
  (*h)[ns3::FabricParallelSimulatorImpl::CurrentPartition()].Add(ToUs(oneWay));
}

} // namespace

// ---- collectors that watch the run --------------------------------------------------------------

void
PacketLatencyCollector::OnConnection(uint32_t a, uint32_t b)
{
  for (uint32_t gpu : { a, b })
  {
    if (m_traced.insert(gpu).second)
    {
      Ptr<ns3::RdmaNic> nic = ns3::GetOrCreateNic(m_net, gpu);
      nic->EnableLatencyTracing();
      nic->TraceConnectWithoutContext("PacketLatency", ns3::MakeBoundCallback(&AddLatency, &m_latencyUs));
    }
  }
}

nlohmann::json
PacketLatencyCollector::Summary() const
{
  LatencyHistogram local{ 1e-3 };
  for (const LatencyHistogram& h : m_latencyUs)
  {
    local.Merge(h);
  }
  // Across MPI ranks, rank 0 merges every rank's (the others' summaries are not written).
  LatencyHistogram all{ 1e-3 };
  for (const std::vector<uint8_t>& bytes : ns3::FabricParallelSimulatorImpl::GatherOnRankZero(local.ToBytes()))
  {
    all.Merge(LatencyHistogram::FromBytes(bytes, 1e-3));
  }
  nlohmann::json summary = all.Summary();
  summary["histogram"] = all.Buckets();
  return summary;
}

// ---- counters read at the end -------------------------------------------------------------------

RunCounters
RunCounters::Read(const NetworkService& service,
                  const Fabric& fabric,
                  ns3::FabricNetwork& net)
{
  // Across MPI ranks each rank counts what its own nodes did (it has only its own QPs; other
  // ranks' ports are idle copies here), then the counts are summed over the ranks.
  const ns3::FabricParallelSimulatorImpl* sim = ns3::FabricParallelSimulatorImpl::Get();
  auto local = [sim](uint32_t node) { return !sim || sim->IsLocal(node); };
  RunCounters c;
  service.ForEachQp([&c](const ns3::RdmaQueuePair& qp) {
    const ns3::RdmaQpCounters q = qp.Counters();
    c.qps.retransmissions += q.retransmissions;
    c.qps.timeouts += q.timeouts;
    c.qps.lossProbes += q.lossProbes;
    c.qps.packetsSent += q.packetsSent;
    c.qps.evTransitions += q.evTransitions;
  });
  for (uint32_t id = 0; id < fabric.NumLinks(); ++id)
  {
    if (!net.HasPorts(id))
      continue; // left out in this process (FabricNetwork): another rank's
    auto [a, b] = fabric.Ends(id);
    for (auto port : { net.GetPort(a, fabric.Link(id).portA), net.GetPort(b, fabric.Link(id).portB) })
    {
      if (!local(port->GetNode()->GetId()))
        continue;
      c.trims += port->TrimmedPackets();
      c.ecnMarks += port->EcnMarkedPackets();
      c.pfcPaused += port->PausedTime();
    }
  }
  std::vector<uint64_t> sums{ c.qps.retransmissions, c.qps.timeouts,   c.qps.lossProbes,
                              c.qps.packetsSent,     c.trims,           c.ecnMarks,
                              static_cast<uint64_t>(c.pfcPaused.GetTimeStep()), c.qps.evTransitions };
  const std::size_t firstDrop = sums.size();
  for (size_t d = 0; d < static_cast<size_t>(ns3::DropCause::Count); ++d)
    sums.push_back(net.CountDrops(static_cast<ns3::DropCause>(d)));
  ns3::FabricParallelSimulatorImpl::SumOverRanks(sums);
  c.qps.retransmissions = sums[0];
  c.qps.timeouts = sums[1];
  c.qps.lossProbes = sums[2];
  c.qps.packetsSent = sums[3];
  c.trims = sums[4];
  c.ecnMarks = sums[5];
  c.pfcPaused = ns3::TimeStep(sums[6]);
  c.qps.evTransitions = sums[7];
  c.drops = nlohmann::json::object();
  for (size_t d = 0; d < static_cast<size_t>(ns3::DropCause::Count); ++d)
    c.drops[ns3::DropCauseName(static_cast<ns3::DropCause>(d))] = sums[firstDrop + d];
  c.qpErrors = service.Errors().size();
  return c;
}

nlohmann::json
RunCounters::Summary() const
{
  return { { "data_packets_sent", qps.packetsSent },
           { "retransmissions", qps.retransmissions },
           { "timeouts", qps.timeouts },
           { "loss_probes", qps.lossProbes },
           { "trims", trims },
           { "ecn_marks", ecnMarks },
           { "pfc_paused_port_us", ToUs(pfcPaused) },
           { "drops", drops },
           { "ev_transitions", qps.evTransitions },
           { "qp_errors", qpErrors } };
}

// ---- tables of the workloads' records -----------------------------------------------------------

CompletionTables::CompletionTables(const std::string& outDir)
{
  if (!outDir.empty())
  {
    m_collectivesCsv.Open(outDir + "/collectives.csv");
    m_collectivesCsv << "workload,algorithm,group,iteration,ranks,bytes,start_us,end_us,time_us,ideal_us,slowdown,"
                        "algbw_gbps,busbw_gbps\n";
    m_messagesCsv.Open(outDir + "/messages.csv");
    m_messagesCsv << "workload,src,dst,bytes,posted_us,done_us,time_us,ideal_us,slowdown,fair_us\n";
  }
}

void
CompletionTables::Add(const Workload& w, FairReference* fair)
{
  LatencyHistogram timeUs;
  double idealSum = 0;
  double algbwSum = 0;
  double busbwSum = 0;
  uint64_t done = 0;
  std::string algorithm;
  OutputFile& collCsv = m_collectivesCsv;
  for (const CollectiveRecord& c : w.Collectives())
  {
    algorithm = c.algorithm;
    if (c.end.IsZero() && c.bytes > 0)
      continue;
    const double t = (c.end - c.start).GetSeconds();
    const double us = ToUs(c.end - c.start);
    const double algbw = t > 0 ? double(c.bytes) * 8 / t / 1e9 : 0;
    timeUs.Add(us);
    idealSum += c.idealS;
    algbwSum += algbw;
    busbwSum += algbw * c.busFactor;
    ++done;
    m_lastDone = std::max(m_lastDone, c.end);
    if (collCsv.IsOpen())
      collCsv << w.Name() << "," << c.algorithm << "," << c.group << "," << c.iteration << "," << c.ranks << ","
              << c.bytes << "," << ToUs(c.start) << "," << ToUs(c.end) << "," << us
              << "," << c.idealS * 1e6 << "," << (c.idealS > 0 ? t / c.idealS : 0) << "," << algbw << ","
              << algbw * c.busFactor << "\n";
  }
  if (!w.Collectives().empty())
  {
    // Means over the completed instances: with none completed they are not defined (null), not 0.
    const double n = double(std::max<uint64_t>(done, 1));
    const auto mean = [done](double value) { return done > 0 ? nlohmann::json(value) : nlohmann::json(nullptr); };
    m_collectives.push_back({ { "workload", w.Name() },
                              { "algorithm", algorithm },
                              { "instances", w.Collectives().size() },
                              { "completed", done },
                              { "time_us", timeUs.Summary() },
                              { "ideal_us", mean(idealSum / n * 1e6) },
                              { "slowdown_mean", mean(idealSum > 0 ? timeUs.Mean() / (idealSum / n * 1e6) : 0) },
                              { "algbw_gbps", mean(algbwSum / n) },
                              { "busbw_gbps", mean(busbwSum / n) } });
  }
  OutputFile& msgCsv = m_messagesCsv;
  for (const MessageRecord& m : w.Messages())
  {
    ++m_messages;
    // Claimed for every message, done or not, so that equal messages keep their order.
    const std::optional<double> fairS = fair ? fair->TakeMessageTimeS(m.src, m.dst, m.bytes, m.posted) : std::nullopt;
    const double fairTime = fairS.value_or(0.0);
    if (m.done.IsZero())
      continue;
    ++m_messagesDone;
    const double t = (m.done - m.posted).GetSeconds();
    const double us = ToUs(m.done - m.posted);
    m_messageUs.Add(us);
    m_slowdown.Add(m.idealS > 0 ? t / m.idealS : 0);
    if (fairTime > 0)
      m_fairSlowdown.Add(t / fairTime);
    m_lastDone = std::max(m_lastDone, m.done);
    if (msgCsv.IsOpen())
    {
      msgCsv << w.Name() << "," << m.src << "," << m.dst << "," << m.bytes << "," << ToUs(m.posted) << ","
             << ToUs(m.done) << "," << us << "," << m.idealS * 1e6 << ","
             << (m.idealS > 0 ? t / m.idealS : 0) << ",";
      if (fairS) // empty where the reference was not computed or the pair had no path
        msgCsv << fairTime * 1e6;
      msgCsv << "\n";
    }
  }
  m_gpuIdle += w.GpuIdle();
}

void
CompletionTables::Commit()
{
  if (m_collectivesCsv.IsOpen())
  {
    m_collectivesCsv.Commit();
    m_messagesCsv.Commit();
  }
}

nlohmann::json
CompletionTables::Messages(uint64_t failed) const
{
  return { { "count", m_messages },
           { "completed", m_messagesDone },
           { "failed", failed },
           { "time_us", m_messageUs.Summary() },
           { "slowdown", m_slowdown.Summary() },
           { "fair_slowdown", m_fairSlowdown.Summary() } };
}

} // namespace mrcsim
