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
/// remainder). Pipelined, ring step s is `slices` steps of the schedule: in step s x slices + k a
/// rank sends slice k of its chunk's share on every channel, which needs slice k of ring step
/// s - 1, received `slices` steps earlier (the lag).
class RingAllReduce : public CollectiveAlgorithm
{
public:
  RingAllReduce(uint32_t ranks, uint64_t bytes, const RingPipeline& pipeline)
    : m_n(ranks)
    , m_bytes(bytes)
    , m_channels(pipeline.enabled ? pipeline.channels : 1)
    , m_window(pipeline.enabled ? (pipeline.slots - 1) * m_channels : 0)
  {
    NS_ABORT_MSG_IF(pipeline.enabled && (pipeline.channels == 0 || pipeline.chunkBytes == 0 || pipeline.slots == 0),
                    "RingAllReduce: channels, chunk bytes and slots must be positive");
    const uint64_t share = CeilDiv(CeilDiv(std::max<uint64_t>(1, m_bytes), m_n), m_channels);
    m_slices = pipeline.enabled ? static_cast<uint32_t>(CeilDiv(share, pipeline.chunkBytes)) : 1;
  }
  const char* Name() const override { return "ring_allreduce"; }
  uint64_t RecordBytes() const override { return m_bytes; }
  double BusFactor() const override { return 2.0 * (m_n - 1) / m_n; }
  uint32_t Ranks() const override { return m_n; }
  uint32_t Steps() const override { return m_n < 2 ? 0 : 2 * (m_n - 1) * m_slices; }
  uint32_t SendCount(uint32_t, uint32_t) const override { return m_channels; }
  Send SendAt(uint32_t rank, uint32_t step, uint32_t channel) const override
  {
    // Reduce-scatter step s: rank r passes on chunk r-s, which it has just reduced. All-gather
    // step j: it passes on chunk r+1-j, the complete chunk it received last (its own, r+1, first).
    const uint32_t s = step / m_slices;
    const uint32_t chunk = s < m_n - 1 ? (rank + m_n - s) % m_n : (rank + 1 + m_n - (s - (m_n - 1))) % m_n;
    const uint64_t share = Split(ChunkBytes(chunk), m_channels, channel);
    return { (rank + 1) % m_n, Split(share, m_slices, step % m_slices) };
  }
  uint32_t ReceiveCount(uint32_t, uint32_t) const override { return m_channels; }
  uint32_t ReceiveLag() const override { return m_slices - 1; }
  uint32_t SendWindow() const override { return m_window; }

private:
  /// Part `i` of `bytes` cut in `parts` differing by at most one byte, at least one byte.
  static uint64_t Split(uint64_t bytes, uint64_t parts, uint64_t i)
  {
    return std::max<uint64_t>(1, bytes / parts + (i < bytes % parts ? 1 : 0));
  }
  uint64_t ChunkBytes(uint32_t chunk) const { return Split(m_bytes, m_n, chunk); }

  uint32_t m_n;
  uint64_t m_bytes;
  uint32_t m_channels;
  uint32_t m_window;
  uint32_t m_slices = 1;
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
  if (group.idealS < 0 || algorithm.Varies())
  {
    group.idealS = IdealOf(group);
  }
  record.idealS = group.idealS;
  record.busFactor = algorithm.BusFactor();
  group.record = m_collectives.size();
  m_collectives.push_back(std::move(record));

