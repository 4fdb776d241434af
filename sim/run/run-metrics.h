// The metrics of one transport's run, each gathered by its own collector: those that watch the
// run subscribe to trace sources of the NICs and QPs as the NetworkService makes them (packet
// latency, EV transitions); the others read, once the run is over, the workloads' records
// (collective and message tables, CSV files) or the counters of the QPs (RdmaQueuePair::Counters,
// whatever the transport), fabric ports and drop causes.
#ifndef MRCSIM_SIM_RUN_RUN_METRICS_H
#define MRCSIM_SIM_RUN_RUN_METRICS_H

#include "sim/run/latency-histogram.h"
#include "sim/network/network-service.h"
#include "sim/run/output-file.h"
#include "sim/workloads/workload.h"
#include "topologies/fabric.h"

#include "models/fabric/fabric-network.h"
#include "models/rdma/rdma-queue-pair.h"

#include "ns3/nstime.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief One-way latency of every full data packet, NIC to NIC (microseconds): each connected
/// GPU's NIC reports it through its "PacketLatency" trace source. One histogram per partition of
/// a parallel run (each filled by its partition's thread), merged for the summary.
class PacketLatencyCollector : public ConnectionObserver
{
public:
  /// \param partitions of the run (FabricParallelSimulatorImpl), at least 1
  PacketLatencyCollector(ns3::FabricNetwork& net, uint32_t partitions)
    : m_net(net)
    , m_latencyUs(partitions, LatencyHistogram{ 1e-3 })
  {
  }
  void OnConnection(uint32_t a, uint32_t b) override;
  /// \brief The summary's "packet_latency_us": LatencyHistogram::Summary and "histogram".
  nlohmann::json Summary() const;

private:
  ns3::FabricNetwork& m_net;
  std::set<uint32_t> m_traced; ///< GPUs whose NIC reports packet latency
  std::vector<LatencyHistogram> m_latencyUs; ///< by partition
};

/// \brief The counters of QPs, fabric ports and drop causes, read at the end of a run.
struct RunCounters
{
  ns3::RdmaQpCounters qps; ///< summed over every QP
  uint64_t trims = 0;      ///< both ends of every link
  uint64_t ecnMarks = 0;
  ns3::Time pfcPaused;        ///< summed over ports
  nlohmann::json drops;       ///< by DropCause name
  std::size_t qpErrors = 0;   ///< QPs that went into error

  /// \brief Reads them from the run's QPs, network and collectors.
  static RunCounters Read(const NetworkService& service,
                          const Fabric& fabric,
                          ns3::FabricNetwork& net);
  /// \brief The summary's "counters".
  nlohmann::json Summary() const;
};

/// \brief The collective and message tables of a run, from the workloads' records: the summary's
/// "collectives" and "messages" (latency and slowdown histograms), the completion time, the GPUs'
/// idle time, and with an output directory collectives.csv and messages.csv.
class CompletionTables
{
public:
  /// \param outDir the transport's results directory; empty: no files. Opens the files now
  ///   (throws std::runtime_error if they cannot be created).
  explicit CompletionTables(const std::string& outDir);
  /// \brief Adds one workload's records (rows of the CSV files included), with each message's
  /// fair-share time from `fair` when it has one (sim/references/fair-reference.h).
  void Add(const Workload& w, FairReference* fair = nullptr);
  /// \brief Puts the CSV files in place (throws std::runtime_error if a write failed).
  void Commit();

  /// \brief One entry per workload with collectives.
  const nlohmann::json& Collectives() const { return m_collectives; }
  /// \brief The summary's "messages"; `failed`: messages that failed on QPs in error.
  nlohmann::json Messages(uint64_t failed) const;
  /// \brief When the last collective or message completed.
  ns3::Time LastDone() const { return m_lastDone; }
  /// \brief Workload::GpuIdle summed over workloads.
  ns3::Time GpuIdle() const { return m_gpuIdle; }

private:
  nlohmann::json m_collectives = nlohmann::json::array();
  LatencyHistogram m_messageUs;
  LatencyHistogram m_slowdown{ 1e-6 };
  LatencyHistogram m_fairSlowdown{ 1e-6 }; ///< time over fair time, messages that have one
  uint64_t m_messages = 0;
  uint64_t m_messagesDone = 0;
  ns3::Time m_lastDone;
  ns3::Time m_gpuIdle;
  OutputFile m_collectivesCsv;
  OutputFile m_messagesCsv;
};

} // namespace mrcsim

#endif
