#include "sim/scenario-runner.h"

#include "sim/latency-histogram.h"
#include "sim/pcap-capture.h"
#include "sim/process-stats.h"

#include "models/fabric-packet.h"
#include "models/fabric-switch.h"
#include "models/port-queue-config.h"
#include "models/rdma-connect.h"
#include "models/splitmix.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/core-module.h"

#include <cmath>
#include <deque>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>

namespace mrcsim
{

std::atomic<bool> g_interrupted{ false };

namespace
{

using ns3::MicroSeconds;
using ns3::Ptr;
using ns3::RdmaQueuePair;
using ns3::Simulator;
using ns3::Time;

/// Completion callbacks waiting on one receiving QP, in posting order (RDMA completes a QP's
/// messages in order).
using PendingQueue = std::deque<std::function<void()>>;

void
OnRecvComplete(PendingQueue* pending, uint32_t, uint64_t, uint64_t, Time)
{
  std::function<void()> done = std::move(pending->front());
  pending->pop_front();
  done();
}

void
OnQpError(std::vector<std::string>* errors, uint32_t qpn, const std::string& cause)
{
  errors->push_back("QP " + std::to_string(qpn) + ": " + cause);
}

void
AddLatency(LatencyHistogram* h, Time oneWay)
{
  h->Add(oneWay.GetSeconds() * 1e6);
}

void
CountEvTransition(uint64_t* n, uint32_t, uint16_t, int, ns3::EvState, ns3::EvState)
{
  ++*n;
}

/// The QPs between two GPUs, both directions (a QP pair carries data both ways).
struct Connection
{
  uint32_t a = 0;
  std::vector<Ptr<RdmaQueuePair>> aSide;
  std::vector<Ptr<RdmaQueuePair>> bSide;
  std::vector<PendingQueue*> aPending; ///< completions of messages received by aSide[i]
  std::vector<PendingQueue*> bPending;
};

/// Workloads' messages on the QPs of one transport; QPs are created on a pair's first message.
class NetworkService : public MessageService
{
public:
  NetworkService(ns3::FabricNetwork& net, const TransportSpec& transport) : m_net(net), m_transport(transport) {}

  /// The NICs' host latencies (RdmaNic PostLatency and CompletionLatency) bracket the message:
  /// its QPs have it PostLatency after the post, and the receiver sees it CompletionLatency after
  /// its last byte arrived.
  void Send(uint32_t src, uint32_t dst, uint64_t bytes, std::function<void()> done) override
  {
    Connection& c = Get(src, dst);
    const ns3::Time post = ns3::GetOrCreateNic(m_net, src)->PostLatency();
    const ns3::Time completion = ns3::GetOrCreateNic(m_net, dst)->CompletionLatency();
    if (completion.IsStrictlyPositive())
    {
      done = [completion, done = std::move(done)] { ns3::Simulator::Schedule(completion, done); };
    }
    if (post.IsStrictlyPositive())
    {
      ns3::Simulator::Schedule(post,
                               [this, &c, src, bytes, done = std::move(done)]() mutable
                               { Post(c, src, bytes, std::move(done)); });
      return;
    }
    Post(c, src, bytes, std::move(done));
  }

  const std::vector<Ptr<RdmaQueuePair>>& AllQps() const { return m_qps; }
  const std::vector<std::string>& Errors() const { return m_errors; }
  /// \brief One-way latency of every full data packet, NIC to NIC, microseconds.
  const LatencyHistogram& PacketLatency() const { return m_packetLatency; }
  uint64_t EvTransitions() const { return m_evTransitions; }

private:
  void Post(Connection& c, uint32_t src, uint64_t bytes, std::function<void()> done)
  {
    const bool forward = src == c.a;
    auto& senders = forward ? c.aSide : c.bSide;
    auto& pending = forward ? c.bPending : c.aPending;
    // RoCEv2 with several QPs per connection: the message is split evenly over them (as NCCL
    // splits over channels) and completes with its last part.
    const uint64_t parts = std::min<uint64_t>(senders.size(), bytes);
    if (parts == 1)
    {
      pending[0]->push_back(std::move(done));
      senders[0]->PostWrite(bytes);
      return;
    }
    auto left = std::make_shared<uint64_t>(parts);
    auto whole = std::make_shared<std::function<void()>>(std::move(done));
    for (uint64_t i = 0; i < parts; ++i)
    {
      const uint64_t part = bytes / parts + (i < bytes % parts ? 1 : 0);
      pending[i]->push_back(
        [left, whole]
        {
          if (--*left == 0)
            (*whole)();
        });
      senders[i]->PostWrite(part);
    }
  }

