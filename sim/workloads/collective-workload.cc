#include "sim/workloads/collective-workload.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <map>
#include <type_traits>
#include <unordered_map>

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
/// gathered (an all-reduce; a reduce-scatter or an all-gather is one of the two halves). The chunks
/// differ by at most one byte (rather than the last one taking the whole remainder). Pipelined,
/// ring step s is `slices` steps of the schedule: in step s x slices + k a rank sends slice k of
/// its chunk's share on every channel, which needs slice k of ring step s - 1, received `slices`
/// steps earlier (the lag). Chunks are named by ring position, so that each channel's ring may
/// order the ranks its own way (RingLayout).
class Ring : public CollectiveAlgorithm
{
public:
  Ring(RingCollective kind, uint32_t ranks, uint64_t bytes, const RingPipeline& pipeline, RingLayout layout)
    : m_kind(kind)
    , m_n(ranks)
    , m_bytes(bytes)
    , m_channels(pipeline.enabled ? pipeline.channels : 1)
    , m_window(pipeline.enabled ? (pipeline.slots - 1) * m_channels : 0)
    , m_layout(std::move(layout))
  {
    NS_ABORT_MSG_IF(pipeline.enabled && (pipeline.channels == 0 || pipeline.chunkBytes == 0 || pipeline.slots == 0),
                    "Ring: channels, chunk bytes and slots must be positive");
    const uint64_t share = CeilDiv(CeilDiv(std::max<uint64_t>(1, m_bytes), m_n), m_channels);
    m_slices = pipeline.enabled ? static_cast<uint32_t>(CeilDiv(share, pipeline.chunkBytes)) : 1;
    m_position.resize(m_layout.order.size());
    for (std::size_t c = 0; c < m_layout.order.size(); ++c)
    {
      NS_ABORT_MSG_IF(m_layout.order[c].size() != m_n, "Ring: channel " << c << "'s order is not of " << m_n << " ranks");
      m_position[c].assign(m_n, m_n);
      for (uint32_t p = 0; p < m_n; ++p)
      {
        NS_ABORT_MSG_IF(m_layout.order[c][p] >= m_n || m_position[c][m_layout.order[c][p]] != m_n,
                        "Ring: channel " << c << "'s order does not list every rank once");
        m_position[c][m_layout.order[c][p]] = p;
      }
    }
  }
  const char* Name() const override
  {
    switch (m_kind)
    {
    case RingCollective::ReduceScatter:
      return "ring_reducescatter";
    case RingCollective::AllGather:
      return "ring_allgather";
    default:
      return "ring_allreduce";
    }
  }
  uint64_t RecordBytes() const override { return m_bytes; }
  double BusFactor() const override { return (m_kind == RingCollective::AllReduce ? 2.0 : 1.0) * (m_n - 1) / m_n; }
  uint32_t Ranks() const override { return m_n; }
  uint32_t Steps() const override
  {
    return m_n < 2 ? 0 : (m_kind == RingCollective::AllReduce ? 2 : 1) * (m_n - 1) * m_slices;
  }
  uint32_t SendCount(uint32_t, uint32_t) const override { return m_channels; }
  Send SendAt(uint32_t rank, uint32_t step, uint32_t channel) const override
  {
    // Reduce-scatter step s: position p passes on chunk p-s, which it has just reduced. All-gather
    // step j: it passes on chunk p+1-j, the complete chunk it received last (its own, p+1, first).
    const std::size_t layout = m_position.empty() ? 0 : channel % m_position.size();
    const uint32_t p = m_position.empty() ? rank : m_position[layout][rank];
    uint32_t s = step / m_slices;
    if (m_kind == RingCollective::AllGather)
      s += m_n - 1;
    const uint32_t chunk = s < m_n - 1 ? (p + m_n - s) % m_n : (p + 1 + m_n - (s - (m_n - 1))) % m_n;
    const uint64_t share = Split(ChunkBytes(chunk), m_channels, channel);
    const uint32_t next = (p + 1) % m_n;
    Send send{ m_position.empty() ? next : m_layout.order[layout][next], Split(share, m_slices, step % m_slices) };
    if (!m_layout.via.empty())
      send.via = m_layout.via[channel % m_layout.via.size()][p];
    return send;
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

  RingCollective m_kind;
  uint32_t m_n;
  uint64_t m_bytes;
  uint32_t m_channels;
  uint32_t m_window;
  uint32_t m_slices = 1;
  RingLayout m_layout;
  std::vector<std::vector<uint32_t>> m_position; ///< per layout channel: rank -> position
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
  /// With PXN: `gpus` by rank, relayed through the sender's domain GPU on the destination's rail.
  AllToAll(uint32_t ranks, uint64_t bytes, bool pairwise, const std::vector<uint32_t>& gpus, const ScaleUpSpec& scaleUp)
    : AllToAll(ranks, bytes, pairwise)
  {
    NS_ABORT_MSG_IF(gpus.size() != ranks || !scaleUp.Enabled(), "AllToAll: PXN needs the group's GPUs and domains");
    m_gpus = gpus;
    m_scaleUp = scaleUp;
    for (uint32_t r = 0; r < ranks; ++r)
      m_rankOf.emplace(gpus[r], r);
  }
  const char* Name() const override { return "all_to_all"; }
  uint64_t RecordBytes() const override { return uint64_t(m_n) * m_bytes; }
  double BusFactor() const override { return double(m_n - 1) / m_n; }
  uint32_t Ranks() const override { return m_n; }
  uint64_t IterationBytes() const override { return uint64_t(m_n) * (m_n - 1) * m_bytes; }
  uint32_t Steps() const override { return m_pairwise ? m_n - 1 : 1; }
  uint32_t SendCount(uint32_t, uint32_t) const override { return m_pairwise ? 1 : m_n - 1; }
  Send SendAt(uint32_t rank, uint32_t step, uint32_t index) const override
  {
    Send send{ (rank + 1 + (m_pairwise ? step : index)) % m_n, m_bytes };
    if (!m_gpus.empty())
      send.via = Relay(rank, send.dst);
    return send;
  }
  uint32_t ReceiveCount(uint32_t, uint32_t) const override { return m_pairwise ? 1 : m_n - 1; }

private:
  /// The rank on the sender's domain with the destination's local rank, if it is another rank of
  /// the group and the destination is in another domain; else -1 (direct).
  int32_t Relay(uint32_t src, uint32_t dst) const
  {
    const uint32_t s = m_gpus[src];
    const uint32_t d = m_gpus[dst];
    if (m_scaleUp.SameDomain(s, d))
      return -1;
    const uint32_t rail = m_scaleUp.DomainOf(s) * m_scaleUp.gpusPerDomain + m_scaleUp.LocalRank(d);
    if (rail == s)
      return -1;
    const auto it = m_rankOf.find(rail);
    return it == m_rankOf.end() ? -1 : static_cast<int32_t>(it->second);
  }

  uint32_t m_n;
  uint64_t m_bytes;
  bool m_pairwise;
  std::vector<uint32_t> m_gpus; ///< by rank; empty: no PXN
  ScaleUpSpec m_scaleUp;
  std::unordered_map<uint32_t, uint32_t> m_rankOf;
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
  MapGpus();
  if (iterations == 0)
  {
    m_groupsDone = m_groups.size();
  }
}

void
CollectiveWorkload::MapGpus()
{
  for (uint32_t g = 0; g < m_groups.size(); ++g)
  {
    for (uint32_t r = 0; r < m_groups[g].gpus.size(); ++r)
    {
      const uint32_t gpu = m_groups[g].gpus[r];
      if (gpu >= m_groupOf.size())
      {
        m_groupOf.resize(std::size_t(gpu) + 1, UINT32_MAX);
        m_rankOf.resize(std::size_t(gpu) + 1, UINT32_MAX);
      }
      if (m_groupOf[gpu] != UINT32_MAX)
      {
        // A GPU in two places: its record would not say which; completions carry it all.
        m_groupOf = {};
        m_rankOf = {};
        return;
      }
      m_groupOf[gpu] = g;
      m_rankOf[gpu] = r;
    }
  }
}

std::function<void()>
CollectiveWorkload::CompactDone(uint32_t step, std::size_t message)
{
  if (m_groupOf.empty() || message >> kTagMessageBits != 0 || step >> (64 - kTagMessageBits) != 0)
    return nullptr;
  const uint64_t tag = (uint64_t(step) << kTagMessageBits) | message;
  auto done = [this, tag]
  {
    const std::size_t index = tag & ((uint64_t(1) << kTagMessageBits) - 1);
    const MessageRecord& record = m_messages[index];
    OnMessageDone(m_groupOf[record.src], m_rankOf[record.src], m_rankOf[record.dst], tag >> kTagMessageBits, index);
  };
  static_assert(sizeof(done) <= 16 && std::is_trivially_copyable_v<decltype(done)>,
                "held inside std::function (libstdc++: 16 bytes, trivially copyable)");
  return done;
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
    const bool relayed = send.via >= 0;
    const uint32_t via = relayed ? group.gpus[send.via] : dst;
    const double idealS = relayed ? m_ideal.MessageTime(src, via, send.bytes) + m_ideal.MessageTime(via, dst, send.bytes)
                                  : m_ideal.MessageTime(src, dst, send.bytes);
    const std::size_t message = RecordMessage(src, dst, send.bytes, idealS);
    m_bytesPosted += send.bytes;
    m_posting = true;
    std::function<void()> done = CompactDone(step, message);
    if (!done)
      done = [this, g, r, peer = send.dst, step, message] { OnMessageDone(g, r, peer, step, message); };
    if (relayed)
      m_service->SendVia(src, via, dst, send.bytes, std::move(done));
    else
      m_service->Send(src, dst, send.bytes, std::move(done));
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
  // Scale-up domains: bytes each rank's scale-up port sent and received (first legs out of the
  // sender, last legs into the receiver), and what every rank's NIC and scale-up port carried in
  // all, relayed legs included (bounds on the iteration's end: a relayed leg's time is the
  // sender's, not the relay's).
  const bool domains = m_ideal.scaleUp.Enabled();
  std::vector<uint64_t> upOut(domains ? n : 0, 0);
  std::vector<uint64_t> upIn(domains ? n : 0, 0);
  std::vector<uint64_t> allNicOut(domains ? n : 0, 0);
  std::vector<uint64_t> allNicIn(domains ? n : 0, 0);
  std::vector<uint64_t> allUpOut(domains ? n : 0, 0);
  std::vector<uint64_t> allUpIn(domains ? n : 0, 0);
  for (uint32_t t = 0; t < steps; ++t)
  {
    const std::size_t slot = t % keep;
    for (uint32_t r = 0; r < n && t > 0; ++r)
    {
      // Entering step t: the receives through step t - keep, and without a window, its sends;
      // then the compute before it, if any.
      if (t >= keep)
      {
        enter[r] = std::max(enter[r], received[std::size_t(r) * keep + slot]);
      }
      if (sendsGate)
      {
        enter[r] = std::max(enter[r], sendsDone[r]);
      }
      const ns3::Time compute = algorithm.ComputeBefore(r, t);
      if (compute.IsStrictlyPositive())
      {
        enter[r] += compute.GetSeconds();
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
        double done = enter[r];
        if (!domains)
        {
          done += m_ideal.MessageTime(src, dst, send.bytes);
          const uint64_t last = m_ideal.LastPacketPayload(send.bytes);
          bytesOut[r] += send.bytes;
          bytesIn[send.dst] += send.bytes;
          smallestOut[r] = std::min(smallestOut[r], last);
          smallestIn[send.dst] = std::min(smallestIn[send.dst], last);
        }
        else
        {
          // One leg, or two through the relay; each on the scale-up domain or on the NICs.
          const uint32_t hop = send.via >= 0 ? static_cast<uint32_t>(send.via) : send.dst;
          const std::pair<uint32_t, uint32_t> legs[2] = { { r, hop }, { hop, send.dst } };
          const std::size_t count = send.via >= 0 ? 2 : 1;
          for (std::size_t l = 0; l < count; ++l)
          {
            const auto [a, b] = legs[l];
            const uint32_t ga = group.gpus[a];
            const uint32_t gb = group.gpus[b];
            done += m_ideal.MessageTime(ga, gb, send.bytes);
            const bool up = m_ideal.SameDomain(ga, gb);
            (up ? allUpOut : allNicOut)[a] += send.bytes;
            (up ? allUpIn : allNicIn)[b] += send.bytes;
            if (l == 0)
            {
              if (up)
                upOut[a] += send.bytes;
              else
              {
                bytesOut[a] += send.bytes;
                smallestOut[a] = std::min(smallestOut[a], m_ideal.LastPacketPayload(send.bytes));
              }
            }
            if (l + 1 == count)
            {
              if (up)
                upIn[b] += send.bytes;
              else
              {
                bytesIn[b] += send.bytes;
                smallestIn[b] = std::min(smallestIn[b], m_ideal.LastPacketPayload(send.bytes));
              }
            }
          }
        }
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
      // Nor any GPU's scale-up port faster than the domain's per-GPU rate.
      if (domains && upOut[r] > 0)
      {
        sendsDone[r] = std::max(sendsDone[r], m_ideal.ScaleUpSerialisationS(upOut[r]) + m_ideal.ScaleUpLatencyS());
      }
      if (domains && upIn[r] > 0)
      {
        double& in = received[std::size_t(r) * keep + slot];
        in = std::max(in, m_ideal.ScaleUpSerialisationS(upIn[r]) + m_ideal.ScaleUpLatencyS());
      }
    }
  }
  double end = 0;
  for (uint32_t r = 0; r < n; ++r)
  {
    end = std::max({ end, sendsDone[r], steps > 0 ? received[std::size_t(r) * keep + (steps - 1) % keep] : 0.0 });
  }
  for (uint32_t r = 0; domains && r < n; ++r)
  {
    // Every byte a GPU's NIC or scale-up port carried, relayed ones included, by the end.
    for (const uint64_t nic : { allNicOut[r], allNicIn[r] })
      if (nic > 0)
        end = std::max(end, m_ideal.SerialisationS(nic) + nearest(0));
    for (const uint64_t up : { allUpOut[r], allUpIn[r] })
      if (up > 0)
        end = std::max(end, m_ideal.ScaleUpSerialisationS(up) + m_ideal.ScaleUpLatencyS());
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
    if (rank.computing)
    {
      return;
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
    const ns3::Time compute = algorithm.ComputeBefore(r, rank.step);
    if (compute.IsStrictlyPositive())
    {
      rank.computing = true;
      ns3::Simulator::Schedule(compute,
                               [this, g, r]
                               {
                                 m_groups[g].ranks[r].computing = false;
                                 EnterStep(g, r);
                                 Advance(g, r);
                               });
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
    const ns3::Time waited = record.end - record.start - group.algorithm->IterationCompute();
    m_gpuIdle += ns3::TimeStep(waited.GetTimeStep() * int64_t(group.gpus.size()));
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
  return std::make_unique<Ring>(RingCollective::AllReduce, ranks, bytes, pipeline, RingLayout{});
}

std::unique_ptr<CollectiveAlgorithm>
MakeRing(RingCollective kind, uint32_t ranks, uint64_t bytes, const RingPipeline& pipeline, RingLayout layout)
{
  return std::make_unique<Ring>(kind, ranks, bytes, pipeline, std::move(layout));
}

RingLayout
DomainRingLayout(const std::vector<uint32_t>& gpus, const ScaleUpSpec& scaleUp, uint32_t channels)
{
  RingLayout layout;
  if (!scaleUp.Enabled() || gpus.empty())
    return layout;
  // The group's ranks by domain (domains in order of first appearance), by local rank within one.
  std::map<uint32_t, std::size_t> blockOf;
  std::vector<std::vector<uint32_t>> blocks;
  for (uint32_t r = 0; r < gpus.size(); ++r)
  {
    const auto [it, added] = blockOf.emplace(scaleUp.DomainOf(gpus[r]), blocks.size());
    if (added)
      blocks.emplace_back();
    blocks[it->second].push_back(r);
  }
  for (auto& block : blocks)
    std::stable_sort(block.begin(), block.end(), [&](uint32_t a, uint32_t b)
                     { return scaleUp.LocalRank(gpus[a]) < scaleUp.LocalRank(gpus[b]); });
  const std::size_t k = blocks[0].size();
  const bool even = std::all_of(blocks.begin(), blocks.end(), [k](const auto& b) { return b.size() == k; });
  if (!even || k == 1 || blocks.size() == 1)
  {
    // One order for every channel: whole domains one after the other, nothing relayed.
    std::vector<uint32_t> order;
    for (const auto& block : blocks)
      order.insert(order.end(), block.begin(), block.end());
    layout.order.push_back(std::move(order));
    return layout;
  }
  // One order per channel up to k (channel c uses NIC c mod k; channels beyond k repeat them).
  const std::size_t distinct = std::min<std::size_t>(std::max<uint32_t>(channels, 1), k);
  for (std::size_t c = 0; c < distinct; ++c)
  {
    std::vector<uint32_t> order;
    std::vector<int32_t> via;
    for (const auto& block : blocks)
    {
      for (std::size_t i = 0; i < k; ++i)
      {
        order.push_back(block[(c + i) % k]);
        // The hop out of the domain: relayed by the channel's entry GPU of this domain.
        via.push_back(i + 1 == k ? static_cast<int32_t>(block[c]) : -1);
      }
    }
    layout.order.push_back(std::move(order));
    layout.via.push_back(std::move(via));
  }
  return layout;
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

std::unique_ptr<CollectiveAlgorithm>
MakeAllToAllPxn(uint32_t ranks,
                uint64_t bytes,
                bool pairwise,
                const std::vector<uint32_t>& gpus,
                const ScaleUpSpec& scaleUp)
{
  return std::make_unique<AllToAll>(ranks, bytes, pairwise, gpus, scaleUp);
}

} // namespace mrcsim
