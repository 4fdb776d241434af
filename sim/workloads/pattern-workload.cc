#include "sim/workloads/pattern-workload.h"

#include "ns3/abort.h"

#include <numeric>
#include <utility>

namespace mrcsim
{

namespace
{

class Permutation : public CollectiveAlgorithm
{
public:
  Permutation(uint32_t ranks, uint64_t bytes, uint64_t streamSeed) : m_n(ranks), m_bytes(bytes), m_state(streamSeed)
  {
    NS_ABORT_MSG_IF(ranks < 2, "Permutation: " << ranks << " ranks, a derangement needs at least 2");
  }
  const char* Name() const override { return "permutation"; }
  uint64_t RecordBytes() const override { return m_bytes; }
  double BusFactor() const override { return 1; }
  uint64_t IterationBytes() const override { return uint64_t(m_n) * m_bytes; }
  uint32_t Ranks() const override { return m_n; }
  uint32_t Steps() const override { return 1; }
  uint32_t SendCount(uint32_t, uint32_t) const override { return 1; }
  Send SendAt(uint32_t rank, uint32_t, uint32_t) const override { return { m_perm[rank], m_bytes }; }
  uint32_t ReceiveCount(uint32_t, uint32_t) const override { return 1; }
  void BeginIteration() override { m_perm = DrawDerangement(m_n, m_state); }
  bool Varies() const override { return true; }

private:
  uint32_t m_n;
  uint64_t m_bytes;
  uint64_t m_state;
  std::vector<uint32_t> m_perm;
};

class Incast : public CollectiveAlgorithm
{
public:
  Incast(uint32_t senders, uint64_t bytes) : m_senders(senders), m_bytes(bytes) {}
  const char* Name() const override { return "incast"; }
  uint64_t RecordBytes() const override { return uint64_t(m_senders) * m_bytes; }
  double BusFactor() const override { return 1; }
  uint64_t IterationBytes() const override { return uint64_t(m_senders) * m_bytes; }
  uint32_t Ranks() const override { return m_senders + 1; }
  uint32_t Steps() const override { return 1; }
  uint32_t SendCount(uint32_t rank, uint32_t) const override { return rank == 0 ? 0 : 1; }
  Send SendAt(uint32_t, uint32_t, uint32_t) const override { return { 0, m_bytes }; }
  uint32_t ReceiveCount(uint32_t rank, uint32_t) const override { return rank == 0 ? m_senders : 0; }

private:
  uint32_t m_senders;
  uint64_t m_bytes;
};

} // namespace

std::vector<uint32_t>
DrawDerangement(uint32_t n, uint64_t& state)
{
  NS_ABORT_MSG_IF(n < 2, "DrawDerangement: no derangement of " << n << " elements");
  std::vector<uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  for (;;)
  {
    for (uint32_t i = n - 1; i > 0; --i)
    {
      std::swap(perm[i], perm[UniformBelow(state, uint64_t(i) + 1)]);
    }
    bool fixedPoint = false;
    for (uint32_t i = 0; i < n && !fixedPoint; ++i)
    {
      fixedPoint = perm[i] == i;
    }
    // Rejection keeps the draw uniform over derangements (Sattolo's cycles would not be).
    if (!fixedPoint)
    {
      return perm;
    }
  }
}

std::unique_ptr<CollectiveAlgorithm>
MakePermutation(uint32_t ranks, uint64_t bytes, uint64_t streamSeed)
{
  return std::make_unique<Permutation>(ranks, bytes, streamSeed);
}

std::unique_ptr<CollectiveAlgorithm>
MakeIncast(uint32_t senders, uint64_t bytes)
{
  return std::make_unique<Incast>(senders, bytes);
}

} // namespace mrcsim
