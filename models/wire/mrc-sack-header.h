// The MRC selective-ACK extension: cumulative ACK PSN, a 64-bit SACK bitmap at an offset, the
// echoed entropy value (EV), an ECN-echo flag and a timestamp field for delay-based congestion
// control. The byte layout is ours (MRC's is not public); field widths follow docs/MODEL.md.
#ifndef MRCSIM_MODELS_MRC_SACK_HEADER_H
#define MRCSIM_MODELS_MRC_SACK_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief MRC selective acknowledgement.
 *
 * Wire layout (24 bytes):
 *  - bytes 0-3:   reserved (8) | cumulative ACK PSN (24): it and every PSN before it arrived
 *  - bytes 4-7:   flags (8, bit 7 = ECN echo) | acked PSN (24): the packet that triggered this SACK
 *  - bytes 8-9:   SACK base offset: bitmap bit 0 is PSN (cumulative ACK + offset) mod 2^24
 *  - bytes 10-11: echoed EV, the entropy value that carried the acked PSN
 *  - bytes 12-19: bitmap, bit i (LSB = bit 0) set when PSN base + i arrived
 *  - bytes 20-23: timestamp echo in ns modulo 2^32: the receive time of the acked PSN at the
 *                 receiver (clocks are synchronised in simulation); the sender's congestion
 *                 controller pairs it with its own per-PSN send time.
 */
class MrcSackHeader : public Header
{
public:
  /// \brief Size of the header in bytes.
  static constexpr uint32_t kSize = 24;
  /// \brief BTH opcode of an MRC SACK (vendor-specific range).
  static constexpr uint8_t kBthOpcode = 0xC0;
  /// \brief Number of PSNs the bitmap covers.
  static constexpr uint32_t kBitmapBits = 64;

  MrcSackHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set the cumulative ACK PSN (inclusive). Aborts if it exceeds 24 bits.
  void SetCumulativeAckPsn(uint32_t psn);
  /// \brief The cumulative ACK PSN.
  uint32_t GetCumulativeAckPsn() const;
  /// \brief Set the PSN whose arrival triggered this SACK. Aborts if it exceeds 24 bits.
  void SetAckedPsn(uint32_t psn);
  /// \brief The PSN whose arrival triggered this SACK.
  uint32_t GetAckedPsn() const;
  /// \brief Set the SACK base offset (bit 0 = cumulative ACK PSN + offset). Default 1.
  void SetSackBaseOffset(uint16_t offset);
  /// \brief The SACK base offset.
  uint16_t GetSackBaseOffset() const;
  /// \brief The PSN of bitmap bit 0.
  uint32_t GetSackBasePsn() const;
  /// \brief Set the raw bitmap.
  void SetBitmap(uint64_t bitmap);
  /// \brief The raw bitmap.
  uint64_t GetBitmap() const;
  /// \brief Set the echoed entropy value.
  void SetEchoedEv(uint16_t ev);
  /// \brief The echoed entropy value.
  uint16_t GetEchoedEv() const;
  /// \brief Set the ECN-echo flag (the acked packet arrived CE-marked).
  void SetEcnEcho(bool ecnEcho);
  /// \brief The ECN-echo flag.
  bool GetEcnEcho() const;
  /// \brief Set the timestamp echo (ns, modulo 2^32).
  void SetTimestampEcho(uint32_t ns);
  /// \brief The timestamp echo (ns, modulo 2^32).
  uint32_t GetTimestampEcho() const;

  /**
   * \brief True when \p psn is acknowledged: at or before the cumulative ACK PSN, or its bit
   * is set. PSNs beyond the bitmap window are not.
   */
  bool IsSacked(uint32_t psn) const;
  /**
   * \brief Mark \p psn received. A PSN already covered by the cumulative ACK is a no-op; one
   * outside [base, base + 64) aborts.
   */
  void SetSacked(uint32_t psn);
  /// \brief later - earlier in ns for two 32-bit wrapping timestamps (valid below ~4.29 s).
  static uint32_t TimestampDelta(uint32_t later, uint32_t earlier);

private:
  uint32_t m_cumulativeAckPsn; //!< inclusive cumulative ACK (24 bits)
  uint32_t m_ackedPsn;         //!< PSN that triggered this SACK (24 bits)
  bool m_ecnEcho;              //!< ECN echo flag
  uint16_t m_sackBaseOffset;   //!< bitmap bit 0 relative to the cumulative ACK
  uint16_t m_echoedEv;         //!< entropy value of the acked PSN
  uint64_t m_bitmap;           //!< SACK bitmap
  uint32_t m_timestampEcho;    //!< receive time, ns mod 2^32
};

} // namespace ns3

#endif // MRCSIM_MODELS_MRC_SACK_HEADER_H
