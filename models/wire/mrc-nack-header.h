// The MRC negative acknowledgement: the receiver names one PSN that it saw but could not accept
// (trimmed in the fabric, no buffer, ...) and echoes the EV that carried it, so the sender resends
// at once and penalises the EV. The byte layout is ours (MRC's is not public).
#ifndef MRCSIM_MODELS_MRC_NACK_HEADER_H
#define MRCSIM_MODELS_MRC_NACK_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief MRC NACK.
 *
 * Wire layout (8 bytes): reason (8) | PSN (24), echoed EV (16), reserved (16, zero).
 * Unknown reason codes are kept as received, so new reasons need no change here.
 */
class MrcNackHeader : public Header
{
public:
  /// \brief Why the PSN was not accepted.
  enum Reason : uint8_t
  {
    Trimmed = 1,     //!< a switch cut the payload; only headers arrived
    OutOfBuffer = 2, //!< the receiver had no buffer for it
    Other = 255      //!< anything else
  };

  /// \brief Size of the header in bytes.
  static constexpr uint32_t kSize = 8;
  /// \brief BTH opcode of an MRC NACK (vendor-specific range).
  static constexpr uint8_t kBthOpcode = 0xC1;

  MrcNackHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set the NACKed PSN. Aborts if it exceeds 24 bits.
  void SetPsn(uint32_t psn);
  /// \brief The NACKed PSN.
  uint32_t GetPsn() const;
  /// \brief Set the reason.
  void SetReason(Reason reason);
  /// \brief The reason (may be a value this enum does not name).
  Reason GetReason() const;
  /// \brief Set the echoed entropy value.
  void SetEchoedEv(uint16_t ev);
  /// \brief The echoed entropy value.
  uint16_t GetEchoedEv() const;
  /// \brief A short name for a reason code ("TRIMMED", "OUT_OF_BUFFER", "OTHER", "UNKNOWN").
  static const char* ReasonName(Reason reason);

private:
  uint32_t m_psn;      //!< NACKed PSN (24 bits)
  Reason m_reason;     //!< reason code
  uint16_t m_echoedEv; //!< EV that carried the PSN
};

} // namespace ns3

#endif // MRCSIM_MODELS_MRC_NACK_HEADER_H
