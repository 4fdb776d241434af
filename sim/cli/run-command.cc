// `mrcsim run SCENARIO.json` and `mrcsim validate SCENARIO.json`: a scenario file in, a
// summary (summary.json), tidy CSVs per transport and a comparison table out.
#include "sim/parallel/mpi-ranks.h"
#include "sim/cli/cli-args.h"
#include "sim/cli/commands.h"
#include "sim/run/run-watchdog.h"
#include "sim/run/scenario-run.h"

#include <csignal>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace mrcsim
{

namespace
{

const char* kRunUsage = R"(usage: mrcsim run SCENARIO.json [--set path=value ...] [--out DIR] [--partitions N] [--quiet]
       mrcsim validate SCENARIO.json [--set path=value ...]
  run:      runs the scenario's workloads on each of its transports and writes
            DIR/summary.json (default DIR: results/<name>) and DIR/<transport>/{collectives,
            messages,timeseries}.csv; prints a comparison table. Ctrl-C, SIGTERM and
            SIGHUP stop cleanly and write partial results, marked partial (exit code 3).
            One run at a time per DIR: a run holds DIR/.mrcsim.lock while it writes, and
            a second run into DIR fails at once (exit code 2).
  --partitions N: runs each transport's fabric in N partitions, one thread each (default 2, or
            1 for a scenario with outputs.pcap; at most 64); the results are the same for any
            N (summary.json's wall_clock records N). Under mpirun -np R (or srun): the
            partitions run on R processes, one per partition unless N says more; rank 0
            writes the results, which are those of one process with N partitions.
  validate: reads and checks the scenario (keys, types, ranges, references) and builds nothing.
  A scenario with a "sweep" block: run runs the base scenario only; scripts/sweep.py runs the
  sweep's points (in parallel) and aggregates them.
  --set:    overrides a value by its path (keys and list indices joined by '.'), e.g.
            --set workloads.0.bytes=1048576 --set seed=7
            --set transport.0.attributes.ns3::MrcQueuePair::EvCount=64
)";

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP (what batch schedulers such as Slurm send before they
/// kill a job) stop the run cleanly: partial results are written, marked with the signal.
void
OnStopSignal(int signal)
{
  RequestStop(signal);
}

std::string
Fixed(double v, int digits)
{
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << v;
  return out.str();
}

/// A summary figure that may be null (not defined, e.g. nothing completed): "n/a" then.
std::string
Fixed(const nlohmann::json& v, int digits)
{
  return v.is_null() ? "n/a" : Fixed(v.get<double>(), digits);
}

/// A percentile of a histogram's summary; "n/a" when it counted nothing (the summary says 0).
std::string
Percentile(const nlohmann::json& stats, const char* key, int digits)
{
  return stats["count"].get<uint64_t>() == 0 ? "n/a" : Fixed(stats[key].get<double>(), digits);
}

/// The comparison table: one row per transport.
void
PrintTable(const ScenarioSpec& spec, const nlohmann::json& runs)
{
  std::cout << "scenario " << spec.name << " (seed " << spec.seed << ")\n";
  std::cout << std::left << std::setw(12) << "transport" << std::right << std::setw(16) << "completion us"
            << std::setw(15) << "coll. mean us" << std::setw(12) << "busbw Gb/s" << std::setw(13) << "msg p50 us"
            << std::setw(13) << "msg p99 us" << std::setw(14) << "msg p99.9 us" << std::setw(13) << "pkt p99 us"
            << std::setw(11) << "retx" << std::setw(11) << "timeouts" << std::setw(10) << "trims" << std::setw(10)
            << "drops"
            << "  status\n";
  for (const auto& r : runs)
  {
    // No collective, or one none of whose instances completed: no time or bandwidth to show.
    nlohmann::json collMean = nullptr;
    nlohmann::json busbw = nullptr;
    if (!r["collectives"].empty() && r["collectives"][0]["completed"].get<uint64_t>() > 0)
    {
      collMean = r["collectives"][0]["time_us"]["mean"];
      busbw = r["collectives"][0]["busbw_gbps"];
    }
    uint64_t drops = 0;
    for (const auto& [cause, n] : r["counters"]["drops"].items())
      drops += n.get<uint64_t>();
    const auto& m = r["messages"]["time_us"];
    std::cout << std::left << std::setw(12) << r["label"].get<std::string>() << std::right << std::setw(16)
              << Fixed(r["completion_us"], 1) << std::setw(15) << Fixed(collMean, 1) << std::setw(12)
              << Fixed(busbw, 1) << std::setw(13) << Percentile(m, "p50", 1) << std::setw(13)
              << Percentile(m, "p99", 1) << std::setw(14) << Percentile(m, "p99_9", 1) << std::setw(13)
              << Percentile(r["packet_latency_us"], "p99", 1) << std::setw(11)
              << r["counters"]["retransmissions"].get<uint64_t>() << std::setw(11)
              << r["counters"]["timeouts"].get<uint64_t>() << std::setw(10) << r["counters"]["trims"].get<uint64_t>()
              << std::setw(10) << drops << "  "
              << (r["partial"].get<bool>() ? "PARTIAL: " + r["stop_reason"].get<std::string>() : "complete") << "\n";
  }
}

/// A usage error (message and usage on stderr, exit status 2) unless exactly one scenario
/// file is given.
void
RequireOneScenario(const CliArgs& args)
{
  const auto n = args.Positional().size();
  if (n != 1)
  {
    throw UsageError(n == 0 ? "expected a scenario file (SCENARIO.json)"
                            : "expected one scenario file, got " + std::to_string(n) + ": " +
                                args.Positional()[0] + " " + args.Positional()[1] + (n > 2 ? " ..." : ""));
  }
}

/// "'a.b' (1 here, 2 on rank 0)": where this rank's scenario document differs from rank 0's (the
/// first of the keys, by JSON patch order, and how many others).
std::string
ExplainScenarioDifference(const std::string& mine, const std::string& theirs)
{
  const nlohmann::json a = nlohmann::json::parse(theirs);
  const nlohmann::json b = nlohmann::json::parse(mine);
  const nlohmann::json patch = nlohmann::json::diff(a, b);
  if (patch.empty())
    return "the same document, written otherwise";
  const std::string pointer = patch[0]["path"].get<std::string>();
  std::string key;
  for (std::size_t i = 1; i < pointer.size(); ++i)
  {
    const char c = pointer[i];
    if (c == '/')
      key += '.';
    else if (c == '~' && i + 1 < pointer.size())
      key += pointer[++i] == '1' ? '/' : '~';
    else
      key += c;
  }
  const nlohmann::json::json_pointer at(pointer);
  const auto value = [&](const nlohmann::json& doc) { return doc.contains(at) ? doc.at(at).dump() : "absent"; };
  return "key '" + key + "' (" + value(b) + " here, " + value(a) + " on rank 0)" +
         (patch.size() > 1 ? " and " + std::to_string(patch.size() - 1) + " other difference(s)" : "");
}

/// \brief Under MPI: every rank must run what rank 0 runs (the scenario as parsed, its --set
/// overrides, the options that shape the run); else every rank stops here, before building
/// anything, with the same error (sim/parallel/mpi-ranks.h).
void
AgreeOnTheRun(const ScenarioSpec& spec, const CliArgs& args, uint32_t partitions)
{
  if (!MpiLink())
    return;
  std::string overrides;
  for (const std::string& o : args.Values("--set"))
    overrides += (overrides.empty() ? "" : " ") + std::string("--set '") + o + "'";
  AgreeWithRankZero({ { "scenario", spec.document.dump() },
                      { "--set overrides", overrides },
                      { "--partitions", partitions ? std::to_string(partitions) : "default" },
                      { "mrcsim version", MRCSIM_VERSION } },
                    [](const std::string& name, const std::string& mine, const std::string& theirs)
                    {
                      if (name == "scenario")
                        return ExplainScenarioDifference(mine, theirs);
                      const auto shown = [](const std::string& s) { return s.empty() ? std::string("none") : s; };
                      return shown(mine) + " here, " + shown(theirs) + " on rank 0";
                    });
}

/// "12 points: 3 x 2 values x 2 seeds"
std::string
SweepSize(const SweepSpec& sweep)
{
  std::string sizes;
  for (const SweepParameter& p : sweep.parameters)
  {
    sizes += (sizes.empty() ? "" : " x ") + std::to_string(p.values.size());
  }
  return std::to_string(sweep.Points()) + " point(s): " + (sizes.empty() ? "" : sizes + " values x ") +
         std::to_string(sweep.seeds.size()) + " seed(s)";
}

} // namespace

int
ValidateCommand(const std::vector<std::string>& argv)
{
  CliArgs args(argv, { "--help" }, { "--set" });
  if (args.Flag("--help"))
  {
    std::cout << kRunUsage;
    return 0;
  }
  RequireOneScenario(args);
  ScenarioSpec spec = ReadScenarioFile(args.Positional()[0], args.Values("--set"));
  std::cout << spec.file << ": valid (" << spec.transports.size() << " transport(s), " << spec.workloads.size()
            << " workload(s), " << spec.failures.size() << " failure(s)"
            << (spec.sweep ? "; sweep of " + SweepSize(*spec.sweep) : std::string()) << ")\n";
  return 0;
}

int
RunCommand(const std::vector<std::string>& argv)
{
  CliArgs args(argv, { "--help", "--quiet" }, { "--set", "--out", "--partitions" });
  if (args.Flag("--help"))
  {
    std::cout << kRunUsage;
    return 0;
  }
  RequireOneScenario(args);
  // 0: the default (ResolvedPartitions).
  const auto partitions = static_cast<uint32_t>(
    args.Values("--partitions").empty() ? 0 : args.Unsigned("--partitions", "", 1, kMaxPartitions));
  ScenarioSpec spec = ReadScenarioFile(args.Positional()[0], args.Values("--set"));
  AgreeOnTheRun(spec, args, partitions);
  if (spec.sweep)
  {
    std::cerr << "note: " << spec.file << " has a sweep block (" << SweepSize(*spec.sweep)
              << "); this runs the base scenario only; run the sweep with scripts/sweep.py " << spec.file << " -j N\n";
  }
  ScenarioRunOptions options;
  options.outDir = args.Value("--out", "results/" + spec.name);
  if (options.outDir.empty())
    throw UsageError("--out: an empty path; give the results directory (default results/<scenario name>)");
  options.progress = !args.Flag("--quiet");
  options.partitions = partitions;
  // Across MPI ranks (mpirun -np N), rank 0 reports and writes the results; the others run quietly.
  const bool reports = !MpiLink() || MpiLink()->Rank() == 0;
  if (!reports)
  {
    options.outDir.clear();
    options.progress = false;
  }
  for (int signal : { SIGINT, SIGTERM, SIGHUP })
  {
    struct sigaction action = {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, nullptr);
  }
  ScenarioResult result = RunScenario(spec, options);
  if (reports)
  {
    PrintTable(spec, result.summary["runs"]);
    std::cout << "results in " << options.outDir << "/ (summary.json, <transport>/*.csv)\n";
  }
  // Rank 0's exit code is the run's (another rank's non-zero code would make mpirun stop rank 0,
  // perhaps while it writes).
  return result.partial && reports ? 3 : 0;
}

} // namespace mrcsim
