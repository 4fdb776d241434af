// A scenario file, read and validated: the fabric, the transports to compare, the workloads, the
// failure timeline, stop conditions and outputs. Everything is checked before anything is built;
// errors name the file, the JSON path, the bad value and what is allowed (SpecError). The JSON
// Schema of the same format ships as scenarios/scenario.schema.json.
#ifndef MRCSIM_SIM_SCENARIO_SCENARIO_SPEC_H
#define MRCSIM_SIM_SCENARIO_SCENARIO_SPEC_H

#include "sim/scenario/type-registry.h"
#include "topologies/fabric-spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief One transport to run the workloads on ("transport": an object or a list of them).
struct TransportSpec
{
  std::string type;  ///< a TransportTypes() name: "mrc" or "rocev2"
  std::string label; ///< unique among the scenario's transports (default: the type)
  /// ns-3 attribute defaults by full name ("ns3::MrcQueuePair::EvCount" -> "64"), applied with
  /// Config::SetDefault before the network is built; values kept as text (numbers, booleans,
  /// times like "262us").
  std::map<std::string, std::string> attributes;
  /// QPs per GPU pair, spread over the NIC ports: a transport's reader sets it if the transport
  /// takes "qps_per_connection" (RoCEv2); 1 otherwise.
  uint32_t qpsPerConnection = 1;
  /// The settings of a transport registered outside the library (RegisterTransportType), made by
  /// its reader (TypeParams, ParamsOf); null for the library's transports.
  std::shared_ptr<const TypeParams> params;
};

/// \brief A set of GPUs: "all", a list, or a strided range {"first","count","stride"}.
struct GpuSet
{
  std::vector<uint32_t> gpus; ///< resolved against the fabric's GPU count
};

/// \brief One workload entry. Collectives run over groups of `groupSize` GPUs taken from `gpus`
/// (contiguously or strided), all groups at once.
struct WorkloadSpec
{
  /// a name WorkloadTypes() knows: ring_allreduce, ring_allgather, ring_reducescatter,
  /// hd_allreduce, all_to_all, permutation, incast, random, flows, train_step, or one registered
  /// from outside (RegisterWorkloadType)
  std::string type;
  std::string name; ///< unique (default: "<type>-<index>")
  GpuSet gpus;      ///< default: every GPU
  uint64_t bytes = 0; ///< of the types that take it: collective: per-GPU buffer; all_to_all: per pair; others: per message
  double startUs = 0;
  /// The type's own settings (sim/workloads/workload-params.h for the library's types), made by
  /// its reader (TypeParams, ParamsOf); null: the type's defaults.
  std::shared_ptr<const TypeParams> params;
};

/// \brief Which link a failure names: {"id"}, {"gpu","plane"} (a NIC link), {"plane","t0","t1"}
/// (the first link between them) or {"plane","t0","up_port"} (the T0's k-th up-link).
struct LinkSelector
{
  std::optional<uint32_t> id;
  std::optional<uint32_t> gpu;
  std::optional<int> plane;
  std::optional<uint32_t> t0;
  std::optional<uint32_t> t1;
  std::optional<uint32_t> upPort;
  std::string where; ///< JSON path of the selector, for errors raised when resolving it
};

/// \brief One timed failure event.
struct FailureSpec
{
  /// a name FailureTypes() knows: link_down, link_up, link_flap, switch_down, switch_up,
  /// plane_down, plane_up, port_down, port_up, gray, random_links, or one registered from
  /// outside (RegisterFailureType)
  std::string type;
  double atUs = 0;
  std::string where; ///< JSON path, for messages
  /// The type's own settings (sim/failures/failure-params.h for the library's types), made by
  /// its reader (TypeParams, ParamsOf); null: the type's defaults.
  std::shared_ptr<const TypeParams> params;
};

/// \brief Random loss on every link of a class from the start (both transports alike).
struct LinkLossSpec
{
  std::string linkClass; ///< "gpu-t0", "t0-t1" or "all"
  double rate = 0;       ///< probability that a packet crossing such a link is lost, per direction
};

