#include "models/mrc/penalty-ev-selector.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PenaltyEvSelector");

NS_OBJECT_ENSURE_REGISTERED(PenaltyEvSelector);

TypeId
PenaltyEvSelector::GetTypeId()
{
  static TypeId tid = TypeId("ns3::PenaltyEvSelector")
                        .SetParent<EvSelector>()
                        .AddConstructor<PenaltyEvSelector>()
                        .AddAttribute("HalfLife",
                                      "Time for an EV's penalty to halve.",
                                      TimeValue(MicroSeconds(20)),
                                      MakeTimeAccessor(&PenaltyEvSelector::m_halfLife),
                                      MakeTimeChecker(NanoSeconds(1)));
  return tid;
}

PenaltyEvSelector::PenaltyEvSelector() = default;

double
PenaltyEvSelector::Current(uint16_t id) const
{
  if (id >= m_penalty.size() || m_penalty[id].value == 0)
  {
    return 0;
  }
  const Penalty& p = m_penalty[id];
  double halves = (Simulator::Now() - p.at).GetSeconds() / m_halfLife.GetSeconds();
  return p.value * std::exp2(-halves);
}

void
PenaltyEvSelector::OnFeedback(uint16_t id, EvFeedback feedback)
{
  static const double weight[] = { 0, 1, 4, 16 }; // Acked, Ecn, Trim, Loss
  double add = weight[static_cast<int>(feedback)];
  if (add == 0)
  {
    return;
  }
  const double value = Current(id) + add;
  NS_LOG_LOGIC("EV " << id << " penalty " << value);
  if (id >= m_penalty.size())
  {
    m_penalty.resize(id + 1);
  }
  m_penalty[id] = Penalty{ value, Simulator::Now() };
}

int
PenaltyEvSelector::Select(MrcEvStates& evs, MrcEvIds candidates, int port)
{
  if (static_cast<int>(m_next.size()) <= port)
  {
    m_next.resize(port + 1, 0);
  }
  const size_t n = candidates.size();
  int best = -1;
  double bestPenalty = 0;
  size_t bestK = 0;
  // Two rotations at most: when every EV was SKIP, the first one makes them GOOD again.
  for (size_t i = 0; i < 2 * n && (best < 0 || i < n); ++i)
  {
    size_t k = (m_next[port] + i) % n;
    const EvState ev = evs[candidates[k]];
    if (ev == EvState::Skip)
    {
      Recover(evs, candidates[k]);
      continue;
    }
    if (ev != EvState::Good)
    {
      continue;
    }
    double p = Current(candidates[k]);
    if (best < 0 || p < bestPenalty)
    {
      best = candidates[k];
      bestPenalty = p;
      bestK = k;
      if (p == 0)
      {
        break;
      }
    }
  }
  if (best >= 0)
  {
    m_next[port] = static_cast<uint16_t>((bestK + 1) % n);
  }
  else
  {
    NS_LOG_LOGIC("no GOOD EV among " << n << " on NIC port " << port);
  }
  return best;
}

} // namespace ns3