  Connection& Get(uint32_t src, uint32_t dst)
  {
    const uint64_t key = (uint64_t(std::min(src, dst)) << 32) | std::max(src, dst);
    auto it = m_connections.find(key);
    if (it != m_connections.end())
    {
      return it->second;
    }
    Connection& c = m_connections[key];
    c.a = std::min(src, dst);
    const uint32_t b = std::max(src, dst);
    for (uint32_t gpu : { c.a, b })
    {
      if (m_latencyTraced.insert(gpu).second)
      {
        Ptr<ns3::RdmaNic> nic = ns3::GetOrCreateNic(m_net, gpu);
        nic->EnableLatencyTracing();
        nic->TraceConnectWithoutContext("PacketLatency", ns3::MakeBoundCallback(&AddLatency, &m_packetLatency));
      }
    }
    if (m_transport.type == "mrc")
    {
      auto qp = ns3::ConnectMrc(m_net, c.a, b);
      for (auto side : { qp.first, qp.second })
      {
        side->TraceConnectWithoutContext("EvState", ns3::MakeBoundCallback(&CountEvTransition, &m_evTransitions));
      }
      Add(c, qp.first, qp.second);
    }
    else
    {
      const uint16_t ports = m_net.GetHost(c.a)->NumPorts();
      for (uint32_t q = 0; q < m_transport.qpsPerConnection; ++q)
      {
        uint64_t h = (uint64_t(c.a) << 32) ^ (uint64_t(b) << 8) ^ q;
        const uint16_t entropy = static_cast<uint16_t>(0xC000 | (ns3::SplitMix64(h) & 0x3FFF));
        auto qp = ns3::ConnectRoce(m_net, c.a, b, static_cast<uint16_t>(q % ports), entropy);
        Add(c, qp.first, qp.second);
      }
    }
    return c;
  }

  void Add(Connection& c, Ptr<RdmaQueuePair> x, Ptr<RdmaQueuePair> y)
  {
    c.aSide.push_back(x);
    c.bSide.push_back(y);
    for (auto [qp, list] : { std::make_pair(x, &c.aPending), std::make_pair(y, &c.bPending) })
    {
      m_pending.emplace_back();
      PendingQueue* pending = &m_pending.back();
      list->push_back(pending);
      qp->TraceConnectWithoutContext("RecvComplete", ns3::MakeBoundCallback(&OnRecvComplete, pending));
      qp->TraceConnectWithoutContext("Error", ns3::MakeBoundCallback(&OnQpError, &m_errors));
      m_qps.push_back(qp);
    }
  }

