// A whole scenario run: each of the scenario's transports in turn on one built fabric, gathered
// into the summary (summary.json's content). The CLI's `mrcsim run` and the Python module both run
// scenarios through here; printing and argument handling stay with them.
#ifndef MRCSIM_SIM_RUN_SCENARIO_RUN_H
#define MRCSIM_SIM_RUN_SCENARIO_RUN_H

#include "sim/run/transport-run.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mrcsim
{

class OutputDirectoryLock;

/// \brief Options of a scenario run that are not part of the scenario: each transport's run's
/// (RunOptions; outDir is DIR, with DIR/summary.json and DIR/<transport label>/*.csv), and the
/// lock of DIR. The run holds DIR's lock (sim/run/output-directory-lock.h) while it writes
/// there: a second run into DIR fails with OutputDirectoryBusy.
struct ScenarioRunOptions : RunOptions
{
  /// The caller's lock of outDir (e.g. the Python module's, held while it also reads the files
  /// back); null, or a lock of another directory: the run takes outDir's lock itself.
  const OutputDirectoryLock* lock = nullptr;
};

/// \brief Result of a scenario run.
struct ScenarioResult
{
  /// {scenario, scenario_file, scenario_hash, seed, version, run_id, fabric, partial, runs, files,
  /// wall_clock}: everything but run_id and wall_clock is deterministic (same scenario and seed,
  /// same JSON). files: {"<label>/<name>.csv": {rows, bytes, crc32}} of the CSVs written (none
  /// without outDir).
  nlohmann::json summary;
  std::vector<TransportResult> transports; ///< in the scenario's order; fewer if interrupted
  bool partial = false;                    ///< a run stopped early, or a transport never ran
};

/// \brief Runs every transport of `spec`, stopping before the next one once g_interrupted is set.
/// Throws SpecError on what validation could not see (e.g. an unknown ns-3 attribute).
ScenarioResult RunScenario(const ScenarioSpec& spec, const ScenarioRunOptions& options);

/// \brief The hash of a scenario document written into summaries (FNV-1a 64, hex).
std::string ScenarioHash(const nlohmann::json& document);

} // namespace mrcsim

#endif
