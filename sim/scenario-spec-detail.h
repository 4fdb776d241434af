// Pieces of the scenario reader shared by its files (scenario-spec.cc, scenario-sweep.cc,
// link-selector.cc); not part of the scenario API.
#ifndef MRCSIM_SIM_SCENARIO_SPEC_DETAIL_H
#define MRCSIM_SIM_SCENARIO_SPEC_DETAIL_H

#include "sim/scenario-spec.h"
#include "topologies/json-reader.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace mrcsim::detail
{

/// The largest integer every JSON tool holds exactly (doubles), so values survive a round trip.
constexpr int64_t kMaxExact = int64_t(1) << 53;
/// Each sweep point is a whole run; a thousand is already hours of a small fabric.
constexpr uint64_t kMaxSweepPoints = 1000;

/// The forms a link selector takes, as errors list them.
constexpr const char* kSelectorForms = R"({"id"}, {"gpu", "plane"}, {"plane", "t0", "t1"} or {"plane", "t0", "up_port"})";

/// \brief What exists, for an error: "the fabric has 8 planes (0..7)".
std::string Existing(size_t count, const std::string& plural, const std::string& scope);
/// \brief A number as an error message shows it (shortest form).
std::string Fmt(double x);
/// \brief A JSON value as an error message shows it (cut after 60 characters).
std::string Shown(const nlohmann::json& v);

/// \brief Reads the "sweep" block of `document` (read by `r`): each parameter path and value is
/// checked alone against the scenario; `seed` is the scenario's.
/// \brief The sweep block. Each value is checked applied alone to the scenario; values that do not
/// touch the topology are checked against `fabric` (the scenario's, built once) rather than a
/// fabric rebuilt per value.
SweepSpec ParseSweep(JsonReader r, const nlohmann::json& document, uint64_t seed, const Fabric& fabric);
/// \brief ParseScenario on an already built fabric of the document's topology.
ScenarioSpec ParseScenarioOn(const nlohmann::json& document, const std::string& origin, const Fabric* fabric);

} // namespace mrcsim::detail

#endif
