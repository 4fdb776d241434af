// Uniformly random EV choice: each QP draws its own stream, seeded from the run's seed and run
// number and the QP's stable id (SetStream), so QPs are independent and a rerun repeats them.
#ifndef MRCSIM_MODELS_RANDOM_EV_SELECTOR_H
#define MRCSIM_MODELS_RANDOM_EV_SELECTOR_H

#include "models/mrc/ev-selector.h"

#include <vector>

namespace ns3
{

/// \brief Uniformly random among the port's GOOD EVs (SKIP EVs recover after one draw).
class RandomEvSelector : public EvSelector
{
public:
  static TypeId GetTypeId();
  RandomEvSelector();
  int Select(MrcEvStates& evs, MrcEvIds candidates, int port) override;
  Ptr<EvSelector> Copy() const override { return Ptr<EvSelector>(new RandomEvSelector(*this), false); }
  void SetStream(uint64_t stream) override;

private:
  uint64_t m_rng;
};

} // namespace ns3

#endif
