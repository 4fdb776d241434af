// One transport's run in four steps: build (ns-3 defaults, network, the transport's fabric
// policy, workloads, failures, outputs), run (the monitor: samples, limits, progress; the
// watchdog), collect (sim/run/run-metrics.h) and write (the summary; the collectors' CSV files).
#include "sim/run/transport-run.h"

#include "sim/parallel/mpi-ranks.h"

#include "sim/run/eta-estimator.h"
#include "sim/failures/failure-schedule.h"
#include "sim/network/network-service.h"
#include "sim/run/pcap-capture.h"
#include "sim/run/process-stats.h"
#include "sim/run/run-metrics.h"
#include "sim/run/run-watchdog.h"
#include "sim/network/transport-types.h"

#include "models/engine/attribute-default.h"
#include "models/engine/fabric-parallel-simulator.h"
#include "models/fabric/fabric-frame.h"
#include "models/rdma/rdma-nic.h"

#include "ns3/config.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <set>
#include <stdexcept>

namespace mrcsim
{

namespace
{

using ns3::Ptr;
using ns3::Simulator;
using ns3::Time;

/// A progress line on stderr: simulated time, share of bytes delivered, event rate, wall time,
/// and the time left as `eta` estimates it from the recent lines ("estimating" until it is stable).
void
PrintProgress(const std::string& label,
              const std::vector<std::unique_ptr<Workload>>& workloads,
              double events,
              double elapsed,
              EtaEstimator& eta)
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
  const std::optional<double> left = eta.Add(elapsed, share);
  if (left)
    std::cerr << ", ETA " << *left << " s";
  else
    std::cerr << ", ETA estimating";
  std::cerr << std::endl;
}

/// Whether every workload is done.
bool
AllDone(const std::vector<std::unique_ptr<Workload>>& workloads)
{
  for (auto& w : workloads)
    if (!w->Done())
      return false;
  return true;
}

/// Resets ns-3's attribute defaults and seeds, then sets the transport's attributes; returns
/// the names (without the type) of those it set, which the fabric policy leaves alone.
std::set<std::string>
SetDefaults(const ScenarioSpec& spec, const TransportSpec& transport)
{
  using namespace ns3;
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
  return userSet;
}

/// The workloads of the scenario; a spec error names the workload's JSON path.
std::vector<std::unique_ptr<Workload>>
MakeWorkloads(const ScenarioSpec& spec, const IdealModel& ideal)
{
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
  return workloads;
}

/// \brief The watchdog's reason to stop (empty: none) agreed by all ranks of an MPI run: a stop
/// one rank's watchdog made stops them all (the engine agrees on it), so every rank reports it.
std::string
AgreedStopReason(const std::string& local)
{
  if (!MpiLink())
    return local;
  const std::vector<std::string>& reasons = WatchdogReasons();
  std::vector<uint64_t> seen(reasons.size(), 0);
  if (!local.empty())
  {
    const auto it = std::find(reasons.begin(), reasons.end(), local);
    seen[it == reasons.end() ? reasons.size() - 1 : it - reasons.begin()] = 1;
  }
  ns3::FabricParallelSimulatorImpl::SumOverRanks(seen);
  for (std::size_t i = 0; i < reasons.size(); ++i)
    if (seen[i] > 0)
      return reasons[i];
  return std::string();
}

/// How a run ended.
struct RunOutcome
{
  std::string stopReason = "all work done";
  bool partial = false;
  uint64_t events = 0; ///< events the run executed
  Time stoppedAt;
};

/// Runs the simulation to its end: the monitor samples the time series, stops at the
/// simulated-time limit or when nothing is left to happen, prints progress; the wall-time limit
/// and signals are the watchdog's.
RunOutcome
Run(const ScenarioSpec& spec,
    const TransportSpec& transport,
    const RunOptions& options,
    const NetworkService& service,
    const std::vector<std::unique_ptr<Workload>>& workloads,
    TimeSeriesSampler& sampler,
    const Stopwatch& wall)
{
  const Time interval = MicrosecondsToTime(spec.outputs.sampleIntervalUs);
  const Time simLimit = MicrosecondsToTime(spec.stop.simTimeUs);
  RunOutcome outcome;
  double lastProgress = 0;
  EtaEstimator eta;
  const uint64_t events0 = Simulator::GetEventCount();
  Time quietUntil; ///< the earliest work pending after the last sample (NextEventTime)
  std::function<void()> monitor = [&]
  {
    sampler.Sample();
    const auto stop = [&](const std::string& reason)
    {
      outcome.stopReason = reason;
      outcome.partial = true;
      Simulator::Stop();
    };
    if (AllDone(workloads))
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
      PrintProgress(transport.label, workloads, double(Simulator::GetEventCount() - events0), elapsed, eta);
    }
    // The next sample, an interval from now. Across a stretch where no message is outstanding,
    // no frame is in the network and nothing is pending (a workload starting late, a long compute
    // phase), once one sample has read its rates as zero, the next is the last before the work
    // resumes: nothing changes in between, so it reads what the skipped ones would have, and a
    // plot of the rows drops to zero and stays there. Without frames, what is pending is the same
    // for any partition count (a partition defers a sending port's catch-up to its window's end,
    // which one partition has as an event, and frames start at their times without events).
    const Time now = Simulator::Now();
    bool idle = service.OutstandingMessages() == 0; // the same on every rank
    if (idle)
    {
      std::vector<uint64_t> frames{ ns3::FramePtr::Live() };
      ns3::FabricParallelSimulatorImpl::SumOverRanks(frames);
      idle = frames[0] == 0;
    }
    const Time next = idle ? ns3::FabricParallelSimulatorImpl::NextEventTime() : now;
    const bool quiet = quietUntil > now; // nothing ran since the sample before
    quietUntil = next;
    int64_t intervals = 1;
    if (quiet)
      intervals = std::max<int64_t>(1, ((next - now).GetTimeStep() - 1) / interval.GetTimeStep());
    const Time due = now + ns3::TimeStep(interval.GetTimeStep() * intervals);
    Simulator::Schedule(std::min(due, simLimit) - now, monitor);
  };
  Simulator::Schedule(std::min(interval, simLimit), monitor);
  {
    RunWatchdog watchdog(options.deadline ? *options.deadline
                                          : std::chrono::steady_clock::now() +
                                              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(spec.stop.wallTimeS)));
    Simulator::Run();
    const std::string reason = AgreedStopReason(watchdog.Reason());
    if (!reason.empty())
    {
      outcome.stopReason = reason;
      outcome.partial = true;
    }
  }
  std::vector<uint64_t> events{ Simulator::GetEventCount() - events0 };
  ns3::FabricParallelSimulatorImpl::SumOverRanks(events); // every rank's
  outcome.events = events[0];
  outcome.stoppedAt = Simulator::Now();
  sampler.Sample(); // the last, partial interval
  if (!outcome.partial && !AllDone(workloads))
  {
    outcome.partial = true;
    outcome.stopReason = "no progress possible: no event left and work undone";
  }
  return outcome;
}

} // namespace

