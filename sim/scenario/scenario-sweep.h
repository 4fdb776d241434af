// A scenario's sweep block expanded into its points: the one expansion, used by the Python module
// (mrcsim.expand_sweep) and so by scripts/sweep.py. The block itself is read and checked by the
// scenario reader (ParseSweep, sim/scenario/scenario-sweep.cc).
#ifndef MRCSIM_SIM_SCENARIO_SCENARIO_SWEEP_H
#define MRCSIM_SIM_SCENARIO_SCENARIO_SWEEP_H

#include "sim/scenario/scenario-spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mrcsim
{

/// \brief One point of a sweep: one value of each parameter and one seed.
struct SweepPoint
{
  uint64_t index = 0; ///< 0, 1, ...: the first parameter varies slowest, the seed fastest
  std::vector<std::pair<std::string, nlohmann::json>> values; ///< override path -> value, in order
  uint64_t seed = 0;
  /// The scenario this point runs: the document with `sweep=null`, `seed=S` and each
  /// `PATH=VALUE` applied as --set applies them (what `mrcsim run FILE --set ...` runs).
  nlohmann::json document;
};

/// \brief The paths of the "sweep"."parameters" object of a scenario's JSON text in the order
/// the text lists them (a parsed nlohmann::json keeps keys sorted); empty when there are none or
/// the text is not JSON (the scenario reader reports that).
std::vector<std::string> SweepParameterOrder(const std::string& text);

/// \brief The points of `spec`'s sweep: the cartesian product of its parameters' values, the
/// parameters in `order` (paths not in it follow, by path), times its seeds. Throws SpecError
/// naming the file when the scenario has no sweep block.
std::vector<SweepPoint> ExpandSweep(const ScenarioSpec& spec, const std::vector<std::string>& order = {});

} // namespace mrcsim

#endif
