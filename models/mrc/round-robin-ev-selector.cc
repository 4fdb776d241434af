#include "models/mrc/round-robin-ev-selector.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

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

RoundRobinEvSelector::RoundRobinEvSelector(const RoundRobinEvSelector& o)
  : EvSelector(o),
    m_next(o.m_next),
    m_more(o.m_more ? std::make_unique<uint16_t[]>(kMaxPorts - kInline) : nullptr)
{
  if (m_more)
  {
    std::copy(o.m_more.get(), o.m_more.get() + (kMaxPorts - kInline), m_more.get());
  }
}

uint16_t&
RoundRobinEvSelector::Next(int port)
{
  if (port < kInline)
  {
    return m_next[port];
  }
  NS_ABORT_MSG_IF(port >= kMaxPorts, "RoundRobinEvSelector: NIC port " << port << "; a NIC has at most " << kMaxPorts);
  if (!m_more)
  {
    m_more = std::make_unique<uint16_t[]>(kMaxPorts - kInline); // zeroed
  }
  return m_more[port - kInline];
}

int
RoundRobinEvSelector::Select(MrcEvStates& evs, MrcEvIds candidates, int port)
{
  uint16_t& next = Next(port);
  // Two rotations at most: when every EV was SKIP, the first one makes them GOOD again.
  const size_t n = candidates.size();
  for (size_t i = 0; i < 2 * n; ++i)
  {
    size_t k = (next + i) % n;
    const EvState ev = evs[candidates[k]];
    if (ev == EvState::Skip)
    {
      Recover(evs, candidates[k]); // skipped for this rotation
      continue;
    }
    if (ev == EvState::Good)
    {
      next = static_cast<uint16_t>((k + 1) % n);
      return candidates[k];
    }
  }
  NS_LOG_LOGIC("no GOOD EV among " << n << " on NIC port " << port);
  return -1;
}

} // namespace ns3