  ns3::FabricNetwork& m_net;
  const TransportSpec& m_transport;
  std::map<uint64_t, Connection> m_connections;
  std::deque<PendingQueue> m_pending; ///< stable addresses
  std::vector<Ptr<RdmaQueuePair>> m_qps;
  std::vector<std::string> m_errors;
  uint64_t m_evTransitions = 0;
  std::set<uint32_t> m_latencyTraced; ///< GPUs whose NIC reports packet latency
  LatencyHistogram m_packetLatency{ 1e-3 };
};

/// The links of `fabric` touching a switch of `plane` (all tiers).
std::vector<uint32_t>
PlaneLinks(const Fabric& fabric, int plane)
{
  std::set<uint32_t> links;
  for (int tier = 0; tier < fabric.NumTiers(); ++tier)
  {
    for (VertexId v : fabric.Switches(plane, tier))
    {
      for (uint16_t p = 0; p < fabric.Degree(v); ++p)
        links.insert(fabric.LinkAt(v, p).id);
    }
  }
  return { links.begin(), links.end() };
}

std::vector<uint32_t>
SwitchLinks(const Fabric& fabric, int plane, int tier, uint32_t index)
{
  VertexId v = fabric.Switches(plane, tier)[index];
  std::vector<uint32_t> links;
  for (uint16_t p = 0; p < fabric.Degree(v); ++p)
    links.push_back(fabric.LinkAt(v, p).id);
  return links;
}

/// Links of a class: "gpu-t0" (a GPU at one end), "t0-t1" (tier-0 and tier-1 switches) or "all".
std::vector<uint32_t>
ClassLinks(const Fabric& fabric, const std::string& linkClass)
{
  std::vector<uint32_t> links;
  for (uint32_t id = 0; id < fabric.NumLinks(); ++id)
  {
    auto [a, b] = fabric.Ends(id);
    const FabricNode& na = fabric.Node(a);
    const FabricNode& nb = fabric.Node(b);
    const bool gpu = na.role == NodeRole::Gpu || nb.role == NodeRole::Gpu;
    const bool t0t1 = !gpu && std::min(na.tier, nb.tier) == 0 && std::max(na.tier, nb.tier) == 1;
    if (linkClass == "all" || (linkClass == "gpu-t0" && gpu) || (linkClass == "t0-t1" && t0t1))
      links.push_back(id);
  }
  return links;
}

/// Sets the scenario's random loss per link class (both directions of each link, from the start);
/// returns what was set (for the summary).
nlohmann::json
ApplyLinkLoss(const ScenarioSpec& spec, const Fabric& fabric, ns3::FabricNetwork& net)
{
  nlohmann::json log = nlohmann::json::array();
  for (const LinkLossSpec& l : spec.linkLoss)
  {
    const std::vector<uint32_t> links = ClassLinks(fabric, l.linkClass);
    for (uint32_t id : links)
    {
      auto [a, b] = fabric.Ends(id);
      const FabricLink& link = fabric.Link(id);
      Ptr<ns3::FabricChannel> ch = net.GetChannel(id);
      ch->SetLossRate(ns3::PeekPointer(net.GetPort(a, link.portA)), l.rate);
      ch->SetLossRate(ns3::PeekPointer(net.GetPort(b, link.portB)), l.rate);
    }
    log.push_back({ { "link_class", l.linkClass }, { "rate", l.rate }, { "links", links.size() } });
  }
  return log;
}

/// Schedules the failure timeline; returns a log of what will happen (for the summary).
nlohmann::json
ScheduleFailures(const ScenarioSpec& spec, const Fabric& fabric, ns3::FabricNetwork& net)
{
  nlohmann::json log = nlohmann::json::array();
  auto setLinks = [&net](Time at, const std::vector<uint32_t>& links, bool up)
  {
    for (uint32_t id : links)
      net.ScheduleLinkUp(at, id, up);
  };
  uint64_t stream = 0;
  for (const FailureSpec& f : spec.failures)
  {
    const Time at = MicrosecondsToTime(f.atUs);
    const std::string& t = f.type;
    nlohmann::json entry{ { "type", t }, { "at_us", f.atUs } };
    if (t == "link_down" || t == "link_up" || t == "port_down" || t == "port_up")
    {
      const uint32_t id = ResolveLink(fabric, f.link, spec.file);
      setLinks(at, { id }, t == "link_up" || t == "port_up");
      entry["links"] = { id };
    }
    else if (t == "link_flap")
    {
      const uint32_t id = ResolveLink(fabric, f.link, spec.file);
      for (uint32_t k = 0; k < f.count; ++k)
      {
        setLinks(MicrosecondsToTime(f.atUs + k * f.periodUs), { id }, false);
        setLinks(MicrosecondsToTime(f.atUs + (k + 0.5) * f.periodUs), { id }, true);
      }
      entry["links"] = { id };
    }
    else if (t == "switch_down" || t == "switch_up")
    {
      auto links = SwitchLinks(fabric, f.plane, f.tier, f.index);
      setLinks(at, links, t == "switch_up");
      entry["links"] = links.size();
    }
    else if (t == "plane_down" || t == "plane_up")
    {
      auto links = PlaneLinks(fabric, f.plane);
      setLinks(at, links, t == "plane_up");
      entry["links"] = links.size();
    }
    else if (t == "gray")
    {
      const uint32_t id = ResolveLink(fabric, f.link, spec.file);
      auto [a, b] = fabric.Ends(id);
      const FabricLink& l = fabric.Link(id);
      Ptr<ns3::FabricChannel> ch = net.GetChannel(id);
      Ptr<ns3::FabricPort> pa = net.GetPort(a, l.portA);
      Ptr<ns3::FabricPort> pb = net.GetPort(b, l.portB);
      const double loss = f.lossRate;
      const double rate = f.rateFactor;
      Simulator::Schedule(at,
                          [ch, pa, pb, loss, rate]
                          {
                            for (auto p : { pa, pb })
                            {
                              ch->SetLossRate(ns3::PeekPointer(p), loss);
                              ch->SetRateFactor(ns3::PeekPointer(p), rate);
                            }
                          });
      entry["links"] = { id };
    }
    else if (t == "random_links")
    {
      // Failures of a link class as a Poisson process (rate: links / MTBF), each repaired after
      // an exponential time of mean MTTR; drawn from the scenario seed.
      auto links = ClassLinks(fabric, f.linkClass);
      uint64_t rng = WorkloadStreamSeed(spec.seed, "random_links", stream++);
      double now = f.atUs;
      uint64_t drawn = 0;
      while (!links.empty())
      {
        now += -std::log1p(-ns3::SplitMixUniform(rng)) * f.mtbfUs / double(links.size());
        if (now >= f.untilUs)
          break;
        const uint32_t id = links[ns3::SplitMix64(rng) % links.size()];
        const double repair = -std::log1p(-ns3::SplitMixUniform(rng)) * f.mttrUs;
        setLinks(MicrosecondsToTime(now), { id }, false);
        setLinks(MicrosecondsToTime(now + repair), { id }, true);
        ++drawn;
      }
      entry["failures_drawn"] = drawn;
      entry["links_in_class"] = links.size();
    }
    log.push_back(entry);
  }
  return log;
}

/// Ports whose transmitted bytes make the time series: switch ports facing GPUs (goodput
/// delivered per plane) and T0 up-ports (fabric utilisation per plane).
struct SampledPorts
{
  std::vector<std::vector<Ptr<ns3::FabricPort>>> lastHop; ///< by plane
  std::vector<std::vector<Ptr<ns3::FabricPort>>> up;      ///< by plane
  std::vector<double> upCapacityBps;                      ///< by plane
};

SampledPorts
FindSampledPorts(const Fabric& fabric, ns3::FabricNetwork& net)
{
  SampledPorts s;
  const int planes = std::max(1, fabric.NumPlanes());
  s.lastHop.resize(planes);
  s.up.resize(planes);
  s.upCapacityBps.assign(planes, 0);
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
        s.lastHop[plane].push_back(net.GetPort(v, port));
      else if (n.tier == 0 && p.tier == 1)
      {
        s.up[plane].push_back(net.GetPort(v, port));
        s.upCapacityBps[plane] += double(l.rateBps);
      }
    }
  }
  return s;
}

