#include "models/mrc/random-ev-selector.h"

#include "models/engine/splitmix.h"

#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RandomEvSelector");

NS_OBJECT_ENSURE_REGISTERED(RandomEvSelector);

TypeId
RandomEvSelector::GetTypeId()
{
  static TypeId tid = TypeId("ns3::RandomEvSelector").SetParent<EvSelector>().AddConstructor<RandomEvSelector>();
  return tid;
}

RandomEvSelector::RandomEvSelector()
  : m_rng(SplitMixSeed(RngSeedManager::GetSeed(), RngSeedManager::GetRun(), 0xE5E1EC70))
{
}

void
RandomEvSelector::SetStream(uint64_t stream)
{
  uint64_t id = stream;
  m_rng = SplitMixSeed(RngSeedManager::GetSeed(), RngSeedManager::GetRun(), 0xE5E1EC70 ^ SplitMix64(id));
}

int
RandomEvSelector::Select(MrcEvStates& evs, MrcEvIds candidates, int port)
{
  const size_t n = candidates.size();
  if (n == 0)
  {
    return -1;
  }
  // A few draws find a GOOD EV when most are; then fall back to a scan.
  for (int tries = 0; tries < 4; ++tries)
  {
    const uint16_t id = candidates[SplitMix64(m_rng) % n];
    const EvState ev = evs[id];
    if (ev == EvState::Skip)
    {
      Recover(evs, id);
      continue;
    }
    if (ev == EvState::Good)
    {
      return id;
    }
  }
  for (uint16_t c : candidates)
  {
    if (evs[c] == EvState::Good)
    {
      return c;
    }
  }
  NS_LOG_LOGIC("no GOOD EV among " << n << " on NIC port " << port);
  return -1;
}

} // namespace ns3
