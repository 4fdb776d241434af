#include "sim/run/scenario-run.h"

#include "sim/parallel/mpi-ranks.h"

#include "sim/run/output-directory-lock.h"
#include "sim/run/output-file.h"
#include "sim/run/run-watchdog.h"

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <fstream>
#include <iomanip>
#include <memory>
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

namespace
{

/// Whether a stop signal reached this process or, across MPI ranks, any rank: every rank asks at
/// the same point (before each transport), so that all go on to the next transport or none does.
bool
AnyRankInterrupted()
{
  std::vector<uint64_t> interrupted{ StopRequested() ? 1u : 0u };
  if (MpiLink())
    MpiLink()->Reduce(interrupted, false);
  return interrupted[0] > 0;
}

/// The CSV files a transport's run may write in its directory.
const char* const kCsvFiles[] = { "collectives.csv", "messages.csv", "timeseries.csv", "ports.csv" };

/// Removes the temporaries a killed run left in `dir` (safe under the directory's lock: no other
/// writer is at work).
void
RemoveTemporaries(const std::filesystem::path& dir)
{
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (IsOutputTemporary(entry.path().filename().string()) && !entry.is_directory())
      std::filesystem::remove(entry.path());
}

/// Creates the results directory and each transport's, and removes what an earlier run left
/// there that this run writes (or might not write): the old summary.json first, so that a run
/// that fails or is killed never leaves it beside new CSVs.
void
PrepareOutputDirectory(const std::filesystem::path& out, const ScenarioSpec& spec)
{
  try
  {
    std::filesystem::create_directories(out);
    std::filesystem::remove(out / "summary.json");
    RemoveTemporaries(out);
    for (const TransportSpec& t : spec.transports)
    {
      const std::filesystem::path dir = out / t.label;
      std::filesystem::create_directories(dir);
      RemoveTemporaries(dir);
      for (const char* name : kCsvFiles)
        std::filesystem::remove(dir / name);
      if (std::filesystem::is_directory(dir / "pcap"))
        for (const auto& entry : std::filesystem::directory_iterator(dir / "pcap"))
          if (entry.path().extension() == ".pcap")
            std::filesystem::remove(entry.path());
    }
  }
  catch (const std::filesystem::filesystem_error& e)
  {
    throw std::runtime_error("cannot prepare the results directory " + out.string() + ": " + e.code().message() +
                             (e.path1().empty() ? "" : " (" + e.path1().string() + ")"));
  }
}

/// summary.json's "files" entries of the CSVs a transport's run wrote in `dir`.
void
AddCsvDigests(nlohmann::json& files, const std::filesystem::path& dir, const std::string& label)
{
  for (const char* name : kCsvFiles)
  {
    if (!std::filesystem::exists(dir / name))
      continue;
    const CsvDigest d = DigestCsvFile((dir / name).string());
    files[label + "/" + name] = { { "rows", d.rows }, { "bytes", d.bytes }, { "crc32", d.crc32 } };
  }
}

} // namespace

ScenarioResult
RunScenario(const ScenarioSpec& spec, const ScenarioRunOptions& options)
{
  // One wall-time limit for the whole scenario, all transports together.
  const auto deadline =
    options.deadline ? *options.deadline
                     : std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(spec.stop.wallTimeS));
  const std::filesystem::path out = options.outDir;
  // One writer per results directory, from before the first file is removed until summary.json,
  // written last, is in place.
  std::unique_ptr<OutputDirectoryLock> lock;
  if (!options.outDir.empty())
  {
    if (!options.lock || !options.lock->Covers(options.outDir))
      lock = std::make_unique<OutputDirectoryLock>(options.outDir);
    PrepareOutputDirectory(out, spec);
  }
  const std::string runId = NewRunId();
  nlohmann::json files = nlohmann::json::object();
  auto fabric = std::make_shared<const Fabric>(BuildFabric(spec.topology, spec.file));

  ScenarioResult result;
  nlohmann::json runs = nlohmann::json::array();
  nlohmann::json wall = nlohmann::json::array();
  if (MpiLink())
  {
    // The scenario agreed (RunCommand); a GraphML file it names may still differ between machines.
    AgreeWithRankZero({ { "fabric", fabric->Name() + ": " + std::to_string(fabric->NumGpus()) + " GPUs, " +
                                      std::to_string(fabric->NumSwitches()) + " switches, " +
                                      std::to_string(fabric->NumLinks()) + " links" } },
                      [](const std::string&, const std::string& mine, const std::string& theirs)
                      { return mine + " here, " + theirs + " on rank 0"; });
  }
  for (const TransportSpec& t : spec.transports)
  {
    if (AnyRankInterrupted())
      break;
    RunOptions transportOptions = options;
    transportOptions.deadline = deadline;
    if (!options.outDir.empty())
    {
      transportOptions.outDir = (out / t.label).string();
    }
    TransportResult r = RunTransport(spec, t, fabric, transportOptions);
    if (!options.outDir.empty())
      AddCsvDigests(files, transportOptions.outDir, t.label);
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
                     { "run_id", runId },
                     { "fabric",
                       { { "name", fabric->Name() },
                         { "gpus", fabric->NumGpus() },
                         { "switches", fabric->NumSwitches() },
                         { "links", fabric->NumLinks() } } },
                     { "partial", result.partial },
                     { "runs", runs },
                     { "files", files },
                     { "wall_clock", wall } };
  if (!options.outDir.empty())
  {
    WriteOutputFile((out / "summary.json").string(), result.summary.dump(2) + "\n");
  }
  return result;
}

} // namespace mrcsim
