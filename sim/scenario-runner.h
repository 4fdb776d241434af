// Runs one scenario on one transport: builds the ns-3 network from the fabric, sets the
// transport's fabric policy (MRC: trimming, no ECN on the last hop; RoCEv2: PFC), connects QPs on
// demand as workloads post messages, injects the failure timeline, stops on completion or a
// limit, and gathers metrics (collectives, messages, counters, time series).
#ifndef MRCSIM_SIM_SCENARIO_RUNNER_H
#define MRCSIM_SIM_SCENARIO_RUNNER_H

#include "sim/scenario-spec.h"
#include "sim/workload.h"
#include "topologies/fabric-routing.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief Set by the SIGINT handler; a running scenario stops at its next check and writes
/// partial results.
extern std::atomic<bool> g_interrupted;

/// \brief Options of a run that are not part of the scenario.
struct RunOptions
{
  std::string outDir;   ///< results directory of this transport (CSV files); empty: none
  bool progress = true; ///< progress lines on stderr for runs longer than a few seconds
};

/// \brief The sampled time series of a run, column by column: one row per sample and plane, in
/// the order of timeseries.csv.
struct TimeSeries
{
  std::vector<double> timeUs;            ///< sample time, exact (the CSV writes whole microseconds)
  std::vector<int32_t> plane;            ///< plane of the row (0 on a single-plane fabric)
  std::vector<double> goodputGbps;       ///< delivered to GPUs by the plane's last-hop ports
  std::vector<double> uplinkUtilisation; ///< T0 up-ports' transmitted bits over their capacity
  /// outputs.ports: one row per sample and sampled port, in the order of ports.csv.
  struct Ports
  {
    std::vector<double> timeUs;
    std::vector<uint32_t> link;       ///< link id
    std::vector<std::string> node;    ///< the port's node, e.g. "p0.t0.3", "gpu5"
    std::vector<uint32_t> port;       ///< port number at that node
    std::vector<uint64_t> queueBytes; ///< queued to send, all classes, at the sample
    std::vector<double> utilisation;  ///< bits sent since the last sample over the port's capacity
  } ports;
};

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