  group.ranksDone = 0;
  for (Rank& rank : group.ranks)
  {
    rank = Rank{};
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
  const uint32_t step = rank.step;
  const uint32_t sends = group.algorithm->SendCount(r, step);
  rank.sendsPending += sends;
  for (uint32_t i = 0; i < sends; ++i)
  {
    const CollectiveAlgorithm::Send send = group.algorithm->SendAt(r, step, i);
    const uint32_t src = group.gpus[r];
    const uint32_t dst = group.gpus[send.dst];
    const std::size_t message = RecordMessage(src, dst, send.bytes, m_ideal.MessageTime(src, dst, send.bytes));
    m_bytesPosted += send.bytes;
    m_posting = true;
    m_service->Send(
      src, dst, send.bytes, [this, g, r, peer = send.dst, step, message] { OnMessageDone(g, r, peer, step, message); });
    m_posting = false;
  }
}

double
CollectiveWorkload::IdealOf(const Group& group) const
{
  const CollectiveAlgorithm& algorithm = *group.algorithm;
  const uint32_t n = algorithm.Ranks();
  const uint32_t steps = algorithm.Steps();
  const uint32_t keep = algorithm.ReceiveLag() + 1;
  const bool sendsGate = algorithm.SendWindow() == 0;
  // The shortest latency a last packet of `payload` bytes can have, between any two GPUs.
  const auto nearest = [this](uint64_t payload)
  { return m_ideal.paths ? m_ideal.PathLatencyS(1, payload) : m_ideal.baseLatencyS; };
  // Per rank, through the current step: when it may enter it; when all its sends and all its
  // receives so far can be complete (receives kept for `keep` steps, for the lag); the bytes its
  // NIC sent and received, and the smallest last packet among them.
  std::vector<double> enter(n, 0.0);
  std::vector<double> sendsDone(n, 0.0);
  std::vector<double> received(std::size_t(n) * keep, 0.0);
  std::vector<uint64_t> bytesOut(n, 0);
  std::vector<uint64_t> bytesIn(n, 0);
  std::vector<uint64_t> smallestOut(n, UINT64_MAX);
  std::vector<uint64_t> smallestIn(n, UINT64_MAX);
  for (uint32_t t = 0; t < steps; ++t)
  {
    const std::size_t slot = t % keep;
    for (uint32_t r = 0; r < n && t > 0; ++r)
    {
      // Entering step t: the receives through step t - keep, and without a window, its sends.
      if (t >= keep)
      {
        enter[r] = std::max(enter[r], received[std::size_t(r) * keep + slot]);
      }
      if (sendsGate)
      {
        enter[r] = std::max(enter[r], sendsDone[r]);
      }
    }
    for (uint32_t r = 0; r < n; ++r)
    {
      // Receives through step t start from those through step t - 1.
      received[std::size_t(r) * keep + slot] = received[std::size_t(r) * keep + (t + keep - 1) % keep];
    }
    for (uint32_t r = 0; r < n; ++r)
    {
      for (uint32_t i = 0; i < algorithm.SendCount(r, t); ++i)
      {
        const CollectiveAlgorithm::Send send = algorithm.SendAt(r, t, i);
        const uint32_t src = group.gpus[r];
        const uint32_t dst = group.gpus[send.dst];
        const double done = enter[r] + m_ideal.MessageTime(src, dst, send.bytes);
        const uint64_t last = m_ideal.LastPacketPayload(send.bytes);
        bytesOut[r] += send.bytes;
        bytesIn[send.dst] += send.bytes;
        smallestOut[r] = std::min(smallestOut[r], last);
        smallestIn[send.dst] = std::min(smallestIn[send.dst], last);
        sendsDone[r] = std::max(sendsDone[r], done);
        double& in = received[std::size_t(send.dst) * keep + slot];
        in = std::max(in, done);
      }
    }
    // No NIC sends or receives faster than its line rate, from the iteration's start.
    for (uint32_t r = 0; r < n; ++r)
    {
      if (bytesOut[r] > 0)
      {
        sendsDone[r] = std::max(sendsDone[r], m_ideal.SerialisationS(bytesOut[r]) + nearest(smallestOut[r]));
      }
      if (bytesIn[r] > 0)
      {
        double& in = received[std::size_t(r) * keep + slot];
        in = std::max(in, m_ideal.SerialisationS(bytesIn[r]) + nearest(smallestIn[r]));
      }
    }
  }
  double end = 0;
  for (uint32_t r = 0; r < n; ++r)
  {
    end = std::max({ end, sendsDone[r], steps > 0 ? received[std::size_t(r) * keep + (steps - 1) % keep] : 0.0 });
  }
  return end;
}

void
CollectiveWorkload::TakeReceive(Rank& rank, uint32_t step, const CollectiveAlgorithm& algorithm)
{
  if (step == rank.recvStep)
  {
    ++rank.received;
  }
  else
  {
    // Ahead of the first incomplete step (a faster peer, or a pipelined rank): kept until then.
    auto it = std::find_if(rank.early.begin(),
                           rank.early.end(),
                           [step](const std::pair<uint32_t, uint32_t>& e) { return e.first == step; });
    if (it == rank.early.end())
    {
      rank.early.emplace_back(step, 1);
    }
    else
    {
      ++it->second;
    }
  }
}

void
CollectiveWorkload::Advance(uint32_t g, uint32_t r)
{
  Group& group = m_groups[g];
  Rank& rank = group.ranks[r];
  const CollectiveAlgorithm& algorithm = *group.algorithm;
  const uint32_t steps = algorithm.Steps();
  const uint32_t lag = algorithm.ReceiveLag();
  const uint32_t window = algorithm.SendWindow();
  for (;;)
  {
    // Steps whose receives are all in are behind the rank; the next one's early receives count.
    while (rank.recvStep < steps && rank.received == algorithm.ReceiveCount(r, rank.recvStep))
    {
      ++rank.recvStep;
      rank.received = 0;
      for (std::size_t i = 0; i < rank.early.size(); ++i)
      {
        if (rank.early[i].first == rank.recvStep)
        {
          rank.received = rank.early[i].second;
          rank.early[i] = rank.early.back();
          rank.early.pop_back();
          break;
        }
      }
    }
    const bool last = rank.step + 1 == steps;
    // Leaving step t needs the receives of steps up to t - lag (all of them after the last step)
    // and at most `window` sends in flight (none after the last step).
    const bool receivesIn = last ? rank.recvStep == steps : rank.recvStep + lag > rank.step;
    const bool sendsDone = rank.sendsPending <= (last ? 0 : window);
    if (rank.step == steps || !receivesIn || !sendsDone)
    {
      return;
    }
    if (++rank.step == steps)
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
  --group.ranks[src].sendsPending;
  TakeReceive(group.ranks[dst], step, *group.algorithm);
  Advance(g, src);
  if (dst != src)
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
MakeRingAllReduce(uint32_t ranks, uint64_t bytes, const RingPipeline& pipeline)
{
  return std::make_unique<RingAllReduce>(ranks, bytes, pipeline);
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
