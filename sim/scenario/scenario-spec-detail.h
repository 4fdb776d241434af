// Pieces of the scenario reader shared by its files (sim/scenario/: scenario-spec.cc,
// scenario-sweep.cc, link-selector.cc) and the type registries' readers
// (sim/workloads/workload-types.cc, sim/failures/failure-types.cc,
// sim/network/transport-types.cc); not part of the scenario API.
#ifndef MRCSIM_SIM_SCENARIO_SCENARIO_SPEC_DETAIL_H
#define MRCSIM_SIM_SCENARIO_SCENARIO_SPEC_DETAIL_H

#include "sim/scenario/scenario-spec.h"
#include "sim/scenario/value-ranges.h"
#include "topologies/json-reader.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace mrcsim::detail
{

/// The largest integer every JSON tool holds exactly (doubles), so values survive a round trip.
constexpr int64_t kMaxExact = int64_t(1) << 53;
/// Each sweep point is a whole run; a thousand is already hours of a small fabric.
constexpr uint64_t kMaxSweepPoints = 1000;
/// The largest absolute time of a scenario (sim/scenario/value-ranges.h).
constexpr double kMaxTimeUs = range::kMaxTimeUs;
/// The largest index (GPU, switch, link, count of them) a scenario may write.
constexpr int64_t kMaxIndex = std::numeric_limits<uint32_t>::max();

/// The forms a link selector takes, as errors list them.
constexpr const char* kSelectorForms = R"({"id"}, {"gpu", "plane"}, {"plane", "t0", "t1"} or {"plane", "t0", "up_port"})";

/// \brief What exists, for an error: "the fabric has 8 planes (0..7)".
std::string Existing(size_t count, const std::string& plural, const std::string& scope);
/// \brief A number as an error message shows it (shortest form).
std::string Fmt(double x);
/// \brief A JSON value as an error message shows it (cut after 60 characters).
std::string Shown(const nlohmann::json& v);

/// \brief A number in (0, hi]: JsonReader's ranges are closed; durations, intervals and rates
/// must also exclude zero.
double PositiveNumber(JsonReader& r, const std::string& key, double hi);
/// \brief PositiveNumber, or `fallback` if the key is absent.
double PositiveNumber(JsonReader& r, const std::string& key, double hi, double fallback);
/// \brief A positive time in microseconds, from the simulator's resolution (1 ps: a positive time
/// below it would be 0) to kMaxTimeUs.
double PositiveTimeUs(JsonReader& r, const std::string& key);
/// \brief PositiveTimeUs, or `fallback` if the key is absent.
double PositiveTimeUs(JsonReader& r, const std::string& key, double fallback);
/// \brief An index into the `count` things `scope` has ("the fabric has 64 GPUs (0..63)" when it
/// is not); `key` may be a path below the reader ("gpus/3").
uint32_t IndexValue(const JsonReader& r,
                    const std::string& key,
                    const nlohmann::json& v,
                    size_t count,
                    const std::string& noun,
                    const std::string& plural,
                    const std::string& scope = "the fabric");
/// \brief The GPU index at `key`, checked against the fabric.
uint32_t GpuIndex(JsonReader& r, const std::string& key, const Fabric& fabric);
/// \brief The plane index at `key`, checked against the fabric.
int PlaneIndex(JsonReader& r, const std::string& key, const Fabric& fabric);
/// \brief A link selector at JSON path `path`, checked to name a link of the fabric.
LinkSelector ParseLinkSelector(const nlohmann::json& v,
                               const std::string& origin,
                               const std::string& path,
                               const Fabric& fabric);

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
