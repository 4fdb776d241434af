// The IEEE 802.1Qbb Priority-based Flow Control frame body (MAC control opcode 0x0101, class-enable
// vector, eight pause quanta), padded to the 46-byte minimum so the frame is 64 bytes on the wire.
// Leaves out the Ethernet header and FCS: pcap output (FabricPcapWriter, DLT_EN10MB) puts an
// Ethernet header with EtherType 0x8808 and destination 01:80:C2:00:00:01 in front of this body.
#ifndef MRCSIM_MODELS_PFC_PAUSE_HEADER_H
#define MRCSIM_MODELS_PFC_PAUSE_HEADER_H

#include "ns3/data-rate.h"
#include "ns3/header.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \brief PFC pause frame body.
 *
 * Wire layout (46 bytes): opcode (16, 0x0101), class-enable vector (16: upper 8 reserved,
 * bit p enables priority p), quanta[0..7] (16 each, in units of 512 bit times), 26 zero bytes.
 * A quanta of 0 for an enabled priority means "resume" (XON).
 */
class PfcPauseHeader : public Header
{
public:
  /// \brief EtherType of MAC control frames.
  static constexpr uint16_t kEtherType = 0x8808;
  /// \brief MAC control opcode of PFC.
  static constexpr uint16_t kOpcode = 0x0101;
  /// \brief Number of priorities.
  static constexpr uint32_t kPriorities = 8;
  /// \brief Serialized size: the 46-byte minimum Ethernet payload.
  static constexpr uint32_t kSize = 46;
  /// \brief Bytes of opcode, vector and quanta before the padding.
  static constexpr uint32_t kBodySize = 20;

  PfcPauseHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set the class-enable vector. Aborts if a reserved upper bit is set.
  void SetClassEnableVector(uint16_t vector);
  /// \brief The class-enable vector.
  uint16_t GetClassEnableVector() const;
  /// \brief True when \p priority is enabled in the vector. Aborts if priority > 7.
  bool IsClassEnabled(uint8_t priority) const;
  /// \brief Set the quanta of \p priority without touching the vector. Aborts if priority > 7.
  void SetQuanta(uint8_t priority, uint16_t quanta);
  /// \brief The quanta of \p priority. Aborts if priority > 7.
  uint16_t GetQuanta(uint8_t priority) const;
  /// \brief Enable \p priority and set its quanta (0 = resume). Aborts if priority > 7.
  void SetPause(uint8_t priority, uint16_t quanta);
  /// \brief How long \p quanta pauses a link of rate \p rate (one quantum = 512 bit times).
  static Time QuantaToTime(uint16_t quanta, DataRate rate);
  /// \brief The destination MAC of PFC frames, 01:80:C2:00:00:01.
  static Mac48Address GetDestinationMac();

private:
  uint16_t m_classEnableVector;               //!< bit p enables priority p
  std::array<uint16_t, kPriorities> m_quanta; //!< pause time per priority
};

} // namespace ns3

#endif // MRCSIM_MODELS_PFC_PAUSE_HEADER_H