uint64_t
SumTxBytes(const std::vector<Ptr<ns3::FabricPort>>& ports)
{
  uint64_t sum = 0;
  for (const auto& p : ports)
    sum += p->TxBytes();
  return sum;
}

} // namespace

TransportResult
RunTransport(const ScenarioSpec& spec,
             const TransportSpec& transport,
             std::shared_ptr<const Fabric> fabric,
             const RunOptions& options)
{
  using namespace ns3;
  Stopwatch wall;
  // A run that throws must not leave its events to the next run in the process (the Python
  // module runs many); the normal path empties the simulator itself, below.
  struct EmptySimulatorOnExit
  {
    ~EmptySimulatorOnExit() { Simulator::Destroy(); }
  } emptySimulator;
  // Each transport starts from ns-3's defaults, then its own attributes.
  Config::Reset();
  RngSeedManager::SetSeed(static_cast<uint32_t>(spec.seed % 0xFFFFFFFFu) + 1);
  RngSeedManager::SetRun(spec.seed >> 32);
  std::set<std::string> userSet;
  for (const auto& [name, value] : transport.attributes)
  {
    if (!Config::SetDefaultFailSafe(name, StringValue(value)))
    {
      throw SpecError(spec.file + ": at /transport (" + transport.label + ")/attributes/" + name + ": \"" + value +
                      "\" is not a valid value of an existing ns-3 attribute (name ns3::Type::Attribute; run with "
                      "NS_LOG unset; see the model headers for the attributes)");
    }
    userSet.insert(name.substr(name.rfind("::") + 2));
  }

  // The same event order as ns-3's MapScheduler (bit-identical results), without a tree node per
  // event (models/fabric-scheduler.h).
  Simulator::SetScheduler(ObjectFactory("ns3::FabricScheduler"));
  FabricNetwork net(fabric);
  // The transport's fabric policy, unless the scenario set the same attribute itself.
  auto policy = [&](Ptr<PortQueueConfig> cfg, const std::string& attr, bool value)
  {
    if (!userSet.count(attr))
      cfg->SetAttribute(attr, BooleanValue(value));
  };
  UintegerValue mtu;
  CreateObject<RdmaNic>()->GetAttribute("Mtu", mtu); // the NICs' payload per packet
  const IdealModel ideal = MakeIdealModel(net.Routing(), static_cast<uint32_t>(mtu.Get()));
  if (transport.type == "mrc")
  {
    policy(net.GetLastHopPortConfig(), "EcnEnabled", false); // a mark means mid-fabric congestion
    policy(net.GetFabricPortConfig(), "TrimEnabled", true);
    policy(net.GetLastHopPortConfig(), "TrimEnabled", true);
    // Thresholds in BDPs of the fabric (docs/MODEL.md): ECN from 0.2 to 0.8 BDP, trimming above
    // 1 BDP, 1.5 on the last hop. The BDP is that of the reference rate over the base round trip
    // (twice the longest path's one-way latency); ports of other rates scale it.
    const auto bdpBytes = [&](double bdps)
    {
      DataRateValue reference;
      net.GetFabricPortConfig()->GetAttribute("ReferenceRate", reference);
      const double bdp = 2 * ideal.baseLatencyS * double(reference.Get().GetBitRate()) / 8;
      return static_cast<uint64_t>(bdps * bdp);
    };
    const auto threshold = [&](Ptr<PortQueueConfig> cfg, const std::string& attr, double bdps)
    {
      if (!userSet.count(attr))
        cfg->SetAttribute(attr, UintegerValue(bdpBytes(bdps)));
    };
    threshold(net.GetFabricPortConfig(), "EcnKmin", 0.2);
    threshold(net.GetFabricPortConfig(), "EcnKmax", 0.8);
    threshold(net.GetFabricPortConfig(), "TrimThreshold", 1.0);
    threshold(net.GetLastHopPortConfig(), "TrimThreshold", 1.5);
  }
  else
  {
    for (auto cfg : { net.GetFabricPortConfig(), net.GetLastHopPortConfig(), net.GetNicPortConfig() })
      policy(cfg, "PfcEnabled", true);
  }
  NetworkService service(net, transport);
  std::vector<std::unique_ptr<Workload>> workloads;
  for (const WorkloadSpec& w : spec.workloads)
  {
    workloads.push_back(MakeWorkload(w, spec.seed, ideal));
  }
  for (auto& w : workloads)
  {
    w->Start(service);
  }
  nlohmann::json failureLog = ScheduleFailures(spec, *fabric, net);
  const nlohmann::json linkLossLog = ApplyLinkLoss(spec, *fabric, net);
  EnablePcapCaptures(spec, *fabric, net, options.outDir); // outputs.pcap (sim/pcap-capture.h)

  // Time series and the monitor (stop conditions, progress) on one periodic event.
  SampledPorts sampled = FindSampledPorts(*fabric, net);
  const int planes = static_cast<int>(sampled.lastHop.size());
  const Time interval = MicrosecondsToTime(spec.outputs.sampleIntervalUs);
  std::ofstream series;
  if (!options.outDir.empty())
  {
    series.open(options.outDir + "/timeseries.csv");
    series << "time_us,plane,goodput_gbps,uplink_utilisation\n";
  }
  TimeSeries timeSeries;
  // outputs.ports: both ends of each listed link, each once.
  struct SampledPort
  {
    uint32_t link;
    std::string node;
    uint16_t port;
    Ptr<FabricPort> p;
    double rateBps;
    uint64_t lastTx = 0;
  };
  std::vector<SampledPort> portSamples;
  {
    std::set<std::pair<VertexId, uint16_t>> seen;
    for (const LinkSelector& s : spec.outputs.portLinks)
    {
      const uint32_t id = ResolveLink(*fabric, s, spec.file);
      const auto [a, b] = fabric->Ends(id);
      const FabricLink& l = fabric->Link(id);
      for (const auto& [v, port] : { std::make_pair(a, l.portA), std::make_pair(b, l.portB) })
        if (seen.insert({ v, port }).second)
          portSamples.push_back({ id, fabric->VertexName(v), port, net.GetPort(v, port), double(l.rateBps) });
    }
  }
  std::ofstream portsCsv;
  if (!options.outDir.empty() && !portSamples.empty())
  {
    portsCsv.open(options.outDir + "/ports.csv");
    portsCsv << "time_us,link,node,port,queue_bytes,utilisation\n";
  }
  std::vector<uint64_t> lastGood(planes, 0);
  std::vector<uint64_t> lastUp(planes, 0);
  std::string stopReason = "all work done";
  bool partial = false;
  double lastProgress = 0;
  auto allDone = [&]
  {
    for (auto& w : workloads)
      if (!w->Done())
        return false;
    return true;
  };
  const uint64_t events0 = Simulator::GetEventCount();
  std::function<void()> monitor = [&]
  {
    for (int p = 0; p < planes; ++p)
    {
      const uint64_t good = SumTxBytes(sampled.lastHop[p]);
      const uint64_t up = SumTxBytes(sampled.up[p]);
      const double dt = interval.GetSeconds();
      const double goodput = double(good - lastGood[p]) * 8 / dt / 1e9;
      const double utilisation =
        sampled.upCapacityBps[p] > 0 ? double(up - lastUp[p]) * 8 / dt / sampled.upCapacityBps[p] : 0.0;
      timeSeries.timeUs.push_back(double(Simulator::Now().GetPicoSeconds()) / 1e6);
      timeSeries.plane.push_back(p);
      timeSeries.goodputGbps.push_back(goodput);
      timeSeries.uplinkUtilisation.push_back(utilisation);
      if (series.is_open())
      {
        series << Simulator::Now().GetMicroSeconds() << "," << p << "," << goodput << "," << utilisation << "\n";
      }
      lastGood[p] = good;
      lastUp[p] = up;
    }
    for (SampledPort& sp : portSamples)
    {
      uint64_t queued = 0;
      for (uint8_t cls = 0; cls < sp.p->QueueConfig()->NumClasses(); ++cls)
        queued += sp.p->QueueBytes(cls);
      const uint64_t tx = sp.p->TxBytes();
      const double utilisation = double(tx - sp.lastTx) * 8 / interval.GetSeconds() / sp.rateBps;
      sp.lastTx = tx;
      TimeSeries::Ports& ps = timeSeries.ports;
      ps.timeUs.push_back(double(Simulator::Now().GetPicoSeconds()) / 1e6);
      ps.link.push_back(sp.link);
      ps.node.push_back(sp.node);
      ps.port.push_back(sp.port);
      ps.queueBytes.push_back(queued);
      ps.utilisation.push_back(utilisation);
      if (portsCsv.is_open())
        portsCsv << Simulator::Now().GetMicroSeconds() << "," << sp.link << "," << sp.node << "," << sp.port << ","
                 << queued << "," << utilisation << "\n";
    }
    if (allDone())
    {
      Simulator::Stop();
      return;
    }
    const double elapsed = wall.Seconds();
    if (g_interrupted)
    {
      stopReason = "interrupted";
      partial = true;
      Simulator::Stop();
      return;
    }
    if (spec.stop.wallTimeS > 0 && elapsed > spec.stop.wallTimeS)
    {
      stopReason = "wall_time limit";
      partial = true;
      Simulator::Stop();
      return;
    }
    if (options.progress && elapsed > 3 && elapsed - lastProgress >= 2)
    {
      lastProgress = elapsed;
      // Work done: bytes of completed messages over all the bytes the workloads will post.
      uint64_t doneBytes = 0;
      uint64_t total = 0;
      for (auto& w : workloads)
      {
        for (const MessageRecord& m : w->Messages())
          doneBytes += m.done.IsZero() ? 0 : m.bytes;
        total += w->BytesTotal();
      }
      const double share = total ? double(doneBytes) / double(total) : 0;
      const double rate = double(Simulator::GetEventCount() - events0) / elapsed;
      std::cerr << "[" << transport.label << "] " << std::fixed << std::setprecision(1)
                << Simulator::Now().GetMicroSeconds() << " us simulated, " << std::setprecision(0) << share * 100
                << "% of bytes delivered, " << rate << " events/s, " << std::setprecision(1) << elapsed << " s";
      if (share > 0.02)
        std::cerr << ", ETA " << elapsed * (1 - share) / share << " s";
      std::cerr << std::endl;
    }
    Simulator::Schedule(interval, monitor);
  };
  Simulator::Schedule(interval, monitor);
  if (spec.stop.simTimeUs > 0)
  {
    Simulator::Schedule(MicrosecondsToTime(spec.stop.simTimeUs),
                        [&]
                        {
                          stopReason = "sim_time limit";
                          partial = true;
                          Simulator::Stop();
                        });
  }
  Simulator::Run();
  const uint64_t events = Simulator::GetEventCount() - events0;
  const Time stoppedAt = Simulator::Now();
  if (!partial && !allDone())
  {
    partial = true;
    stopReason = "no more events (work left undone: a QP failed or a path never recovered)";
  }

  // ---- metrics ---------------------------------------------------------------------------------
  nlohmann::json collectives = nlohmann::json::array();
  LatencyHistogram messageUs;
  LatencyHistogram slowdown(1e-6);
  uint64_t messages = 0;
  uint64_t messagesDone = 0;
  Time lastDone;
  Time gpuIdle;
  std::ofstream collCsv;
  std::ofstream msgCsv;
  if (!options.outDir.empty())
  {
    collCsv.open(options.outDir + "/collectives.csv");
    collCsv << "workload,algorithm,group,iteration,ranks,bytes,start_us,end_us,time_us,ideal_us,slowdown,algbw_gbps,"
               "busbw_gbps\n";
    msgCsv.open(options.outDir + "/messages.csv");
    msgCsv << "workload,src,dst,bytes,posted_us,done_us,time_us,ideal_us,slowdown\n";
  }
  for (auto& w : workloads)
  {
    LatencyHistogram timeUs;
    double idealSum = 0;
    double algbwSum = 0;
    double busbwSum = 0;
    uint64_t done = 0;
    std::string algorithm;
    for (const CollectiveRecord& c : w->Collectives())
    {
      algorithm = c.algorithm;
      if (c.end.IsZero() && c.bytes > 0)
        continue;
      const double t = (c.end - c.start).GetSeconds();
      const double algbw = t > 0 ? double(c.bytes) * 8 / t / 1e9 : 0;
      timeUs.Add(t * 1e6);
      idealSum += c.idealS;
      algbwSum += algbw;
      busbwSum += algbw * c.busFactor;
      ++done;
      lastDone = std::max(lastDone, c.end);
      if (collCsv.is_open())
        collCsv << w->Name() << "," << c.algorithm << "," << c.group << "," << c.iteration << "," << c.ranks << ","
                << c.bytes << "," << c.start.GetSeconds() * 1e6 << "," << c.end.GetSeconds() * 1e6 << "," << t * 1e6
                << "," << c.idealS * 1e6 << "," << (c.idealS > 0 ? t / c.idealS : 0) << "," << algbw << ","
                << algbw * c.busFactor << "\n";
    }
    if (!w->Collectives().empty())
    {
      const double n = double(std::max<uint64_t>(done, 1));
      collectives.push_back({ { "workload", w->Name() },
                              { "algorithm", algorithm },
                              { "instances", w->Collectives().size() },
                              { "completed", done },
                              { "time_us", timeUs.Summary() },
                              { "ideal_us", idealSum / n * 1e6 },
                              { "slowdown_mean", idealSum > 0 ? timeUs.Mean() / (idealSum / n * 1e6) : 0 },
                              { "algbw_gbps", algbwSum / n },
                              { "busbw_gbps", busbwSum / n } });
    }
    for (const MessageRecord& m : w->Messages())
    {
      ++messages;
      if (m.done.IsZero())
        continue;
      ++messagesDone;
      const double t = (m.done - m.posted).GetSeconds();
      messageUs.Add(t * 1e6);
      slowdown.Add(m.idealS > 0 ? t / m.idealS : 0);
      lastDone = std::max(lastDone, m.done);
      if (msgCsv.is_open())
        msgCsv << m.workload << "," << m.src << "," << m.dst << "," << m.bytes << "," << m.posted.GetSeconds() * 1e6
               << "," << m.done.GetSeconds() * 1e6 << "," << t * 1e6 << "," << m.idealS * 1e6 << ","
               << (m.idealS > 0 ? t / m.idealS : 0) << "\n";
    }
    gpuIdle += w->GpuIdle();
  }

  // Counters.
  uint64_t retransmissions = 0;
  uint64_t timeouts = 0;
  uint64_t lossProbes = 0;
  uint64_t packets = 0;
  for (const auto& qp : service.AllQps())
  {
    if (auto m = DynamicCast<MrcQueuePair>(qp))
    {
      retransmissions += m->Retransmissions();
      timeouts += m->Timeouts();
      lossProbes += m->LossProbes();
      packets += m->PacketsSent();
    }
    else if (auto r = DynamicCast<RoceQueuePair>(qp))
    {
      retransmissions += r->Retransmissions();
      timeouts += r->Timeouts();
      packets += r->PacketsSent();
    }
  }
  uint64_t trims = 0;
  uint64_t marks = 0;
  Time paused;
  for (uint32_t id = 0; id < fabric->NumLinks(); ++id)
  {
    auto [a, b] = fabric->Ends(id);
    for (auto port : { net.GetPort(a, fabric->Link(id).portA), net.GetPort(b, fabric->Link(id).portB) })
    {
      trims += port->TrimmedPackets();
      marks += port->EcnMarkedPackets();
      paused += port->PausedTime();
    }
  }
  nlohmann::json drops = nlohmann::json::object();
  for (size_t c = 0; c < static_cast<size_t>(DropCause::Count); ++c)
    drops[DropCauseName(static_cast<DropCause>(c))] = net.CountDrops(static_cast<DropCause>(c));

  nlohmann::json packetLatency = service.PacketLatency().Summary();
  packetLatency["histogram"] = service.PacketLatency().Buckets();

  TransportResult result;
  result.partial = partial;
  result.series = std::move(timeSeries);
  nlohmann::json attrs = nlohmann::json::object();
  for (const auto& [k, v] : transport.attributes)
    attrs[k] = v;
  result.summary = {
    { "label", transport.label },
    { "transport", transport.type },
    { "attributes", attrs },
    { "qps_per_connection", transport.type == "rocev2" ? transport.qpsPerConnection : 1 },
    { "partial", partial },
    { "stop_reason", stopReason },
    { "completion_us", lastDone.GetSeconds() * 1e6 },
    { "stopped_at_us", stoppedAt.GetSeconds() * 1e6 },
    { "events", events },
    { "collectives", collectives },
    { "messages",
      { { "count", messages },
        { "completed", messagesDone },
        { "time_us", messageUs.Summary() },
        { "slowdown", slowdown.Summary() } } },
    { "packet_latency_us", packetLatency },
    { "counters",
      { { "data_packets_sent", packets },
        { "retransmissions", retransmissions },
        { "timeouts", timeouts },
        { "loss_probes", lossProbes },
        { "trims", trims },
        { "ecn_marks", marks },
        { "pfc_paused_port_us", paused.GetSeconds() * 1e6 },
        { "drops", drops },
        { "ev_transitions", service.EvTransitions() },
        { "qp_errors", service.Errors().size() } } },
    { "qp_errors",
      service.Errors().size() > 10 ? std::vector<std::string>(service.Errors().begin(), service.Errors().begin() + 10)
                                   : service.Errors() },
    { "gpu_idle_us", gpuIdle.GetSeconds() * 1e6 },
    { "failures", failureLog },
    { "link_loss", linkLossLog },
    { "ideal_model",
      { { "gpu_bandwidth_gbps", ideal.gpuBandwidthBps / 1e9 },
        { "wire_overhead", ideal.wireOverhead },
        { "base_latency_us", ideal.baseLatencyS * 1e6 } } },
  };
  const double seconds = wall.Seconds();
  result.wall = { { "label", transport.label },
                  { "seconds", seconds },
                  { "events_per_second", seconds > 0 ? double(events) / seconds : 0 },
                  { "peak_rss_bytes", PeakRssBytes() } };
  workloads.clear();
  Simulator::Destroy();
  return result;
}

} // namespace mrcsim