uint32_t
ResolvedPartitions(const ScenarioSpec& spec, uint32_t requested)
{
  // Across MPI ranks: one partition per rank unless asked for more.
  const uint32_t ranks = MpiLink() ? MpiLink()->Ranks() : 1;
  return requested                        ? requested
         : ranks > 1                      ? ranks
         : spec.outputs.pcapLinks.empty() ? kDefaultPartitions
                                          : 1;
}

/// \brief The vertices this process builds the ports of (FabricNetwork's `runs`): in a run across
/// MPI ranks, its own partitions' (the links between other ranks' vertices are left out); else
/// every vertex (empty).
std::vector<bool>
BuildScope(const Fabric& fabric, uint32_t partitions)
{
  const ns3::RankLink* link = MpiLink();
  if (!link || partitions < link->Ranks())
    return {}; // one process (no link), or a run Partition refuses
  return ns3::FabricNetwork::RanksVertices(fabric, partitions, link->Rank(), link->Ranks());
}

/// \brief Splits the run into `partitions` (FabricNetwork::Partition; nothing for 1) and returns
/// the number of links between partitions. The workloads react to completions in global events
/// (NetworkService::Send), which a partition may schedule no sooner than a lookahead ahead: the
/// lookahead is at most the NICs' CompletionLatency, which must be positive.
uint32_t
Partition(const ScenarioSpec& spec, ns3::FabricNetwork& net, uint32_t partitions)
{
  using namespace ns3;
  if (partitions < 1 || partitions > kMaxPartitions)
  {
    throw std::invalid_argument("partitions " + std::to_string(partitions) + ": 1 to " +
                                std::to_string(kMaxPartitions));
  }
  if (partitions == 1)
  {
    if (MpiLink())
      throw std::invalid_argument("partitions 1: an MPI run needs a partition per rank at least (" +
                                  std::to_string(MpiLink()->Ranks()) + " ranks)");
    return 0;
  }
  const Time completion = AttributeDefault<TimeValue>(RdmaNic::GetTypeId(), "CompletionLatency");
  if (!completion.IsStrictlyPositive())
  {
    throw SpecError(spec.file + ": ns3::RdmaNic::CompletionLatency is 0: a run in " + std::to_string(partitions) +
                    " partitions needs it positive (the workloads react to completions between windows); "
                    "run with --partitions 1");
  }
  const uint32_t crossing = net.Partition(partitions);
  FabricParallelSimulatorImpl* sim = FabricParallelSimulatorImpl::Get();
  if (RankLink* link = MpiLink())
  {
    if (partitions < link->Ranks())
      throw std::invalid_argument("partitions " + std::to_string(partitions) + ": at least the " +
                                  std::to_string(link->Ranks()) + " MPI ranks");
    // A rank built only the links that touch its own vertices (BuildScope): the lookahead is the
    // shortest over the ranks'.
    std::vector<uint64_t> lookahead{ static_cast<uint64_t>(sim->GetLookahead().GetTimeStep()) };
    link->Reduce(lookahead, true);
    sim->SetLookahead(TimeStep(lookahead[0]));
    sim->SetRanks(link);
  }
  sim->SetLookahead(std::min(sim->GetLookahead(), completion));
  return crossing;
}


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

  // ---- build ------------------------------------------------------------------------------------
  const std::set<std::string> userSet = SetDefaults(spec, transport);
  // The parallel simulator's event order, which does not depend on the number of partitions
  // (models/engine/fabric-parallel-simulator.h), on its FabricScheduler.
  GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricParallelSimulatorImpl"));
  Simulator::SetScheduler(ObjectFactory("ns3::FabricScheduler"));
  if (!FabricParallelSimulatorImpl::Get())
  {
    throw std::runtime_error("the simulator implementation was made before the run could choose it "
                             "(ns3::FabricParallelSimulatorImpl)");
  }
  const uint32_t partitions = ResolvedPartitions(spec, options.partitions);
  FabricNetwork net(fabric, BuildScope(*fabric, partitions));
  const uint64_t mtu = AttributeDefault<UintegerValue>(RdmaNic::GetTypeId(), "Mtu"); // the NICs' payload per packet
  const uint32_t crossing = Partition(spec, net, partitions);
  IdealModel ideal = MakeIdealModel(net.Routing(), static_cast<uint32_t>(mtu));
  ideal.scaleUp = spec.topology.scaleUp;
  // The transport's fabric policy, unless the scenario set the same attribute itself.
  const TransportType& type = TransportTypes().Get(transport.type);
  type.configureFabric(FabricPolicyContext{ net, userSet, ideal });
  NetworkService service(net, transport);
  std::unique_ptr<ScaleUpFabric> scaleUp;
  if (spec.topology.scaleUp.Enabled())
  {
    scaleUp = std::make_unique<ScaleUpFabric>(spec.topology.scaleUp, fabric->NumGpus());
    service.SetScaleUp(scaleUp.get());
  }
  FairReference fair(net, ideal);
  service.SetFairReference(&fair);
  PacketLatencyCollector packetLatency(net, partitions);
  service.AddObserver(&packetLatency);
  std::vector<std::unique_ptr<Workload>> workloads = MakeWorkloads(spec, ideal);
  // The run ends as its work does, whatever the sampling interval.
  service.SetOnProgress(
    [&]
    {
      if (AllDone(workloads))
        Simulator::Stop();
    });
  for (auto& w : workloads)
  {
    w->Start(service);
  }
  const FailureSchedule failures(spec, *fabric, net);
  const nlohmann::json linkLossLog = ApplyLinkLoss(spec, *fabric, net);
  EnablePcapCaptures(spec, *fabric, net, options.outDir); // outputs.pcap (sim/run/pcap-capture.h)
  TimeSeriesSampler sampler(spec, *fabric, net, options.outDir);

  // ---- run --------------------------------------------------------------------------------------
  const RunOutcome outcome = Run(spec, transport, options, service, workloads, sampler, wall);

  // ---- collect ----------------------------------------------------------------------------------
  if (outcome.partial)
    fair.Skip("the run stopped before its work was done");
  else
    fair.Compute();
  CompletionTables tables(options.outDir);
  for (auto& w : workloads)
    tables.Add(*w, &fair);
  const RunCounters counters = RunCounters::Read(service, *fabric, net);

  // ---- write ------------------------------------------------------------------------------------
  TransportResult result;
  result.partial = outcome.partial;
  result.series = std::move(sampler.Series());
  sampler.Finish();
  tables.Commit();
  nlohmann::json attrs = nlohmann::json::object();
  for (const auto& [k, v] : transport.attributes)
    attrs[k] = v;
  result.summary = {
    { "label", transport.label },
    { "transport", transport.type },
    { "attributes", attrs },
    { "qps_per_connection", transport.qpsPerConnection },
    { "partial", outcome.partial },
    { "stop_reason", outcome.stopReason },
    // A run in which nothing completed has no completion time (null rather than 0).
    { "completion_us",
      tables.LastDone().IsZero() ? nlohmann::json(nullptr) : nlohmann::json(ToUs(tables.LastDone())) },
    // When the last message would have completed with the links shared max-min fairly on the
    // paths this run used (sim/references/fair-reference.h): null when not computed.
    { "fair_us", fair.LastCompletionS() ? nlohmann::json(*fair.LastCompletionS() * 1e6) : nlohmann::json(nullptr) },
    { "fair_reference", fair.Summary() },
    { "stopped_at_us", ToUs(outcome.stoppedAt) },
    { "events", outcome.events },
    { "collectives", tables.Collectives() },
    { "messages", tables.Messages(service.FailedMessages()) },
    { "packet_latency_us", packetLatency.Summary() },
    { "counters", counters.Summary() },
    { "qp_errors",
      service.Errors().size() > 10 ? std::vector<std::string>(service.Errors().begin(), service.Errors().begin() + 10)
                                   : service.Errors() },
    { "gpu_idle_us", ToUs(tables.GpuIdle()) },
    // Which tier carried the messages: each leg of a relayed (PXN) message counts on its own.
    { "traffic",
      { { "fabric", { { "messages", service.FabricMessages() }, { "bytes", service.FabricBytes() } } },
        { "scale_up",
          { { "messages", scaleUp ? scaleUp->Transfers() : 0 }, { "bytes", scaleUp ? scaleUp->Bytes() : 0 } } } } },
    { "failures", failures.Log() },
    { "link_loss", linkLossLog },
    { "ideal_model",
      { { "gpu_bandwidth_gbps", ideal.gpuBandwidthBps / 1e9 },
        { "wire_overhead", ideal.wireOverhead },
        { "base_latency_us", ideal.baseLatencyS * 1e6 } } },
  };
  if (ideal.scaleUp.Enabled())
  {
    result.summary["ideal_model"]["scale_up"] = { { "gpus_per_domain", ideal.scaleUp.gpusPerDomain },
                                                  { "gpu_bandwidth_gbps", ideal.scaleUp.gpuGbps },
                                                  { "pair_bandwidth_gbps", ideal.scaleUp.pairGbps },
                                                  { "latency_us", ideal.ScaleUpLatencyS() * 1e6 } };
  }
  const double seconds = wall.Seconds();
  // What each rank holds: its QPs (a connection's QP lives on its GPU's rank), the links whose
  // ports it built (those touching its own nodes) and its peak, by rank (one entry in one
  // process).
  const uint32_t ranks = FabricParallelSimulatorImpl::Get()->GetRanks();
  std::vector<uint64_t> qpsByRank(ranks, 0);
  std::vector<uint64_t> linksByRank(ranks, 0);
  std::vector<uint64_t> peakByRank(ranks, 0);
  const uint32_t rank = FabricParallelSimulatorImpl::Get()->GetRank();
  qpsByRank[rank] = service.QpCount();
  linksByRank[rank] = net.LinksBuilt();
  peakByRank[rank] = PeakRssBytes();
  FabricParallelSimulatorImpl::SumOverRanks(qpsByRank);
  FabricParallelSimulatorImpl::SumOverRanks(linksByRank);
  FabricParallelSimulatorImpl::SumOverRanks(peakByRank);
  result.wall = { { "label", transport.label },
                  { "partitions", partitions },
                  { "ranks", ranks },
                  { "links_between_partitions", crossing },
                  { "seconds", seconds },
                  { "connections", service.Connections() },
                  { "connect_seconds", service.ConnectSeconds() },
                  { "events_per_second", seconds > 0 ? double(outcome.events) / seconds : 0 },
                  { "peak_rss_bytes", PeakRssBytes() },
                  { "qps_by_rank", qpsByRank },
                  { "links_built_by_rank", linksByRank },
                  { "peak_rss_bytes_by_rank", peakByRank } };
  workloads.clear();
  Simulator::Destroy();
  return result;
}

} // namespace mrcsim
