// The time series of a run: goodput and up-link utilisation per plane and, for outputs.ports,
// queue depth and utilisation of listed ports, sampled on the run's interval.
#ifndef MRCSIM_SIM_RUN_TIME_SERIES_SAMPLER_H
#define MRCSIM_SIM_RUN_TIME_SERIES_SAMPLER_H

#include "sim/run/output-file.h"
#include "sim/scenario/scenario-spec.h"
#include "topologies/fabric.h"

#include "models/fabric/fabric-network.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief The sampled time series of a run, column by column: one row per sample and plane, in
/// the order of timeseries.csv.
struct TimeSeries
{
  std::vector<double> timeUs;            ///< sample time, microseconds
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

/// \brief Samples a run's ports; with an output directory also writes timeseries.csv (and
/// ports.csv for outputs.ports).
class TimeSeriesSampler
{
public:
  /// \param outDir the transport's results directory; empty: no files
  TimeSeriesSampler(const ScenarioSpec& spec, const Fabric& fabric, ns3::FabricNetwork& net, const std::string& outDir);

  /// \brief One row per plane (and per sampled port) for the time since the last sample (since
  /// the start for the first); nothing if no time passed.
  void Sample();
  /// \brief Commits the CSV files (throws std::runtime_error if a write failed).
  void Finish();
  TimeSeries& Series() { return m_series; }

private:
  /// A sampled port (outputs.ports): one end of a listed link.
  struct SampledPort
  {
    uint32_t link;
    std::string node;
    uint16_t port;
    ns3::Ptr<ns3::FabricPort> p;
    double rateBps;
    uint64_t lastTx = 0;
  };

  std::vector<std::vector<ns3::Ptr<ns3::FabricPort>>> m_lastHop; ///< by plane: switch ports facing GPUs
  std::vector<std::vector<ns3::Ptr<ns3::FabricPort>>> m_up;      ///< by plane: T0 up-ports
  std::vector<double> m_upCapacityBps;                           ///< by plane
  std::vector<uint64_t> m_lastGood;
  std::vector<uint64_t> m_lastUp;
  std::vector<SampledPort> m_ports;
  ns3::Time m_last; ///< time of the last sample
  TimeSeries m_series;
  OutputFile m_seriesCsv;
  OutputFile m_portsCsv;
};

} // namespace mrcsim

#endif
