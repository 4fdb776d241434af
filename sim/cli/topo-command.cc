// `mrcsim topo`: build a fabric from a preset or spec file, print its figures, export it.
#include "sim/cli/cli-args.h"
#include "sim/run/output-file.h"
#include "sim/cli/commands.h"
#include "topologies/fabric-report.h"
#include "topologies/graphml-io.h"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <iostream>

namespace mrcsim
{

namespace
{

const char* kTopoUsage = R"(usage: mrcsim topo --list
       mrcsim topo (--preset NAME | --spec FILE.json) [--json] [--graphml OUT.graphml]
                   [--fail-link ID ...] [--check] [--no-groups]
  --list         name the presets
  --json         print the figures as JSON
  --graphml F    export the fabric to GraphML
  --fail-link ID mark link ID down before routing (repeatable); reachability is reported
  --check        validate routing (exhaustive walks on small fabrics, 100k sampled on large)
  --no-groups    skip ECMP groups (figures need only distances)
)";

} // namespace

int
TopoCommand(const std::vector<std::string>& argv)
{
  CliArgs args(argv,
               { "--list", "--json", "--check", "--no-groups", "--help" },
               { "--preset", "--spec", "--graphml", "--fail-link" });
  if (args.Flag("--help"))
  {
    std::cout << kTopoUsage;
    return 0;
  }
  if (!args.Positional().empty())
  {
    throw UsageError("unexpected argument " + args.Positional().front());
  }
  if (args.Flag("--list"))
  {
    for (const Preset& p : Presets())
    {
      std::cout << std::left << std::setw(22) << p.name << p.description << "\n";
    }
    return 0;
  }
  if (args.Has("--preset") == args.Has("--spec"))
  {
    throw UsageError("give exactly one of --preset NAME or --spec FILE.json");
  }
  std::string origin = args.Has("--spec") ? args.Value("--spec") : "preset " + args.Value("--preset");
  FabricSpec spec = args.Has("--spec") ? ReadFabricSpecFile(args.Value("--spec")) : PresetSpec(args.Value("--preset"));
  Fabric fabric = BuildFabric(spec, origin);
  FabricReportOptions options;
  options.groups = !args.Flag("--no-groups");
  options.check = args.Flag("--check");
  for (const std::string& id : args.Values("--fail-link"))
  {
    size_t used = 0;
    unsigned long link = 0;
    try
    {
      link = std::stoul(id, &used);
    }
    catch (const std::exception&)
    {
      used = 0;
    }
    if (used == 0 || used != id.size() || !std::isdigit(static_cast<unsigned char>(id[0])) || link >= fabric.NumLinks())
    {
      throw UsageError("--fail-link " + id + ": expected a link id in [0, " + std::to_string(fabric.NumLinks() - 1) +
                       "]");
    }
    // A link given twice fails once: it is counted (and reported) once.
    if (std::find(options.failedLinks.begin(), options.failedLinks.end(), link) == options.failedLinks.end())
      options.failedLinks.push_back(static_cast<uint32_t>(link));
  }
  FabricReport report = ReportFabric(fabric, spec, options);
  const nlohmann::json& j = report.json;
  const int status = report.checkOk ? 0 : 1;
  if (!report.checkOk)
  {
    // The figures still print (they show what is wrong); the error names the fabric at fault.
    std::cerr << "mrcsim: error: " << origin << ": routing check failed: " << j["check"]["error"].get<std::string>()
              << "\n";
  }
  if (args.Has("--graphml"))
  {
    OutputFile file(args.Value("--graphml"));
    WriteFabricGraphml(fabric, file.Stream());
    file.Commit();
  }

  if (args.Flag("--json"))
  {
    std::cout << j.dump(2) << "\n";
    return status;
  }
  PrintFigures(report.figures, std::cout);
  std::cout << "  " << std::left << std::setw(34) << "ECMP groups (distinct)"
            << j["routing"]["ecmp_groups"].get<size_t>() << "\n";
  if (spec.scaleUp.Enabled())
  {
    // The scale-up tier is not in the graph (sim/network/scale-up-fabric.h): its figures from the spec.
    const ScaleUpSpec& u = spec.scaleUp;
    std::cout << "  " << std::setw(34) << "scale-up domains" << fabric.NumGpus() / u.gpusPerDomain << " x "
              << u.gpusPerDomain << " GPUs, " << u.technology << ", " << u.gpuGbps << " Gb/s per GPU each way";
    if (u.pairGbps > 0)
      std::cout << " (" << u.pairGbps << " per pair)";
    std::cout << ", " << u.latencyNs << " ns\n";
  }
  uint64_t unreachable = 0;
  for (uint64_t u : j["routing"]["unreachable_pairs_per_plane"].get<std::vector<uint64_t>>())
    unreachable += u;
  if (!args.Values("--fail-link").empty())
  {
    std::cout << "  " << std::setw(34) << "failed links" << options.failedLinks.size() << "\n";
    std::cout << "  " << std::setw(34) << "unreachable (pair, plane)s" << unreachable << "\n";
    std::cout << "  " << std::setw(34) << "pairs unreachable in all planes"
              << j["routing"]["unreachable_pairs_all_planes"].get<uint64_t>() << "\n";
  }
  if (args.Flag("--check"))
  {
    std::cout << "  " << std::setw(34) << "routing check"
              << (status == 0 ? "ok" : "FAILED: " + j["check"]["error"].get<std::string>()) << " ("
              << j["check"]["paths_walked"].get<uint64_t>() << " paths walked)\n";
  }
  if (args.Has("--graphml"))
  {
    std::cout << "wrote " << args.Value("--graphml") << "\n";
  }
  return status;
}

} // namespace mrcsim
