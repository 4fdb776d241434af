#include "sim/cli/perm-benchmark.h"

#include "sim/cli/commands.h"

#include "sim/run/process-stats.h"

#include "models/engine/fabric-parallel-simulator.h"
#include "models/mrc/mrc-connect.h"
#include "models/engine/splitmix.h"
#include "topologies/fabric-spec.h"

#include "ns3/core-module.h"

#include <atomic>
#include <limits>
#include <iomanip>
#include <iostream>
#include <numeric>

namespace mrcsim
{

namespace
{

/// A random derangement (nobody sends to itself), Fisher-Yates on splitmix64 draws.
std::vector<uint32_t>
Derangement(uint32_t n, uint64_t seed)
{
  std::vector<uint32_t> d(n);
  std::iota(d.begin(), d.end(), 0);
  uint64_t state = seed;
  // Sattolo's algorithm: a single cycle, hence no fixed point.
  for (uint32_t i = n - 1; i > 0; --i)
  {
    uint32_t j = static_cast<uint32_t>(ns3::SplitMix64(state) % i);
    std::swap(d[i], d[j]);
  }
  return d;
}

/// Updated by the partitions' threads at once in a parallel run: a count and a maximum, which do
/// not depend on the order of updates.
struct Completions
{
  std::atomic<uint64_t> count{ 0 };
  std::atomic<int64_t> last{ 0 }; ///< time steps
};

void
CountDone(Completions* c, uint32_t, uint64_t, uint64_t, ns3::Time)
{
  c->count.fetch_add(1, std::memory_order_relaxed);
  const int64_t now = ns3::Simulator::Now().GetTimeStep();
  int64_t last = c->last.load(std::memory_order_relaxed);
  while (last < now && !c->last.compare_exchange_weak(last, now, std::memory_order_relaxed))
  {
  }
}

} // namespace

int
BenchPermutation(const CliArgs& args)
{
  using namespace ns3;
  const std::string preset = args.Value("--preset", "perm-8192");
  // One RDMA write per flow: at most 2^31 bytes, InfiniBand's largest message.
  const uint64_t bytes = args.Unsigned("--bytes", "2097152", 1, uint64_t(1) << 31);
  const uint64_t seed = args.Unsigned("--seed", "1", 1, std::numeric_limits<uint32_t>::max());
  // The parallel simulator's event order (independent of the partitioning) needs FabricScheduler.
  const std::string scheduler = args.Value("--scheduler", "ns3::FabricScheduler");
  if (scheduler != "ns3::FabricScheduler")
  {
    SetSchedulerOption(args); // names a scheduler that does not exist as such
    throw UsageError("--scheduler " + scheduler +
                     ": bench perm-8192 runs on FabricParallelSimulatorImpl, whose event order needs "
                     "ns3::FabricScheduler");
  }
  // Two by default: the benchmark's targets are for a machine of two cores. A fixed number, not
  // the machine's, so that the same command gives the same results everywhere.
  const uint64_t partitionsWanted = args.Unsigned("--partitions", "2", 1);
  if (partitionsWanted > 64)
  {
    throw UsageError("--partitions " + std::to_string(partitionsWanted) + ": at most 64 (one thread each)");
  }
  const auto partitions = static_cast<uint32_t>(partitionsWanted);
  // With one partition it runs as ns-3's DefaultSimulatorImpl does (same events, same order).
  GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricParallelSimulatorImpl"));
  SetSchedulerOption(args);
  RngSeedManager::SetSeed(static_cast<uint32_t>(seed));
  Simulator::Run(); // fixes the time resolution before any model is built (see bench forwarding)

  Stopwatch clock;
  auto fabric = std::make_shared<const Fabric>(BuildFabric(PresetSpec(preset), "preset " + preset));
  FabricNetwork net(fabric);
  const uint32_t crossing = net.Partition(partitions);
  FabricParallelSimulatorImpl* sim = FabricParallelSimulatorImpl::Get();
  NS_ABORT_MSG_IF(!sim, "bench perm-8192: the simulator implementation is not ns3::FabricParallelSimulatorImpl");
  // MRC's fabric: trimming everywhere, ECN off on the last hop, no PFC.
  net.GetLastHopPortConfig()->SetAttribute("EcnEnabled", BooleanValue(false));
  for (auto cfg : { net.GetFabricPortConfig(), net.GetLastHopPortConfig() })
  {
    cfg->SetAttribute("TrimEnabled", BooleanValue(true));
  }
  const uint32_t n = static_cast<uint32_t>(fabric->NumGpus());
  std::vector<uint32_t> dst = Derangement(n, seed);
  std::vector<Ptr<MrcQueuePair>> senders;
  senders.reserve(n);
  Completions done;
  const auto countDone = MakeBoundCallback(&CountDone, &done); // one callback, shared by all receivers
  for (uint32_t g = 0; g < n; ++g)
  {
    auto qp = ConnectMrc(net, g, dst[g]);
    qp.second->TraceConnectWithoutContext("RecvComplete", countDone);
    qp.first->PostWrite(bytes);
    senders.push_back(qp.first);
  }
  const double tBuild = clock.Seconds();

  const uint64_t events0 = Simulator::GetEventCount();
  clock.Restart();
  Simulator::Run();
  const double tRun = clock.Seconds();
  const uint64_t events = Simulator::GetEventCount() - events0;
  const Time simulated = TimeStep(done.last.load()); // the last flow's completion
  const uint64_t windows = sim->GetWindows();
  std::vector<double> waits;
  for (uint32_t i = 0; i < partitions && partitions > 1; ++i)
  {
    waits.push_back(sim->GetWaitSeconds(i));
  }

  uint64_t hops = 0;
  uint64_t trims = 0;
  for (uint32_t id = 0; id < fabric->NumLinks(); ++id)
  {
    auto [a, b] = fabric->Ends(id);
    for (auto port : { net.GetPort(a, fabric->Link(id).portA), net.GetPort(b, fabric->Link(id).portB) })
    {
      hops += port->TxPackets();
      trims += port->TrimmedPackets();
    }
  }
  uint64_t retransmissions = 0;
  uint64_t timeouts = 0;
  uint64_t packets = 0;
  for (const auto& qp : senders)
  {
    retransmissions += qp->Retransmissions();
    timeouts += qp->Timeouts();
    packets += qp->PacketsSent();
  }
  const uint64_t rss = PeakRssBytes();
  nlohmann::json j{ { "benchmark", "perm" },
                    { "fabric", fabric->Name() },
                    { "gpus", n },
                    { "bytes_per_flow", bytes },
                    { "scheduler", scheduler },
                    { "partitions", partitions },
                    { "links_between_partitions", crossing },
                    { "windows", windows },
                    { "wait_seconds", waits },
                    { "flows_completed", done.count.load() },
                    { "data_packets_sent", packets },
                    { "retransmissions", retransmissions },
                    { "timeouts", timeouts },
                    { "trims", trims },
                    { "packet_hops", hops },
                    { "events", events },
                    { "simulated_seconds", simulated.GetSeconds() },
                    { "seconds", { { "build", tBuild }, { "run", tRun }, { "total", tBuild + tRun } } },
                    { "packet_hops_per_second", tRun > 0 ? double(hops) / tRun : 0.0 },
                    { "events_per_second", tRun > 0 ? double(events) / tRun : 0.0 },
                    { "peak_rss_bytes", rss } };
  Simulator::Destroy();
  if (args.Flag("--json"))
  {
    std::cout << j.dump(2) << "\n";
  }
  else
  {
    std::cout << std::fixed << std::setprecision(2) << "permutation benchmark: " << fabric->Name() << " (" << n
              << " GPUs), MRC, " << bytes << " B per flow, " << scheduler << "\n"
              << "  partitions       " << partitions;
    if (partitions > 1)
    {
      std::cout << " (one thread each; " << crossing << " links between them, " << windows
                << " windows; waited at window ends:";
      for (double w : waits)
      {
        std::cout << " " << w << " s";
      }
      std::cout << ")";
    }
    std::cout << "\n  completed        " << done.count << " of " << n << " flows in " << simulated.GetMicroSeconds()
              << " us simulated (" << trims << " trims, " << retransmissions << " retransmissions, " << timeouts
              << " timeouts)\n"
              << "  wall time        build " << tBuild << " s, run " << tRun << " s, total " << tBuild + tRun << " s\n"
              << std::setprecision(0) << "  packet-hops/s    " << j["packet_hops_per_second"].get<double>() << " ("
              << hops << " packet-hops)\n"
              << "  events/s         " << j["events_per_second"].get<double>() << " (" << events << " events)\n"
              << std::setprecision(1) << "  peak RSS         " << rss / 1048576.0 << " MiB\n";
  }
  return done.count.load() == n ? 0 : 1;
}

} // namespace mrcsim
