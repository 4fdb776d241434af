#include "models/mrc/round-robin-ev-selector.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoundRobinEvSelector");

NS_OBJECT_ENSURE_REGISTERED(RoundRobinEvSelector);

TypeId
RoundRobinEvSelector::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::RoundRobinEvSelector").SetParent<EvSelector>().AddConstructor<RoundRobinEvSelector>();
  return tid;
}

int
RoundRobinEvSelector::Select(MrcEvStates& evs, MrcEvIds candidates, int port)
{
  if (static_cast<int>(m_next.size()) <= port)
  {
    m_next.resize(port + 1, 0);
  }
  // Two rotations at most: when every EV was SKIP, the first one makes them GOOD again.
  const size_t n = candidates.size();
  for (size_t i = 0; i < 2 * n; ++i)
  {
    size_t k = (m_next[port] + i) % n;
    const EvState ev = evs[candidates[k]];
    if (ev == EvState::Skip)
    {
      Recover(evs, candidates[k]); // skipped for this rotation
      continue;
    }
    if (ev == EvState::Good)
    {
      m_next[port] = static_cast<uint16_t>((k + 1) % n);
      return candidates[k];
    }
  }
  NS_LOG_LOGIC("no GOOD EV among " << n << " on NIC port " << port);
  return -1;
}

} // namespace ns3
