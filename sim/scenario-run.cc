#include "sim/scenario-run.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace mrcsim
{

std::string
ScenarioHash(const nlohmann::json& document)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : document.dump())
  {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << h;
  return out.str();
}

ScenarioResult
RunScenario(const ScenarioSpec& spec, const ScenarioRunOptions& options)
{
  const std::filesystem::path out = options.outDir;
  if (!options.outDir.empty())
  {
    std::filesystem::create_directories(out);
  }
  auto fabric = std::make_shared<const Fabric>(BuildFabric(spec.topology, spec.file));

  ScenarioResult result;
  nlohmann::json runs = nlohmann::json::array();
  nlohmann::json wall = nlohmann::json::array();
  for (const TransportSpec& t : spec.transports)
  {
    if (g_interrupted)
      break;
    RunOptions transportOptions;
    transportOptions.progress = options.progress;
    if (!options.outDir.empty())
    {
      transportOptions.outDir = (out / t.label).string();
      std::filesystem::create_directories(transportOptions.outDir);
    }
    TransportResult r = RunTransport(spec, t, fabric, transportOptions);
    runs.push_back(r.summary);
    wall.push_back(r.wall);
    result.partial = result.partial || r.partial;
    result.transports.push_back(std::move(r));
  }
  result.partial = result.partial || runs.size() < spec.transports.size();
  result.summary = { { "scenario", spec.name },
                     { "scenario_file", spec.file },
                     { "scenario_hash", ScenarioHash(spec.document) },
                     { "seed", spec.seed },
                     { "version", MRCSIM_VERSION },
                     { "fabric",
                       { { "name", fabric->Name() },
                         { "gpus", fabric->NumGpus() },
                         { "switches", fabric->NumSwitches() },
                         { "links", fabric->NumLinks() } } },
                     { "partial", result.partial },
                     { "runs", runs },
                     { "wall_clock", wall } };
  if (!options.outDir.empty())
  {
    std::ofstream(out / "summary.json") << result.summary.dump(2) << "\n";
  }
  return result;
}

} // namespace mrcsim
