// Runs one scenario on one transport: builds the ns-3 network from the fabric, sets the
// transport's fabric policy (MRC: trimming, no ECN on the last hop; RoCEv2: PFC), connects QPs on
// demand as workloads post messages, injects the failure timeline, stops on completion or a
// limit, and gathers metrics (collectives, messages, counters, time series).
#ifndef MRCSIM_SIM_RUN_TRANSPORT_RUN_H
#define MRCSIM_SIM_RUN_TRANSPORT_RUN_H

#include "sim/scenario/scenario-spec.h"
#include "sim/run/time-series-sampler.h"
#include "sim/workloads/workload.h"
#include "topologies/fabric-routing.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <memory>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief Partitions of a run unless told otherwise: a fixed number, not the machine's cores, so
/// that a run's figures of speed mean the same everywhere (its results do not depend on it).
constexpr uint32_t kDefaultPartitions = 2;
/// \brief At most this many partitions (one thread each).
constexpr uint32_t kMaxPartitions = 64;

/// \brief Options of a run that are not part of the scenario (RunTransport's; RunScenario's add
/// to them, ScenarioRunOptions).
struct RunOptions
{
  /// Results directory; empty: no files. A transport's run writes its CSV files there; a
  /// scenario's, summary.json and a folder per transport (its label).
  std::string outDir;
  bool progress = true; ///< progress lines on stderr for runs longer than a few seconds
  /// When the run must stop (the scenario's wall-time limit counted from its start, for all its
  /// transports together); unset: stop.wall_time_s from now.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  /// Partitions of the fabric, each run by a thread of its own (FabricParallelSimulatorImpl;
  /// FabricNetwork::Partition), 1 to kMaxPartitions; 0: ResolvedPartitions. Results are the
  /// same for any number.
  uint32_t partitions = 0;
};

/// \brief The partitions of a run asked for `requested`: that number if not 0; else one per MPI
/// rank across ranks, 1 if the scenario captures packets (outputs.pcap needs one partition),
/// or kDefaultPartitions.
uint32_t ResolvedPartitions(const ScenarioSpec& spec, uint32_t requested);

/// \brief Result of one transport's run.
struct TransportResult
{
  nlohmann::json summary; ///< deterministic: same scenario and seed, same JSON
  nlohmann::json wall;    ///< wall-clock figures (kept apart from the summary)
  TimeSeries series;      ///< the same samples as timeseries.csv, kept whether or not it is written
  bool partial = false;
};

/// \brief Runs `spec` on `transport`. `fabric` is the scenario's built topology. ns-3's simulator
/// is left empty on return, also when it throws, so runs may follow one another in a process.
TransportResult RunTransport(const ScenarioSpec& spec,
                             const TransportSpec& transport,
                             std::shared_ptr<const Fabric> fabric,
                             const RunOptions& options);


} // namespace mrcsim

#endif