/// \brief When a run ends: all work done, no progress possible (always), or a limit. Every run
/// has both limits: a scenario that never finishes still ends.
struct StopSpec
{
  /// 10 s simulated: well past the slowest recovery of the models (RoCEv2 retry exhaustion, 8
  /// timeouts doubling from 1.05 ms: 0.27 s).
  static constexpr double kDefaultSimTimeUs = 1e7;
  static constexpr double kDefaultWallTimeS = 21600; ///< 6 hours, for the whole scenario
  double simTimeUs = kDefaultSimTimeUs;
  double wallTimeS = kDefaultWallTimeS; ///< all transports together
};

/// \brief What a run writes.
struct OutputSpec
{
  /// Shortest and longest sampling interval: below 0.1 us a sample per packet would cost more
  /// than the packets; above 1 s nothing would be sampled.
  static constexpr double kMinSampleIntervalUs = 0.1;
  static constexpr double kMaxSampleIntervalUs = 1e6;
  double sampleIntervalUs = 10;        ///< time series (goodput per plane, link utilisation)
  std::vector<LinkSelector> pcapLinks; ///< both ends of each link write pcap files
  std::vector<LinkSelector> portLinks; ///< both ends of each link sampled: queue depth, utilisation
};

/// \brief One swept parameter: an override path (as for --set) and the values it takes.
struct SweepParameter
{
  std::string path;                   ///< e.g. "workloads.0.bytes"
  std::vector<nlohmann::json> values; ///< each one checked alone against the scenario
};

/// \brief A sweep block: the cartesian product of the parameters' values and the seeds, each point
/// a separate run of the scenario. ExpandSweep (scenario-sweep.h) makes the points, which
/// scripts/sweep.py runs; `mrcsim run` runs the base scenario only and says so.
struct SweepSpec
{
  /// By path: nlohmann::json keeps an object's keys sorted. ExpandSweep numbers the points in
  /// the file's order instead; only the count matters here.
  std::vector<SweepParameter> parameters;
  std::vector<uint64_t> seeds; ///< default: the scenario's seed
  /// \brief Parameter value combinations times seeds.
  uint64_t Points() const;
};

/// \brief A whole scenario.
struct ScenarioSpec
{
  std::string file; ///< where it was read from
  std::string name;
  std::string description;
  uint64_t seed = 1;
  FabricSpec topology;
  std::vector<TransportSpec> transports;
  std::vector<WorkloadSpec> workloads;
  std::vector<FailureSpec> failures;
  std::vector<LinkLossSpec> linkLoss;
  StopSpec stop;
  OutputSpec outputs;
  std::optional<SweepSpec> sweep; ///< absent, or "sweep": null (how one point of a sweep runs)
  nlohmann::json document;        ///< the document after --set overrides (hashed into the summary)
};

/// \brief Applies one `path=value` override (path: keys and list indices separated by '.',
/// e.g. "workloads.0.bytes=1048576" or "transport.attributes.ns3::MrcQueuePair::EvCount=64"; the
/// value is parsed as JSON, or taken as a string if it is not JSON). An unknown key is an error
/// at validation, like in the file.
void ApplyOverride(nlohmann::json& document, const std::string& assignment);

/// \brief Reads and validates a scenario: JSON syntax, keys, types, ranges, references (GPU
/// indices, links, planes against the fabric the topology describes). Throws SpecError.
ScenarioSpec ParseScenario(const nlohmann::json& document, const std::string& origin);
/// \brief ParseScenario after applying `overrides` (path=value) to `document`; an error then
/// names the overrides, since the bad value may come from them rather than from `origin`.
ScenarioSpec ParseScenario(nlohmann::json document,
                           const std::string& origin,
                           const std::vector<std::string>& overrides);
ScenarioSpec ReadScenarioFile(const std::string& file, const std::vector<std::string>& overrides = {});

/// \brief The id of the link a selector names in `fabric` (ParseScenario has already checked that
/// it names one). Throws SpecError naming `origin`, the selector's JSON path and what exists.
uint32_t ResolveLink(const Fabric& fabric, const LinkSelector& link, const std::string& origin);

} // namespace mrcsim

#endif
