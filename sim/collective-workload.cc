#include "sim/collective-workload.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace mrcsim
{

namespace
{

uint64_t
CeilDiv(uint64_t a, uint64_t b)
{
  return a / b + (a % b != 0);
}

/// NCCL's ring: every chunk travels n-1 hops while being reduced, then n-1 more while being
/// gathered. The chunks differ by at most one byte (rather than the last one taking the whole
/// remainder) so that the largest is ceil(B/n), the size the ideal time is computed from.
class RingAllReduce : public CollectiveAlgorithm
{
public:
  RingAllReduce(uint32_t ranks, uint64_t bytes) : m_n(ranks), m_bytes(bytes) {}
  const char* Name() const override { return "ring_allreduce"; }
  uint64_t RecordBytes() const override { return m_bytes; }
  double BusFactor() const override { return 2.0 * (m_n - 1) / m_n; }
  /// The dependency chain: a rank's step s+1 needs its neighbour's step s, so on an idle fabric
  /// the 2(n-1) steps follow one another, each as long as its largest chunk's message. (The pure
  /// bandwidth bound 2(n-1)/n * B / rate is lower by the per-step latency; a ring that is not
  /// pipelined within a step cannot reach it.)
  double IdealS(const IdealModel& ideal) const override
  {
    return m_n < 2 ? 0 : 2.0 * (m_n - 1) * ideal.MessageTime(ChunkBytes(0));
  }
  uint64_t IterationBytes() const override
  {
    // Every chunk is sent n-1 times in each phase.
    uint64_t all = 0;
    for (uint32_t c = 0; c < m_n; ++c)
    {
      all += ChunkBytes(c);
    }
    return 2 * uint64_t(m_n - 1) * all;
  }
  uint32_t Ranks() const override { return m_n; }
  uint32_t Steps() const override { return m_n < 2 ? 0 : 2 * (m_n - 1); }
  uint32_t SendCount(uint32_t, uint32_t) const override { return 1; }
  Send SendAt(uint32_t rank, uint32_t step, uint32_t) const override
  {
    // Reduce-scatter step s: rank r passes on chunk r-s, which it has just reduced. All-gather
    // step j: it passes on chunk r+1-j, the complete chunk it received last (its own, r+1, first).
    const uint32_t chunk = step < m_n - 1 ? (rank + m_n - step) % m_n : (rank + 1 + m_n - (step - (m_n - 1))) % m_n;
    return { (rank + 1) % m_n, ChunkBytes(chunk) };
  }
  uint32_t ReceiveCount(uint32_t, uint32_t) const override { return 1; }

private:
  uint64_t ChunkBytes(uint32_t chunk) const
  {
    return std::max<uint64_t>(1, m_bytes / m_n + (chunk < m_bytes % m_n ? 1 : 0));
  }

  uint32_t m_n;
  uint64_t m_bytes;
};

/// Rabenseifner's all-reduce: recursive halving for the reduce-scatter, recursive doubling for the
/// all-gather. A rank's segment after h halvings is found by replaying them (log n work per
/// message, no per-rank tables); at a halving the rank whose bit is 0 keeps the lower half.
class HalvingDoublingAllReduce : public CollectiveAlgorithm
{
public:
  HalvingDoublingAllReduce(uint32_t ranks, uint64_t bytes) : m_n(ranks), m_bytes(bytes)
  {
    while ((1u << m_log) < m_n)
    {
      ++m_log;
    }
    NS_ABORT_MSG_IF((1u << m_log) != m_n, "HalvingDoublingAllReduce: " << m_n << " ranks, not a power of two");
  }
  const char* Name() const override { return "hd_allreduce"; }
  uint64_t RecordBytes() const override { return m_bytes; }
  double BusFactor() const override { return 2.0 * (m_n - 1) / m_n; }
  /// Both partners of a step send at once (full-duplex NICs), so a step lasts one message of its
  /// largest segment; a segment after h halvings is at most ceil(B / 2^h).
  double IdealS(const IdealModel& ideal) const override
  {
    double s = 0;
    for (uint32_t h = 1; h <= m_log; ++h)
    {
      s += 2 * ideal.MessageTime(std::max<uint64_t>(1, CeilDiv(m_bytes, uint64_t(1) << h)));
    }
    return s;
  }
  uint32_t Ranks() const override { return m_n; }
  uint32_t Steps() const override { return 2 * m_log; }
  uint32_t SendCount(uint32_t, uint32_t) const override { return 1; }
  Send SendAt(uint32_t rank, uint32_t step, uint32_t) const override
  {
    if (step < m_log)
    {
      // Reduce-scatter: send the half of the current segment the partner keeps.
      return { rank ^ (1u << step), std::max<uint64_t>(1, SegmentBytes(rank, step) - SegmentBytes(rank, step + 1)) };
    }
    // All-gather, halvings undone in reverse: send everything held after halving k+1.
    const uint32_t k = 2 * m_log - 1 - step;
    return { rank ^ (1u << k), std::max<uint64_t>(1, SegmentBytes(rank, k + 1)) };
  }
  uint32_t ReceiveCount(uint32_t, uint32_t) const override { return 1; }

private:
  uint64_t SegmentBytes(uint32_t rank, uint32_t halvings) const
  {
    uint64_t lo = 0;
    uint64_t hi = m_bytes;
    for (uint32_t k = 0; k < halvings; ++k)
    {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (((rank >> k) & 1) == 0)
      {
        hi = mid;
      }
      else
      {
        lo = mid;
      }
    }
    return hi - lo;
  }

  uint32_t m_n;
  uint64_t m_bytes;
  uint32_t m_log = 0;
};

/// NCCL counts an all-to-all's size as the whole per-GPU buffer, n x bytes (its own share
/// included), with bus factor (n-1)/n: bus bandwidth is then the bytes a GPU actually sends per
/// second.
class AllToAll : public CollectiveAlgorithm
{
public:
  AllToAll(uint32_t ranks, uint64_t bytes, bool pairwise) : m_n(ranks), m_bytes(bytes), m_pairwise(pairwise) {}
  const char* Name() const override { return "all_to_all"; }
  uint64_t RecordBytes() const override { return uint64_t(m_n) * m_bytes; }
  double BusFactor() const override { return double(m_n - 1) / m_n; }
  /// All at once: each NIC sends and receives (n-1) x bytes, the bound being its line rate.
  /// Pairwise: n-1 exchanges one after the other.
  double IdealS(const IdealModel& ideal) const override
  {
    if (m_n < 2)
    {
      return 0;
    }
    return m_pairwise ? (m_n - 1) * ideal.MessageTime(m_bytes) : ideal.MessageTime(uint64_t(m_n - 1) * m_bytes);
  }
  uint32_t Ranks() const override { return m_n; }
  uint64_t IterationBytes() const override { return uint64_t(m_n) * (m_n - 1) * m_bytes; }
  uint32_t Steps() const override { return m_pairwise ? m_n - 1 : 1; }
  uint32_t SendCount(uint32_t, uint32_t) const override { return m_pairwise ? 1 : m_n - 1; }
  Send SendAt(uint32_t rank, uint32_t step, uint32_t index) const override
  {
    return { (rank + 1 + (m_pairwise ? step : index)) % m_n, m_bytes };
  }
  uint32_t ReceiveCount(uint32_t, uint32_t) const override { return m_pairwise ? 1 : m_n - 1; }

private:
  uint32_t m_n;
  uint64_t m_bytes;
  bool m_pairwise;
};

} // namespace

uint64_t
CollectiveAlgorithm::IterationBytes() const
{
  uint64_t total = 0;
  for (uint32_t step = 0; step < Steps(); ++step)
  {
    for (uint32_t rank = 0; rank < Ranks(); ++rank)
    {
      for (uint32_t i = 0; i < SendCount(rank, step); ++i)
      {
        total += SendAt(rank, step, i).bytes;
      }
    }
  }
  return total;
}

CollectiveWorkload::CollectiveWorkload(std::string name,
                                       std::vector<std::vector<uint32_t>> groups,
                                       std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms,
                                       uint32_t iterations,
                                       ns3::Time start,
                                       ns3::Time compute,
                                       bool countGpuIdle,
                                       const IdealModel& ideal)
  : Workload(std::move(name))
  , m_iterations(iterations)
  , m_start(start)
  , m_compute(compute)
  , m_countGpuIdle(countGpuIdle)
  , m_ideal(ideal)
{
  NS_ABORT_MSG_IF(groups.size() != algorithms.size(), "CollectiveWorkload: one algorithm per group");
  m_groups.resize(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g)
  {
    Group& group = m_groups[g];
    group.gpus = std::move(groups[g]);
    group.algorithm = std::move(algorithms[g]);
    NS_ABORT_MSG_IF(group.algorithm->Ranks() != group.gpus.size(),
                    "CollectiveWorkload: algorithm of " << group.algorithm->Ranks() << " ranks for a group of "
                                                        << group.gpus.size());
    group.ranks.resize(group.gpus.size());
    m_bytesTotal += group.algorithm->IterationBytes() * iterations;
  }
  if (iterations == 0)
  {
    m_groupsDone = m_groups.size();
  }
}

void
CollectiveWorkload::Start(MessageService& service)
{
  NS_ABORT_MSG_IF(m_service != nullptr, "CollectiveWorkload " << m_name << ": started twice");
  m_service = &service;
  if (m_iterations == 0)
  {
    return;
  }
  const ns3::Time delay = std::max(m_start - ns3::Simulator::Now(), ns3::Time(0));
  for (uint32_t g = 0; g < m_groups.size(); ++g)
  {
    ns3::Simulator::Schedule(delay, &CollectiveWorkload::BeginIteration, this, g);
  }
}

void
CollectiveWorkload::BeginIteration(uint32_t g)
{
  Group& group = m_groups[g];
  CollectiveAlgorithm& algorithm = *group.algorithm;
  algorithm.BeginIteration();

  CollectiveRecord record;
  record.workload = m_name;
  record.algorithm = algorithm.Name();
  record.group = g;
  record.iteration = group.iteration;
  record.ranks = static_cast<uint32_t>(group.gpus.size());
  record.bytes = algorithm.RecordBytes();
  record.start = ns3::Simulator::Now();
  record.idealS = algorithm.IdealS(m_ideal);
  record.busFactor = algorithm.BusFactor();
  group.record = m_collectives.size();
  m_collectives.push_back(std::move(record));

  group.ranksDone = 0;
  for (Rank& rank : group.ranks)
  {
    rank.step = 0;
    rank.sendsPending = 0;
    rank.received = 0;
    rank.early.clear();
  }
  if (algorithm.Steps() == 0)
  {
    EndIteration(g);
    return;
  }
  for (uint32_t r = 0; r < group.ranks.size(); ++r)
  {
    EnterStep(g, r);
  }
  // A step with nothing to send or receive is complete at once; ranks move on only after all
  // have posted their first step, so that messages are posted in rank order.
  for (uint32_t r = 0; r < group.ranks.size(); ++r)
  {
    Advance(g, r);
  }
}

void
CollectiveWorkload::EnterStep(uint32_t g, uint32_t r)
{
  Group& group = m_groups[g];
  Rank& rank = group.ranks[r];
  rank.received = 0;
  for (std::size_t i = 0; i < rank.early.size(); ++i)
  {
    if (rank.early[i].first == rank.step)
    {
      rank.received = rank.early[i].second;
      rank.early[i] = rank.early.back();
      rank.early.pop_back();
      break;
    }
  }
  const uint32_t step = rank.step;
  const uint32_t sends = group.algorithm->SendCount(r, step);
  rank.sendsPending = sends;
  for (uint32_t i = 0; i < sends; ++i)
  {
    const CollectiveAlgorithm::Send send = group.algorithm->SendAt(r, step, i);
    const uint32_t src = group.gpus[r];
    const uint32_t dst = group.gpus[send.dst];
    const std::size_t message = RecordMessage(src, dst, send.bytes, m_ideal.MessageTime(send.bytes));
    m_bytesPosted += send.bytes;
    m_posting = true;
    m_service->Send(
      src, dst, send.bytes, [this, g, r, peer = send.dst, step, message] { OnMessageDone(g, r, peer, step, message); });
    m_posting = false;
  }
}

void
CollectiveWorkload::Advance(uint32_t g, uint32_t r)
{
  Group& group = m_groups[g];
  Rank& rank = group.ranks[r];
  const CollectiveAlgorithm& algorithm = *group.algorithm;
  while (rank.sendsPending == 0 && rank.received == algorithm.ReceiveCount(r, rank.step))
  {
    if (++rank.step == algorithm.Steps())
    {
      if (++group.ranksDone == group.ranks.size())
      {
        EndIteration(g);
      }
      return;
    }
    EnterStep(g, r);
  }
}

void
CollectiveWorkload::OnMessageDone(uint32_t g, uint32_t src, uint32_t dst, uint32_t step, std::size_t message)
{
  // A completion from inside Send would re-enter EnterStep halfway through its loop.
  NS_ABORT_MSG_IF(m_posting,
                  "CollectiveWorkload " << m_name << ": the message service completed a message inside Send");
  m_messages[message].done = ns3::Simulator::Now();
  Group& group = m_groups[g];
  // The sender is still in `step`: it cannot leave a step before its sends are done.
  --group.ranks[src].sendsPending;
  Rank& receiver = group.ranks[dst];
  const bool receiverWaits = receiver.step == step;
  if (receiverWaits)
  {
    ++receiver.received;
  }
  else
  {
    // The receiver is behind (a faster peer is already a step ahead): keep the count until it
    // gets there.
    auto it = std::find_if(receiver.early.begin(),
                           receiver.early.end(),
                           [step](const std::pair<uint32_t, uint32_t>& e) { return e.first == step; });
    if (it == receiver.early.end())
    {
      receiver.early.emplace_back(step, 1);
    }
    else
    {
      ++it->second;
    }
  }
  Advance(g, src);
  if (receiverWaits)
  {
    Advance(g, dst);
  }
}

void
CollectiveWorkload::EndIteration(uint32_t g)
{
  Group& group = m_groups[g];
  CollectiveRecord& record = m_collectives[group.record];
  record.end = ns3::Simulator::Now();
  if (m_countGpuIdle)
  {
    // Compute happens only between iterations, so every rank of the group waits on the network
    // for the whole iteration, including the ranks that finished their own part early.
    m_gpuIdle += ns3::TimeStep((record.end - record.start).GetTimeStep() * int64_t(group.gpus.size()));
  }
  if (++group.iteration == m_iterations)
  {
    ++m_groupsDone;
    return;
  }
  // Scheduled even for zero compute, so that an iteration never begins inside the completion of
  // the previous one's last message.
  ns3::Simulator::Schedule(m_compute, &CollectiveWorkload::BeginIteration, this, g);
}

std::unique_ptr<CollectiveAlgorithm>
MakeRingAllReduce(uint32_t ranks, uint64_t bytes)
{
  return std::make_unique<RingAllReduce>(ranks, bytes);
}

std::unique_ptr<CollectiveAlgorithm>
MakeHalvingDoublingAllReduce(uint32_t ranks, uint64_t bytes)
{
  return std::make_unique<HalvingDoublingAllReduce>(ranks, bytes);
}

std::unique_ptr<CollectiveAlgorithm>
MakeAllToAll(uint32_t ranks, uint64_t bytes, bool pairwise)
{
  return std::make_unique<AllToAll>(ranks, bytes, pairwise);
}

} // namespace mrcsim
