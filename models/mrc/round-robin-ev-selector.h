// Round-robin EV choice: the default MRC policy (docs/MODEL.md).
#ifndef MRCSIM_MODELS_ROUND_ROBIN_EV_SELECTOR_H
#define MRCSIM_MODELS_ROUND_ROBIN_EV_SELECTOR_H

#include "models/mrc/ev-selector.h"

#include <array>
#include <memory>

namespace ns3
{

/// \brief Round-robin over the port's active EVs; a SKIP EV is passed once and becomes GOOD.
class RoundRobinEvSelector : public EvSelector
{
public:
  static TypeId GetTypeId();
  RoundRobinEvSelector() = default;
  RoundRobinEvSelector(const RoundRobinEvSelector& o);
  int Select(MrcEvStates& evs, MrcEvIds candidates, int port) override;
  Ptr<EvSelector> Copy() const override { return Ptr<EvSelector>(new RoundRobinEvSelector(*this), false); }

private:
  /// \brief Where port `port`'s round robin goes on (a port has at most 16384 EVs): the first
  /// kInline ports' here, the others' (a NIC has at most 64) in m_more, made at first use. A
  /// large run has millions of selectors; a NIC of 8 planes needs no allocation.
  uint16_t& Next(int port);

  static constexpr int kInline = 8;
  static constexpr int kMaxPorts = 64;
  std::array<uint16_t, kInline> m_next{};
  std::unique_ptr<uint16_t[]> m_more;
};

} // namespace ns3

#endif
