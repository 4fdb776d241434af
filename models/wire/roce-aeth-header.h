// The 4-byte InfiniBand ACK Extended Transport Header (AETH) carried by RC ACKNOWLEDGE packets:
// an 8-bit syndrome (ACK with credit count, RNR NAK with timer, or NAK with a code) and a 24-bit
// MSN. Leaves out end-to-end credit flow control semantics (the credit count is carried only).
#ifndef MRCSIM_MODELS_ROCE_AETH_HEADER_H
#define MRCSIM_MODELS_ROCE_AETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief ACK Extended Transport Header.
 *
 * Wire layout: syndrome (8) | MSN (24). Syndrome = reserved (1, 0) | kind (2: 00 ACK,
 * 01 RNR NAK, 11 NAK) | value (5: credit count, RNR timer or NAK code).
 */
class RoceAethHeader : public Header
{
public:
  /// \brief Size of the header in bytes.
  static constexpr uint32_t kSize = 4;
  /// \brief Credit count meaning "invalid / unlimited credits".
  static constexpr uint8_t kNoCredits = 0x1F;
  /// \brief NAK code: PSN sequence error (what go-back-N reacts to).
  static constexpr uint8_t kNakPsnSequenceError = 0;
  /// \brief NAK code: invalid request.
  static constexpr uint8_t kNakInvalidRequest = 1;
  /// \brief NAK code: remote access error.
  static constexpr uint8_t kNakRemoteAccessError = 2;
  /// \brief NAK code: remote operational error.
  static constexpr uint8_t kNakRemoteOperationalError = 3;
  /// \brief NAK code: invalid RD request.
  static constexpr uint8_t kNakInvalidRdRequest = 4;

  RoceAethHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set the raw syndrome byte. Aborts if the reserved top bit is set.
  void SetSyndrome(uint8_t syndrome);
  /// \brief The raw syndrome byte.
  uint8_t GetSyndrome() const;
  /// \brief Make this a positive ACK with a 5-bit credit count. Aborts above 31.
  void SetAck(uint8_t creditCount = kNoCredits);
  /// \brief Make this an RNR NAK with a 5-bit timer code. Aborts above 31.
  void SetRnrNak(uint8_t timer);
  /// \brief Make this a NAK with a 5-bit NAK code. Aborts above 31.
  void SetNak(uint8_t nakCode);
  /// \brief True for a positive ACK.
  bool IsAck() const;
  /// \brief True for an RNR NAK.
  bool IsRnrNak() const;
  /// \brief True for a NAK (not RNR).
  bool IsNak() const;
  /// \brief The low 5 syndrome bits: credit count, RNR timer or NAK code.
  uint8_t GetSyndromeValue() const;
  /// \brief Set the 24-bit message sequence number. Aborts if it does not fit.
  void SetMsn(uint32_t msn);
  /// \brief The MSN.
  uint32_t GetMsn() const;

private:
  uint8_t m_syndrome; //!< kind and value
  uint32_t m_msn;     //!< message sequence number (24 bits)
};

} // namespace ns3

#endif // MRCSIM_MODELS_ROCE_AETH_HEADER_H
