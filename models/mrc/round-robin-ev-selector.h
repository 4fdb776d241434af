// Round-robin EV choice: the default MRC policy (docs/MODEL.md).
#ifndef MRCSIM_MODELS_ROUND_ROBIN_EV_SELECTOR_H
#define MRCSIM_MODELS_ROUND_ROBIN_EV_SELECTOR_H

#include "models/mrc/ev-selector.h"

#include <vector>

namespace ns3
{

/// \brief Round-robin over the port's active EVs; a SKIP EV is passed once and becomes GOOD.
class RoundRobinEvSelector : public EvSelector
{
public:
  static TypeId GetTypeId();
  int Select(MrcEvStates& evs, MrcEvIds candidates, int port) override;
  Ptr<EvSelector> Copy() const override { return Ptr<EvSelector>(new RoundRobinEvSelector(*this), false); }

private:
  std::vector<uint16_t> m_next; ///< per NIC port (a port has at most 16384 EVs)
};

} // namespace ns3

#endif
