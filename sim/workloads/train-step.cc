#include "sim/workloads/train-step.h"

#include "ns3/abort.h"

#include <algorithm>

namespace mrcsim
{

namespace
{

/// One collective of the step: an algorithm per group over the group's members (ranks of the
/// step), taking steps [offset, offset + steps) of the step's schedule.
struct Phase
{
  std::vector<std::vector<uint32_t>> members; ///< per group: its ranks, by the group's local rank
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms; ///< per group
  std::vector<uint32_t> groupOf;                                ///< per rank
  std::vector<uint32_t> localOf;                                ///< per rank
  uint32_t offset = 0;
  uint32_t steps = 0;
};

class TrainStep : public CollectiveAlgorithm
{
public:
  TrainStep(const TrainStepShape& shape, const std::vector<uint32_t>& gpus, const ScaleUpSpec& scaleUp)
    : m_n(static_cast<uint32_t>(gpus.size()))
    , m_compute(shape.compute)
  {
    const uint32_t tp = shape.tp;
    const uint32_t ep = shape.ep;
    NS_ABORT_MSG_IF(uint64_t(tp) * ep * shape.dp != m_n, "TrainStep: tp x ep x dp must be the GPU count");
    // Group of rank r for each kind: TP consecutive, EP stride tp within a block of tp x ep, DP
    // stride tp x ep.
    auto tpGroup = [tp](uint32_t r) { return r / tp; };
    auto epGroup = [tp, ep](uint32_t r) { return r % tp + tp * (r / (tp * ep)); };
    auto dpGroup = [tp, ep](uint32_t r) { return r % (tp * ep); };
    const RingPipeline whole{ false };
    for (uint32_t layer = 0; layer < shape.layers; ++layer)
    {
      if (tp > 1 && shape.tpBytes > 0)
      {
        Add(gpus, tpGroup, m_n / tp, [&](const std::vector<uint32_t>& g) {
          return MakeRing(RingCollective::AllReduce, tp, shape.tpBytes, whole, DomainRingLayout(g, scaleUp, 1));
        });
      }
      for (int direction = 0; direction < 2 && ep > 1 && shape.a2aBytes > 0; ++direction)
      {
        Add(gpus, epGroup, m_n / ep, [&](const std::vector<uint32_t>&) { return MakeAllToAll(ep, shape.a2aBytes, false); });
      }
    }
    if (shape.dp > 1 && shape.dpBytes > 0)
    {
      Add(gpus, dpGroup, m_n / shape.dp, [&](const std::vector<uint32_t>& g) {
        return MakeRing(RingCollective::AllReduce, shape.dp, shape.dpBytes, whole, DomainRingLayout(g, scaleUp, 1));
      });
    }
    for (uint32_t p = 0; p < m_phases.size(); ++p)
      for (uint32_t s = 0; s < m_phases[p].steps; ++s)
        m_phaseOf.push_back(p);
  }

  const char* Name() const override { return "train_step"; }
  uint64_t RecordBytes() const override { return m_n ? IterationBytes() / m_n : 0; }
  double BusFactor() const override { return 1.0; }
  uint32_t Ranks() const override { return m_n; }
  uint32_t Steps() const override { return static_cast<uint32_t>(m_phaseOf.size()); }
  uint32_t SendCount(uint32_t rank, uint32_t step) const override
  {
    const Phase& p = m_phases[m_phaseOf[step]];
    return p.algorithms[p.groupOf[rank]]->SendCount(p.localOf[rank], step - p.offset);
  }
  Send SendAt(uint32_t rank, uint32_t step, uint32_t index) const override
  {
    const Phase& p = m_phases[m_phaseOf[step]];
    const uint32_t g = p.groupOf[rank];
    Send send = p.algorithms[g]->SendAt(p.localOf[rank], step - p.offset, index);
    send.dst = p.members[g][send.dst];
    if (send.via >= 0)
      send.via = static_cast<int32_t>(p.members[g][send.via]);
    return send;
  }
  uint32_t ReceiveCount(uint32_t rank, uint32_t step) const override
  {
    const Phase& p = m_phases[m_phaseOf[step]];
    return p.algorithms[p.groupOf[rank]]->ReceiveCount(p.localOf[rank], step - p.offset);
  }
  ns3::Time ComputeBefore(uint32_t, uint32_t step) const override
  {
    // Before the first step of every collective but the first.
    return step > 0 && m_phaseOf[step] != m_phaseOf[step - 1] ? m_compute : ns3::Time(0);
  }
  ns3::Time IterationCompute() const override
  {
    return m_phases.empty() ? ns3::Time(0) : ns3::TimeStep(m_compute.GetTimeStep() * int64_t(m_phases.size() - 1));
  }

private:
  /// Adds a collective over the groups `groupOf` makes (`groups` of them), one algorithm each.
  template<class GroupOf, class Make>
  void Add(const std::vector<uint32_t>& gpus, GroupOf groupOf, uint32_t groups, Make make)
  {
    Phase p;
    p.members.resize(groups);
    p.groupOf.resize(m_n);
    p.localOf.resize(m_n);
    for (uint32_t r = 0; r < m_n; ++r)
    {
      const uint32_t g = groupOf(r);
      p.groupOf[r] = g;
      p.localOf[r] = static_cast<uint32_t>(p.members[g].size());
      p.members[g].push_back(r);
    }
    for (const std::vector<uint32_t>& members : p.members)
    {
      std::vector<uint32_t> groupGpus;
      for (uint32_t r : members)
        groupGpus.push_back(gpus[r]);
      p.algorithms.push_back(make(groupGpus));
    }
    // Every group of a collective has the same size, hence the same number of steps.
    p.steps = p.algorithms[0]->Steps();
    p.offset = m_phases.empty() ? 0 : m_phases.back().offset + m_phases.back().steps;
    if (p.steps > 0)
      m_phases.push_back(std::move(p));
  }

  uint32_t m_n;
  ns3::Time m_compute;
  std::vector<Phase> m_phases;
  std::vector<uint32_t> m_phaseOf; ///< per step of the schedule
};

} // namespace

std::unique_ptr<CollectiveAlgorithm>
MakeTrainStep(const TrainStepShape& shape, const std::vector<uint32_t>& gpus, const ScaleUpSpec& scaleUp)
{
  return std::make_unique<TrainStep>(shape, gpus, scaleUp);
}

} // namespace mrcsim
