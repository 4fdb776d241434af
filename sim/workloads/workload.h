// Workloads: dependency-driven message patterns (collectives, permutations, incast, background
// traffic) that know nothing of the transport. They post messages through a MessageService and
// advance when the service reports a message complete at its receiver, so the same workload runs
// unchanged on MRC and on RoCEv2.
#ifndef MRCSIM_SIM_WORKLOADS_WORKLOAD_H
#define MRCSIM_SIM_WORKLOADS_WORKLOAD_H

#include "sim/references/ideal-model.h"
#include "sim/scenario/scenario-spec.h"

#include "ns3/nstime.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mrcsim
{

/// \brief What a workload may ask of the network.
class MessageService
{
public:
  virtual ~MessageService() = default;
  /// \brief Posts `bytes` from GPU `src` to GPU `dst` now; `done` runs at the simulated time the
  /// receiver holds the whole message.
  virtual void Send(uint32_t src, uint32_t dst, uint64_t bytes, std::function<void()> done) = 0;
  /// \brief Posts `bytes` from `src` to `dst` relayed by GPU `via`, as NCCL's PXN does (the data
  /// first moves to `via` over the scale-up domain, which then sends it from its own NIC): `via`
  /// sends once it holds the whole message; `done` runs when `dst` does.
  virtual void SendVia(uint32_t src, uint32_t via, uint32_t dst, uint64_t bytes, std::function<void()> done)
  {
    Send(src,
         via,
         bytes,
         [this, via, dst, bytes, done = std::move(done)]() mutable { Send(via, dst, bytes, std::move(done)); });
  }
  /// \brief A workload's Done() may have turned true other than by a message completing (e.g.
  /// random traffic reaching the end of its duration).
  virtual void Progressed() {}
};

/// \brief One finished (or unfinished) collective instance: a group's iteration.
struct CollectiveRecord
{
  std::string workload;  ///< WorkloadSpec::name
  std::string algorithm; ///< e.g. "ring_allreduce"
  uint32_t group = 0;
  uint32_t iteration = 0;
  uint32_t ranks = 0;
  uint64_t bytes = 0; ///< NCCL's "size": per-GPU buffer (all_to_all: per-GPU send total)
  ns3::Time start;
  ns3::Time end;     ///< zero while unfinished
  double idealS = 0; ///< lower bound on an idle fabric (IdealModel)
  /// NCCL: algorithm bandwidth = bytes / time; bus bandwidth = algbw x factor
  /// (allreduce 2(n-1)/n, all-gather, reduce-scatter and all-to-all (n-1)/n, others 1).
  double busFactor = 1;
};

/// \brief One message (40 bytes: a large run records millions; its workload is the one that
/// holds it).
struct MessageRecord
{
  uint32_t src = 0;
  uint32_t dst = 0;
  uint64_t bytes = 0;
  ns3::Time posted;
  ns3::Time done; ///< zero while unfinished
  double idealS = 0;
};

/// \brief A running workload; owns its records.
class Workload
{
public:
  Workload() = default;
  explicit Workload(std::string name) : m_name(std::move(name)) {}
  virtual ~Workload() = default;
  // Completions capture the workload: it stays where it was made.
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  /// \brief WorkloadSpec::name.
  const std::string& Name() const { return m_name; }
  /// \brief Schedules its first messages (at spec.startUs) on `service`.
  virtual void Start(MessageService& service) = 0;
  /// \brief All its work is done (background traffic: its duration is over and its messages done).
  virtual bool Done() const = 0;
  /// \brief Bytes posted so far and bytes the whole workload will post (progress).
  virtual uint64_t BytesPosted() const = 0;
  virtual uint64_t BytesTotal() const = 0;

  const std::vector<CollectiveRecord>& Collectives() const { return m_collectives; }
  /// In blocks, not one array: a large run's millions of records neither move nor leave an
  /// array's growth slack behind.
  const std::deque<MessageRecord>& Messages() const { return m_messages; }
  /// \brief Time GPUs spent waiting on the network between their compute phases, summed over
  /// GPUs (collective workloads; zero otherwise).
  ns3::Time GpuIdle() const { return m_gpuIdle; }

protected:
  /// \brief Appends the record of a message posted now; returns its index in m_messages (what a
  /// completion names).
  std::size_t RecordMessage(uint32_t src, uint32_t dst, uint64_t bytes, double idealS);

  std::string m_name;
  std::vector<CollectiveRecord> m_collectives;
  std::deque<MessageRecord> m_messages;
  ns3::Time m_gpuIdle;
};

/// \brief Creates the workload a spec describes, by its type's entry in WorkloadTypes()
/// (sim/workloads/workload-types.h). `seed` draws permutations and random traffic (same seed, same
/// messages); `ideal` fills the records' lower bounds.
/// Throws SpecError (naming the workload, the key and what is allowed) on a spec the workload
/// cannot run: unknown type, groupSize not dividing the GPUs, hd_allreduce groups not a power of
/// two, too few GPUs for the pattern.
std::unique_ptr<Workload> MakeWorkload(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal);

/// \brief Splits `gpus` into groups of `groupSize` (0: one group of all), which must divide their
/// number. "contiguous": group g is gpus[g*S .. g*S+S-1]; "strided": group g is gpus[g],
/// gpus[g+G], ... for G groups (one rank per group on each run of G consecutive GPUs).
std::vector<std::vector<uint32_t>> SplitGroups(const std::vector<uint32_t>& gpus,
                                               uint32_t groupSize,
                                               const std::string& placement);

/// \brief Seed of one random stream of a workload (a group's permutations, a GPU's arrivals): the
/// run's seed mixed with the workload's name and the stream's index, so that two workloads of one
/// scenario draw unrelated sequences and a run is reproducible from its seed alone.
uint64_t WorkloadStreamSeed(uint64_t seed, const std::string& name, uint64_t stream);

/// \brief A uniform integer in [0, n) from a SplitMix64 stream (n >= 1), by 128-bit
/// multiply-high: no division, and a bias below n / 2^64.
uint64_t UniformBelow(uint64_t& state, uint64_t n);

/// \brief A spec time in microseconds as an ns-3 Time, rounded to the time resolution.
ns3::Time MicrosecondsToTime(double us);

/// \brief `t` in microseconds: the double nearest its exact value (a Time is a whole number of
/// the resolution's steps, divided here once; GetSeconds() * 1e6 rounds twice). What the results
/// files report of every simulated time.
inline double
ToUs(ns3::Time t)
{
  return double(t.GetTimeStep()) / double(ns3::MicroSeconds(1).GetTimeStep());
}

} // namespace mrcsim

#endif
