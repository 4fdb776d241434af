// MRC's sequence numbers: both halves of a queue pair count packets in 64 bits and put the low 24
// bits on the wire as the PSN; a PSN read back is unwrapped against a 64-bit reference near it.
// Leaves out PSN windows beyond 2^23 packets from the reference (two PSNs that far apart cannot
// be ordered).
#ifndef MRCSIM_MODELS_MRC_PSN_H
#define MRCSIM_MODELS_MRC_PSN_H

#include "models/wire/psn.h"

#include <cstdint>

namespace ns3
{

/// \brief The 64-bit sequence number nearest `reference` whose low 24 bits are `psn` (0 if that
/// would be negative).
inline uint64_t
MrcUnwrapPsn(uint32_t psn, uint64_t reference)
{
  int64_t s = int64_t(reference) + PsnDiff(psn, static_cast<uint32_t>(reference & kPsnMask));
  return s < 0 ? 0 : uint64_t(s);
}

} // namespace ns3

#endif
