// Penalty-based EV choice after uet-htsim's multipath penalty schemes.
#ifndef MRCSIM_MODELS_PENALTY_EV_SELECTOR_H
#define MRCSIM_MODELS_PENALTY_EV_SELECTOR_H

#include "models/mrc/ev-selector.h"

#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/// \brief The EV with the lowest penalty (ECN, trim and loss add to it; it halves every
/// HalfLife); ties broken round-robin. After htsim's multipath penalty schemes.
class PenaltyEvSelector : public EvSelector
{
public:
  static TypeId GetTypeId();
  PenaltyEvSelector();
  int Select(MrcEvStates& evs, MrcEvIds candidates, int port) override;
  Ptr<EvSelector> Copy() const override { return Ptr<EvSelector>(new PenaltyEvSelector(*this), false); }
  void OnFeedback(uint16_t id, EvFeedback feedback) override;

private:
  /// Recent bad feedback of one EV, decaying.
  struct Penalty
  {
    double value = 0;
    Time at; ///< when value was last updated
  };
  double Current(uint16_t id) const;
  Time m_halfLife;
  std::vector<uint16_t> m_next; ///< per NIC port (a port has at most 16384 EVs)
  std::vector<Penalty> m_penalty; ///< by EV id, grown on the first feedback
};

} // namespace ns3

#endif
