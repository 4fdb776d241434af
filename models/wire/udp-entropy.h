// Entropy in the UDP source port: how a path choice (an MRC EV, a RoCEv2 QP's fixed entropy)
// travels in the RoCEv2 UDP header (destination port 4791), which ECMP switches hash.
#ifndef MRCSIM_MODELS_UDP_ENTROPY_H
#define MRCSIM_MODELS_UDP_ENTROPY_H

#include <cstdint>

namespace ns3
{

/// \brief The one mapping between an EV index and the UDP source port that carries it: the data
/// packets on the EV (in both path modes; ECMP switches hash it in entropy mode) and the SACKs and
/// NACKs that answer them. The top two bits are set (ports 0xC000 to 0xFFFF, the dynamic range);
/// the low 14 carry the index, so a QP has at most 16384 EVs. Other UDP source ports that stand
/// for a path (a RoCEv2 QP's fixed entropy) take the same form.
struct EvEntropy
{
  static constexpr uint16_t kBase = 0xC000;   ///< the UDP source port of EV 0
  static constexpr uint16_t kEvMask = 0x3FFF; ///< the bits that carry the EV index
  /// \brief The UDP source port that carries EV `ev` (below 16384).
  static constexpr uint16_t Encode(uint16_t ev) { return static_cast<uint16_t>(kBase | ev); }
  /// \brief The EV index that UDP source port `port` carries.
  static constexpr uint16_t Decode(uint16_t port) { return static_cast<uint16_t>(port & kEvMask); }
};

} // namespace ns3

#endif
