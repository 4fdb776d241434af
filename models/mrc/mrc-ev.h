// An MRC entropy value (EV): one path of a queue pair, in one plane, and its health. In SRv6
// mode the EV is a uSID path (the topology's path function with a path index); in entropy mode
// it is a UDP source port that switches hash with ECMP.
#ifndef MRCSIM_MODELS_MRC_EV_H
#define MRCSIM_MODELS_MRC_EV_H

#include "models/wire/udp-entropy.h"

#include <cstdint>

namespace ns3
{

/// \brief Health of an EV (docs/MODEL.md): only GOOD EVs carry data.
enum class EvState : uint8_t
{
  Good,       ///< usable
  Skip,       ///< congestion seen (ECN echo, trim): skipped for one rotation, then GOOD
  AssumedBad, ///< a loss without a trim: replaced by a backup of its plane, probed
  Denied,     ///< its plane is unusable (local or remote NIC port down)
};

inline const char*
EvStateName(EvState s)
{
  switch (s)
  {
    case EvState::Good:
      return "GOOD";
    case EvState::Skip:
      return "SKIP";
    case EvState::AssumedBad:
      return "ASSUMED_BAD";
    case EvState::Denied:
      return "DENIED";
  }
  return "?";
}

/// \brief One entropy value of a queue pair. Its SRv6 path is kept by the QP's EV table
/// (MrcEvTable::EvUsids), and so are its NIC port and plane (MrcEvTable::EvPort, EvPlane): a QP's
/// EVs are numbered port by port.
struct MrcEv
{
  // 4 bytes: a QP has 128-256 of them, and a large run thousands of QPs.
  MrcEv() : active(false), usidCount(0) {}
  uint16_t id = 0; ///< index in the QP's EV table (echoed in SACK/NACK)
  EvState state = EvState::Good;
  uint8_t active : 1;    ///< in the spraying set (else a backup, or out for probing)
  uint8_t usidCount : 7; ///< uSIDs of its SRv6 path (0 in entropy mode)

  /// \brief UDP source port (entropy mode; also sent in SRv6 mode): EvEntropy::Encode(id).
  uint16_t Entropy() const { return EvEntropy::Encode(id); }
};

static_assert(sizeof(MrcEv) == 4, "MrcEv: keep the EV table small");

} // namespace ns3

#endif
