// Collective workloads: groups of GPUs that each run an algorithm for a number of iterations,
// with compute time between iterations. An algorithm is a per-rank schedule of steps (send these
// messages, expect that many); a rank moves to its next step when its sends are done and its
// receives have arrived. A message's one completion (the receiver holds it) ends both its send and
// its receive: the sender's NIC learning of it an ACK later is left out, as are data reduction,
// buffers, and NCCL's channels and pipelining within a step.
#ifndef MRCSIM_SIM_WORKLOADS_COLLECTIVE_WORKLOAD_H
#define MRCSIM_SIM_WORKLOADS_COLLECTIVE_WORKLOAD_H

#include "sim/workloads/workload.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mrcsim
{

/// \brief One group's collective as a step schedule over its ranks 0..n-1 (a policy of
/// CollectiveWorkload). Every rank has the same number of steps; a step may send and receive
/// nothing.
class CollectiveAlgorithm
{
public:
  /// \brief One message of a step: to rank `dst`, `bytes` long, relayed by rank `via` when it
  /// is not -1 (MessageService::SendVia).
  struct Send
  {
    uint32_t dst = 0;
    uint64_t bytes = 0;
    int32_t via = -1;
  };

  virtual ~CollectiveAlgorithm() = default;
  /// \brief CollectiveRecord::algorithm, e.g. "ring_allreduce".
  virtual const char* Name() const = 0;
  /// \brief CollectiveRecord::bytes (NCCL's "size") and CollectiveRecord::busFactor.
  virtual uint64_t RecordBytes() const = 0;
  virtual double BusFactor() const = 0;
  /// \brief Bytes all ranks send in one iteration (progress); by default, every step's sends
  /// added up.
  virtual uint64_t IterationBytes() const;

  virtual uint32_t Ranks() const = 0;
  virtual uint32_t Steps() const = 0;
  virtual uint32_t SendCount(uint32_t rank, uint32_t step) const = 0;
  virtual Send SendAt(uint32_t rank, uint32_t step, uint32_t index) const = 0;
  virtual uint32_t ReceiveCount(uint32_t rank, uint32_t step) const = 0;
  /// \brief Called before each iteration (a permutation draws its next derangement here).
  virtual void BeginIteration() {}
  /// \brief Whether the schedule changes between iterations (then its ideal is recomputed).
  virtual bool Varies() const { return false; }
  /// \brief Steps a rank may run ahead of its receives: it enters step t once the receives of
  /// steps up to t - 1 - ReceiveLag() are in (0: a step waits for the previous step's receives).
  virtual uint32_t ReceiveLag() const { return 0; }
  /// \brief Sends that may still be in flight when a rank leaves a step (0: all of its own).
  virtual uint32_t SendWindow() const { return 0; }
  /// \brief Compute a rank does before entering `step` (> 0), once it may: a training step's
  /// layers between its collectives. Default none.
  virtual ns3::Time ComputeBefore(uint32_t rank, uint32_t step) const { return ns3::Time(0); }
  /// \brief Compute inside one iteration, the same for every rank (ComputeBefore summed): left
  /// out of GpuIdle.
  virtual ns3::Time IterationCompute() const { return ns3::Time(0); }
};

/// \brief Groups running a CollectiveAlgorithm each, concurrently and independently. A group's
/// first iteration starts at its start time; iteration i+1 starts `compute` after the last rank
/// of the group finished iteration i (every GPU computes for `compute` once the whole group has
/// its data). One CollectiveRecord per (group, iteration). GpuIdle adds ranks x duration for each
/// finished iteration: with compute only between iterations, a GPU waits on the network for the
/// whole of each one, even after its own last step.
class CollectiveWorkload : public Workload
{
public:
  /// \param groups GPU ids per group; rank r of group g is groups[g][r]
  /// \param algorithms one per group, over that group's ranks
  /// \param countGpuIdle whether GpuIdle() adds up (collectives) or stays zero (patterns)
  CollectiveWorkload(std::string name,
                     std::vector<std::vector<uint32_t>> groups,
                     std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms,
                     uint32_t iterations,
                     ns3::Time start,
                     ns3::Time compute,
                     bool countGpuIdle,
                     const IdealModel& ideal);

  void Start(MessageService& service) override;
  bool Done() const override { return m_groupsDone == m_groups.size(); }
  uint64_t BytesPosted() const override { return m_bytesPosted; }
  uint64_t BytesTotal() const override { return m_bytesTotal; }

private:
  /// Where a rank is within the current iteration.
  struct Rank
  {
    uint32_t step = 0;         ///< the step whose sends were posted last
    uint32_t sendsPending = 0; ///< of every step
    uint32_t recvStep = 0;     ///< the first step whose receives are not all in
    uint32_t received = 0;     ///< receives of `recvStep` so far
    std::vector<std::pair<uint32_t, uint32_t>> early; ///< (step, count) that arrived ahead
    bool computing = false; ///< in ComputeBefore of `step`: entered once it is over
  };
  struct Group
  {
    std::vector<uint32_t> gpus;
    std::unique_ptr<CollectiveAlgorithm> algorithm;
    std::vector<Rank> ranks;
    uint32_t iteration = 0;
    uint32_t ranksDone = 0;
    std::size_t record = 0; ///< index of the current iteration's CollectiveRecord
    double idealS = -1;     ///< of one iteration (IdealOf), once computed
  };

  /// \brief A lower bound on one iteration of `group` on an idle fabric: the algorithm's own
  /// schedule (its step dependencies, ReceiveLag and, without a window, each step's sends) with
  /// every message as fast as IdealModel allows, and each NIC sending and receiving no faster
  /// than its line rate.
  double IdealOf(const Group& group) const;
  /// \brief Counts the receives of `step` that arrived, then moves recvStep past complete steps.
  void TakeReceive(Rank& rank, uint32_t step, const CollectiveAlgorithm& algorithm);

  void BeginIteration(uint32_t group);
  /// Enters rank's current step: posts its sends and takes the receives that came early.
  void EnterStep(uint32_t group, uint32_t rank);
  /// Moves the rank on while its current step is complete.
  void Advance(uint32_t group, uint32_t rank);
  void OnMessageDone(uint32_t group, uint32_t src, uint32_t dst, uint32_t step, std::size_t message);
  /// \brief A message's completion in 16 bytes, which std::function holds without allocating: an
  /// all-to-all step has one per message in flight. The tag packs the step above the message's
  /// record index; the record's GPUs give the group and ranks (m_groupOf, m_rankOf). Null when
  /// the message does not fit (a GPU in two groups, or indices beyond the tag's fields).
  std::function<void()> CompactDone(uint32_t step, std::size_t message);
  static constexpr unsigned kTagMessageBits = 40; ///< a tag's low bits: the message's record
  /// \brief Fills m_groupOf and m_rankOf: the group and rank of each GPU by id (UINT32_MAX: in
  /// no group); both stay empty when a GPU is in two places.
  void MapGpus();
  void EndIteration(uint32_t group);

  std::vector<Group> m_groups;
  uint32_t m_iterations;
  ns3::Time m_start;
  ns3::Time m_compute;
  bool m_countGpuIdle;
  IdealModel m_ideal;
  MessageService* m_service = nullptr;
  std::size_t m_groupsDone = 0;
  uint64_t m_bytesPosted = 0;
  uint64_t m_bytesTotal = 0;
  bool m_posting = false; ///< inside MessageService::Send (which must not complete synchronously)
  std::vector<uint32_t> m_groupOf; ///< MapGpus
  std::vector<uint32_t> m_rankOf;  ///< MapGpus
};

/// \brief How NCCL pipelines a ring (defaults: NCCL's Simple protocol, see docs/MODEL.md).
struct RingPipeline
{
  bool enabled = true;
  uint32_t channels = 1;           ///< rings over the same ranks, each on its share of the buffer
  uint64_t chunkBytes = 512 << 10; ///< a slice: NCCL_BUFFSIZE (4 MiB) / NCCL_STEPS (8)
  uint32_t slots = 8;              ///< slices in flight per channel (NCCL_STEPS)
};

/// \brief Which rank follows which on each channel's ring, and which hops are relayed.
struct RingLayout
{
  /// order[c][p]: the rank at position p of channel c's ring; empty: 0, 1, ..., n-1 on every
  /// channel. Each must list every rank once; a layout of fewer channels than the ring's repeats.
  std::vector<std::vector<uint32_t>> order;
  /// via[c][p]: the rank that relays the hop from position p to p + 1 (-1: none); empty: none.
  std::vector<std::vector<int32_t>> via;
};

/// \brief NCCL's rings over scale-up domains (ring_* workloads on a fabric with domains): the
/// ranks of each domain stay together and the ring crosses domains from block to block. When
/// every domain holds the same number k > 1 of the group's ranks and there are several domains,
/// channel c enters every domain at its ranks' (c mod k)-th (by local rank), visits the others
/// over the scale-up domain, and leaves through the NIC of that same entry GPU: the last GPU hands
/// its data over the domain to it (PXN), so each inter-domain hop goes from local rank r of one
/// domain to local rank r of the next, on one rail (NCCL_CROSS_NIC=0), and channel c uses NIC c
/// mod k. Otherwise the ranks are ordered by domain, one order for all channels, no relay. No
/// domains (`scaleUp` disabled): the flat layout.
RingLayout DomainRingLayout(const std::vector<uint32_t>& gpus, const ScaleUpSpec& scaleUp, uint32_t channels);

/// \brief Which of NCCL's ring collectives: all-reduce (2(n-1) steps: reduce-scatter, then
/// all-gather), reduce-scatter or all-gather (n-1 steps each).
enum class RingCollective
{
  AllReduce,
  ReduceScatter,
  AllGather
};

/// \brief A ring collective of `bytes` (NCCL's size: the per-GPU buffer of an all-reduce, the
/// whole gathered or scattered buffer of the others) over `ranks`, laid out by `layout`, as
/// MakeRingAllReduce does: each step sends one chunk of bytes / n per channel to the ring's next
/// rank. Bus factor (nccl-tests): 2(n-1)/n for all-reduce, (n-1)/n for the others.
std::unique_ptr<CollectiveAlgorithm> MakeRing(RingCollective kind,
                                              uint32_t ranks,
                                              uint64_t bytes,
                                              const RingPipeline& pipeline,
                                              RingLayout layout);

/// \brief NCCL ring all-reduce of `bytes` per GPU over `ranks`: the buffer in `ranks` chunks
/// differing by at most one byte (at least one byte each), 2(n-1) ring steps in which rank r
/// sends one chunk to r+1 (n-1 reduce-scatter, then n-1 all-gather). Pipelined, each chunk is
/// split among the channels and into slices of at most chunkBytes; a rank forwards a slice as
/// soon as it holds the slice it depends on, with up to `slots` slices per channel in flight.
/// Not pipelined, a ring step sends the whole chunk and waits for the previous one.
std::unique_ptr<CollectiveAlgorithm> MakeRingAllReduce(uint32_t ranks, uint64_t bytes,
                                                       const RingPipeline& pipeline = RingPipeline{ false });

/// \brief Recursive halving-doubling all-reduce (Rabenseifner) of `bytes` per GPU over `ranks`, a
/// power of two: reduce-scatter in log2 n steps, step k exchanging half the current segment with
/// rank r XOR 2^k, then all-gather in the reverse order.
std::unique_ptr<CollectiveAlgorithm> MakeHalvingDoublingAllReduce(uint32_t ranks, uint64_t bytes);

/// \brief All-to-all of `bytes` per (source, destination) pair over `ranks`. All at once: every
/// rank posts its n-1 messages together, in the staggered order r+1, r+2, ... (as NCCL does) so
/// that receivers are not all hit by the same sender first. Pairwise: n-1 steps, in step k rank r
/// sends to r+k+1 and receives from r-k-1.
std::unique_ptr<CollectiveAlgorithm> MakeAllToAll(uint32_t ranks, uint64_t bytes, bool pairwise);

/// \brief The same all-to-all with NCCL's PXN over scale-up domains: a message to a GPU of
/// another domain first moves to the GPU of the sender's domain with the destination's local rank
/// (the destination's rail), which sends it from its own NIC; messages within a domain, and those
/// whose sender is already on the destination's rail, go directly. `gpus` are the group's GPUs by
/// rank; a relay outside the group is not used (the message goes directly).
std::unique_ptr<CollectiveAlgorithm> MakeAllToAllPxn(uint32_t ranks,
                                                     uint64_t bytes,
                                                     bool pairwise,
                                                     const std::vector<uint32_t>& gpus,
                                                     const ScaleUpSpec& scaleUp);

} // namespace mrcsim

#endif
