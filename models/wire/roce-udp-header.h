// The 8-byte UDP header as RoCEv2 and MRC use it: the source port carries the entropy value that
// ECMP switches hash, the destination port is 4791. Leaves out checksum computation: simulated
// frames carry 0; packet captures compute it, and the ICRC after the payload (FabricPcapWriter).
#ifndef MRCSIM_MODELS_ROCE_UDP_HEADER_H
#define MRCSIM_MODELS_ROCE_UDP_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief UDP header for RoCEv2 / MRC packets.
 *
 * Wire layout: source port (16), destination port (16), length (16, header + payload),
 * checksum (16). All fields are written as set; nothing is computed at serialise time.
 */
class RoceUdpHeader : public Header
{
public:
  /// \brief IANA UDP port of RoCEv2.
  static constexpr uint16_t kRoceV2Port = 4791;
  /// \brief Size of the header in bytes.
  static constexpr uint32_t kSize = 8;

  RoceUdpHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set the source port (the entropy switches hash in ECMP mode).
  void SetSourcePort(uint16_t port);
  /// \brief The source port.
  uint16_t GetSourcePort() const;
  /// \brief Set the destination port (default 4791).
  void SetDestinationPort(uint16_t port);
  /// \brief The destination port.
  uint16_t GetDestinationPort() const;
  /// \brief Set the UDP length (8 + payload bytes). Aborts if below 8.
  void SetLength(uint16_t length);
  /// \brief The UDP length.
  uint16_t GetLength() const;
  /// \brief Set the checksum field (0 = not computed).
  void SetChecksum(uint16_t checksum);
  /// \brief The checksum field.
  uint16_t GetChecksum() const;

private:
  uint16_t m_sourcePort;      //!< entropy
  uint16_t m_destinationPort; //!< 4791 for RoCEv2
  uint16_t m_length;          //!< header + payload bytes
  uint16_t m_checksum;        //!< 0 when not computed
};

} // namespace ns3

#endif // MRCSIM_MODELS_ROCE_UDP_HEADER_H
