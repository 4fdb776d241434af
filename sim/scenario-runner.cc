#include "sim/scenario-runner.h"

#include "sim/failure-schedule.h"
#include "sim/latency-histogram.h"
#include "sim/network-service.h"
#include "sim/pcap-capture.h"
#include "sim/process-stats.h"
#include "sim/run-watchdog.h"

#include "models/fabric/fabric-packet.h"
#include "models/fabric/fabric-switch.h"
#include "models/fabric/port-queue-config.h"
#include "models/rdma/rdma-nic.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/core-module.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <set>

namespace mrcsim
{

std::atomic<bool> g_interrupted{ false };

namespace
{

using ns3::Ptr;
using ns3::Simulator;
using ns3::Time;

/// A progress line on stderr: simulated time, share of bytes delivered, event rate, wall time.
void
PrintProgress(const std::string& label,
              const std::vector<std::unique_ptr<Workload>>& workloads,
              double events,
              double elapsed)
{
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
  std::cerr << "[" << label << "] " << std::fixed << std::setprecision(1) << Simulator::Now().GetMicroSeconds()
            << " us simulated, " << std::setprecision(0) << share * 100 << "% of bytes delivered, "
            << events / elapsed << " events/s, " << std::setprecision(1) << elapsed << " s";
  if (share > 0.02)
    std::cerr << ", ETA " << elapsed * (1 - share) / share << " s";
  std::cerr << std::endl;
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
  // event (models/engine/fabric-scheduler.h).
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
    try
    {
      workloads.push_back(MakeWorkload(w, spec.seed, ideal));
    }
    catch (const SpecError& e)
    {
      throw SpecError(spec.file + ": at /workloads/" + std::to_string(&w - spec.workloads.data()) + ": " + e.what());
    }
  }
  auto allDone = [&]
  {
    for (auto& w : workloads)
      if (!w->Done())
        return false;
    return true;
  };
  // The run ends as its work does, whatever the sampling interval.
  service.SetOnProgress(
    [&]
    {
      if (allDone())
        Simulator::Stop();
    });
  for (auto& w : workloads)
  {
    w->Start(service);
  }
  const FailureSchedule failures(spec, *fabric, net);
  const nlohmann::json linkLossLog = ApplyLinkLoss(spec, *fabric, net);
  EnablePcapCaptures(spec, *fabric, net, options.outDir); // outputs.pcap (sim/pcap-capture.h)

  // The monitor: samples the time series, stops at the simulated-time limit or when nothing is
  // left to happen, prints progress. The wall-time limit and signals are the watchdog's.
  TimeSeriesSampler sampler(spec, *fabric, net, options.outDir);
  const Time interval = MicrosecondsToTime(spec.outputs.sampleIntervalUs);
  const Time simLimit = MicrosecondsToTime(spec.stop.simTimeUs);
  std::string stopReason = "all work done";
  bool partial = false;
  double lastProgress = 0;
  const uint64_t events0 = Simulator::GetEventCount();
  std::function<void()> monitor = [&]
  {
    sampler.Sample();
    const auto stop = [&](const std::string& reason)
    {
      stopReason = reason;
      partial = true;
      Simulator::Stop();
    };
    if (allDone())
    {
      Simulator::Stop();
      return;
    }
    if (Simulator::Now() >= simLimit)
    {
      stop("sim_time limit");
      return;
    }
    if (Simulator::IsFinished())
    {
      // No event is left but this one: nothing can ever happen again.
      const uint64_t failed = service.FailedMessages();
      const uint64_t waiting = service.OutstandingMessages();
      std::string reason = "no progress possible:";
      if (failed > 0)
        reason += " " + std::to_string(failed) + " message(s) failed on QPs in error" + (waiting ? "," : "");
      if (waiting > 0)
        reason += " " + std::to_string(waiting) + " message(s) waiting on paths that never recovered";
      if (failed == 0 && waiting == 0)
        reason += " no event left and work undone";
      stop(reason);
      return;
    }
    const double elapsed = wall.Seconds();
    if (options.progress && elapsed > 3 && elapsed - lastProgress >= 2)
    {
      lastProgress = elapsed;
      PrintProgress(transport.label, workloads, double(Simulator::GetEventCount() - events0), elapsed);
    }
    Simulator::Schedule(std::min(interval, simLimit - Simulator::Now()), monitor);
  };
  Simulator::Schedule(std::min(interval, simLimit), monitor);
  {
    RunWatchdog watchdog(options.deadline ? *options.deadline
                                          : std::chrono::steady_clock::now() +
                                              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(spec.stop.wallTimeS)));
    Simulator::Run();
    if (!watchdog.Reason().empty())
    {
      stopReason = watchdog.Reason();
      partial = true;
    }
  }
  const uint64_t events = Simulator::GetEventCount() - events0;
  const Time stoppedAt = Simulator::Now();
  sampler.Sample(); // the last, partial interval
  if (!partial && !allDone())
  {
    partial = true;
    stopReason = "no progress possible: no event left and work undone";
  }

  // ---- metrics ---------------------------------------------------------------------------------
  nlohmann::json collectives = nlohmann::json::array();
  LatencyHistogram messageUs;
  LatencyHistogram slowdown(1e-6);
  uint64_t messages = 0;
  uint64_t messagesDone = 0;
  Time lastDone;
  Time gpuIdle;
  OutputFile collCsv;
  OutputFile msgCsv;
  if (!options.outDir.empty())
  {
    collCsv.Open(options.outDir + "/collectives.csv");
    collCsv << "workload,algorithm,group,iteration,ranks,bytes,start_us,end_us,time_us,ideal_us,slowdown,algbw_gbps,"
               "busbw_gbps\n";
    msgCsv.Open(options.outDir + "/messages.csv");
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
      if (collCsv.IsOpen())
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
      if (msgCsv.IsOpen())
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
    const RdmaQpCounters c = qp->Counters();
    retransmissions += c.retransmissions;
    timeouts += c.timeouts;
    lossProbes += c.lossProbes;
    packets += c.packetsSent;
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
  result.series = std::move(sampler.Series());
  sampler.Finish();
  if (collCsv.IsOpen())
  {
    collCsv.Commit();
    msgCsv.Commit();
  }
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
        { "failed", service.FailedMessages() },
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
    { "failures", failures.Log() },
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
