// `mrcsim bench ...`: benchmarks that print figures (never pass/fail on time).
#include "sim/cli/cli-args.h"
#include "sim/cli/commands.h"
#include "sim/cli/forwarding-benchmark.h"
#include "sim/cli/perm-benchmark.h"
#include "sim/run/process-stats.h"
#include "topologies/fabric-figures.h"
#include "topologies/routing-check.h"

#include "ns3/object-factory.h"
#include "ns3/scheduler.h"
#include "ns3/simulator.h"

#include <iomanip>
#include <thread>
#include <iostream>

namespace mrcsim
{

namespace
{

const char* kBenchUsage = R"(usage: mrcsim bench topology [--preset NAME | --spec FILE.json] [--samples N] [--json]
       mrcsim bench forwarding [--hosts N | --preset NAME] [--packets K] [--payload B]
                               [--scheduler ns3::FabricScheduler] [--json]
       mrcsim bench perm-8192 [--preset NAME] [--bytes B] [--seed S] [--partitions N] [--json]
  topology:   generates, routes (ECMP groups, distances) and validates a fabric (default
              multiplane-131k); prints the time of each phase and the peak resident memory.
  forwarding: instantiates the fabric in ns-3 (default 512 hosts, 8 x 100G planes) and forwards
              K packets per host (default 128) of a random permutation, sprayed per packet over
              planes and T1s; prints packet-hops/s, events/s, events per packet-hop, bytes per link,
              build time and peak RSS.
  perm-8192:  MRC on a random permutation (default preset perm-8192: 8,192 GPUs on one 800G
              plane, 2 MB per flow), run to completion; prints wall time, packet-hops/s,
              events/s and peak RSS. Options --preset, --bytes, --seed, --json;
              --partitions N (default 2) runs the fabric in N partitions, one thread each
              (FabricParallelSimulatorImpl, on FabricScheduler): results are the same for any N
              on any machine.
)";

int
BenchTopology(const CliArgs& args)
{
  std::string origin =
    args.Has("--spec") ? args.Value("--spec") : "preset " + args.Value("--preset", "multiplane-131k");
  FabricSpec spec = args.Has("--spec") ? ReadFabricSpecFile(args.Value("--spec"))
                                       : PresetSpec(args.Value("--preset", "multiplane-131k"));
  const uint64_t samples = args.Unsigned("--samples", "100000", 0, uint64_t(1) << 40);
  Stopwatch total;
  Stopwatch phase;
  Fabric fabric = BuildFabric(spec, origin);
  double tBuild = phase.Seconds();
  phase.Restart();
  FabricRouting routing(fabric, true);
  double tRoute = phase.Seconds();
  phase.Restart();
  RoutingCheckResult check = CheckRouting(routing, samples, 1);
  uint64_t unreachable = check.reachability.unreachableInAllPlanes;
  for (uint64_t u : check.reachability.unreachablePerPlane)
    unreachable += u;
  double tValidate = phase.Seconds();
  double tTotal = total.Seconds();
  uint64_t rss = PeakRssBytes();

  nlohmann::json j{ { "benchmark", "topology" },
                    { "fabric", fabric.Name() },
                    { "gpus", fabric.NumGpus() },
                    { "switches", fabric.NumSwitches() },
                    { "links", fabric.NumLinks() },
                    { "ecmp_groups", routing.NumGroups() },
                    { "routing_table_bytes", routing.MemoryBytes() },
                    { "paths_walked", check.pathsWalked },
                    { "unreachable_pairs", unreachable },
                    { "valid", check.Ok() && unreachable == 0 },
                    { "error", check.firstError },
                    { "seconds",
                      { { "generate", tBuild }, { "route", tRoute }, { "validate", tValidate }, { "total", tTotal } } },
                    { "peak_rss_bytes", rss },
                    { "threads", std::thread::hardware_concurrency() } };
  if (args.Flag("--json"))
  {
    std::cout << j.dump(2) << "\n";
  }
  else
  {
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "topology benchmark: " << fabric.Name() << " (" << fabric.NumGpus() << " GPUs, "
              << fabric.NumSwitches() << " switches, " << fabric.NumLinks() << " links)\n"
              << "  generate  " << tBuild << " s\n"
              << "  route     " << tRoute << " s (" << routing.NumGroups() << " ECMP groups, "
              << routing.MemoryBytes() / 1048576.0 << " MiB of tables)\n"
              << "  validate  " << tValidate << " s (" << check.pathsWalked << " paths walked, " << unreachable
              << " unreachable pairs)\n"
              << "  total     " << tTotal << " s, peak RSS " << rss / 1048576.0 << " MiB\n"
              << "  result    " << (j["valid"].get<bool>() ? "valid" : "INVALID: " + check.firstError) << "\n";
  }
  return j["valid"].get<bool>() ? 0 : 1;
}

} // namespace

void
SetSchedulerOption(const CliArgs& args)
{
  const std::string name = args.Value("--scheduler", "ns3::FabricScheduler");
  ns3::TypeId tid;
  if (!ns3::TypeId::LookupByNameFailSafe(name, &tid) || !tid.IsChildOf(ns3::Scheduler::GetTypeId()) ||
      !tid.HasConstructor())
  {
    throw UsageError("--scheduler " + name +
                     ": not an ns-3 event scheduler (e.g. ns3::FabricScheduler, ns3::MapScheduler, "
                     "ns3::HeapScheduler, ns3::ListScheduler, ns3::CalendarScheduler)");
  }
  ns3::ObjectFactory factory;
  factory.SetTypeId(tid);
  ns3::Simulator::SetScheduler(factory);
}

int
BenchCommand(const std::vector<std::string>& argv)
{
  CliArgs args(argv,
               { "--json", "--help" },
               { "--preset",
                 "--spec",
                 "--samples",
                 "--hosts",
                 "--packets",
                 "--payload",
                 "--scheduler",
                 "--bytes",
                 "--seed",
                 "--partitions" });
  if (args.Flag("--help"))
  {
    std::cout << kBenchUsage;
    return 0;
  }
  if (args.Positional().size() != 1)
  {
    throw UsageError(args.Positional().empty() ? "expected a benchmark: topology, forwarding or perm-8192"
                                               : "expected one benchmark, got " +
                                                   std::to_string(args.Positional().size()));
  }
  const std::string& which = args.Positional().front();
  if (which == "topology")
  {
    return BenchTopology(args);
  }
  if (which == "forwarding")
  {
    return BenchForwarding(args);
  }
  if (which == "perm-8192" || which == "perm")
  {
    return BenchPermutation(args);
  }
  throw UsageError("unknown benchmark \"" + which + "\" (available: topology, forwarding, perm-8192)");
}

} // namespace mrcsim
