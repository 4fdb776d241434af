// Background traffic: every GPU of a set posts fixed-size messages to uniformly random others of
// the set, as a Poisson process at a given fraction of its NIC's line rate, for a given duration.
// Open loop: arrivals do not wait for earlier messages, so an overloaded fabric builds backlog
// rather than slowing the offered load down. No collective records, only messages.
#ifndef MRCSIM_SIM_WORKLOADS_RANDOM_WORKLOAD_H
#define MRCSIM_SIM_WORKLOADS_RANDOM_WORKLOAD_H

#include "sim/workloads/workload.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief Poisson background traffic over `gpus` (at least two) from `start` for `duration`.
class RandomWorkload : public Workload
{
public:
  /// \param load offered load per GPU, a fraction of IdealModel::gpuBandwidthBps: exponential gaps
  /// of mean bytes x 8 / (load x rate)
  /// \param seed the run's seed; each GPU draws from its own stream (WorkloadStreamSeed with the
  /// GPU's id), so one GPU's arrivals do not depend on how many others there are
  RandomWorkload(std::string name,
                 std::vector<uint32_t> gpus,
                 uint64_t bytes,
                 double load,
                 ns3::Time start,
                 ns3::Time duration,
                 uint64_t seed,
                 const IdealModel& ideal);

  void Start(MessageService& service) override;
  /// \brief The duration is over and every message posted is done.
  bool Done() const override { return m_durationOver && m_outstanding == 0; }
  uint64_t BytesPosted() const override { return m_bytesPosted; }
  /// \brief The expected bytes (load x rate x duration per GPU) while arrivals go on; what was
  /// actually posted once they are over.
  uint64_t BytesTotal() const override { return m_durationOver ? m_bytesPosted : m_expectedBytes; }

private:
  /// Posts GPU `i`'s arrival due now and schedules its next one (one pending event per GPU).
  void Arrive(uint32_t i);
  void ScheduleNext(uint32_t i);
  void OnMessageDone(std::size_t message);

  std::vector<uint32_t> m_gpus;
  std::vector<uint64_t> m_streams; ///< SplitMix64 state per GPU
  std::vector<ns3::Time> m_next;   ///< next arrival per GPU
  uint64_t m_bytes;
  double m_meanGapS; ///< 0: no traffic
  ns3::Time m_start;
  ns3::Time m_end;
  IdealModel m_ideal;
  uint64_t m_expectedBytes;
  MessageService* m_service = nullptr;
  uint64_t m_bytesPosted = 0;
  uint64_t m_outstanding = 0;
  bool m_durationOver = false;
};

} // namespace mrcsim

#endif
