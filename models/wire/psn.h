// 24-bit packet sequence number (PSN) arithmetic shared by RoCEv2 (BTH PSN) and MRC (SACK, NACK).
// Models serial-number comparison modulo 2^24 (RFC 1982 style); it does not track PSN windows or
// epochs, which belong to the queue pair.
#ifndef MRCSIM_MODELS_PSN_H
#define MRCSIM_MODELS_PSN_H

#include <cstdint>

namespace ns3
{

/// \brief Number of bits in a PSN.
constexpr uint32_t kPsnBits = 24;
/// \brief Mask of the valid PSN bits (0xFFFFFF).
constexpr uint32_t kPsnMask = (1u << kPsnBits) - 1;
/// \brief Half the PSN space: two PSNs further apart than this cannot be ordered.
constexpr uint32_t kPsnHalfRange = 1u << (kPsnBits - 1);

/// \brief True when \p psn fits in 24 bits.
inline constexpr bool
IsValidPsn(uint32_t psn)
{
  return psn <= kPsnMask;
}

/// \brief \p psn + \p delta modulo 2^24 (\p delta may be negative).
inline constexpr uint32_t
PsnAdd(uint32_t psn, int64_t delta)
{
  return static_cast<uint32_t>((static_cast<int64_t>(psn) + delta) & kPsnMask);
}

/// \brief Signed distance a - b modulo 2^24, in [-2^23, 2^23).
///
/// PsnDiff(0x000002, 0xFFFFFE) == 4 and PsnDiff(0xFFFFFE, 0x000002) == -4.
inline constexpr int32_t
PsnDiff(uint32_t a, uint32_t b)
{
  // Sign-extend the 24-bit difference.
  uint32_t d = (a - b) & kPsnMask;
  return d >= kPsnHalfRange ? static_cast<int32_t>(d) - static_cast<int32_t>(1u << kPsnBits) : static_cast<int32_t>(d);
}

/// \brief True when \p a comes before \p b in 24-bit serial order.
inline constexpr bool
PsnLess(uint32_t a, uint32_t b)
{
  return PsnDiff(a, b) < 0;
}

/// \brief True when \p a equals or comes before \p b in 24-bit serial order.
inline constexpr bool
PsnLessOrEqual(uint32_t a, uint32_t b)
{
  return PsnDiff(a, b) <= 0;
}

} // namespace ns3

#endif // MRCSIM_MODELS_PSN_H
