// The 40-byte IPv6 fixed header, with helpers for SRv6 micro-SIDs (uSID, RFC 9800 NEXT-C-SID) in
// the destination address: a 32-bit locator block followed by up to six 16-bit uSIDs.
// Leaves out extension headers other than the SRH (see Srv6RoutingHeader) and any checksum logic.
//
// Pcap: FabricPcapWriter puts an Ethernet header (EtherType 0x86DD) in front of this header, and
// rewrites the payload length of trimmed frames and for the ICRC it appends.
#ifndef MRCSIM_MODELS_IPV6_USID_HEADER_H
#define MRCSIM_MODELS_IPV6_USID_HEADER_H

#include "models/wire/usid-list.h"

#include "ns3/header.h"
#include "ns3/ipv6-address.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief IPv6 fixed header with SRv6 uSID destination helpers.
 *
 * Wire layout (network byte order): version (4) | traffic class (8) | flow label (20),
 * payload length (16), next header (8), hop limit (8), source (128), destination (128).
 * The traffic class holds DSCP (upper 6 bits) and ECN (lower 2 bits).
 *
 * uSID destination: bytes 0-3 are the locator block, bytes 4-15 hold six 16-bit uSIDs; the
 * active uSID is the one right after the locator, and 0 marks the end of the carrier.
 */
class Ipv6UsidHeader : public Header
{
public:
  /// \brief The two ECN bits of the traffic class (RFC 3168).
  enum Ecn : uint8_t
  {
    NotEct = 0,
    Ect1 = 1,
    Ect0 = 2,
    Ce = 3
  };

  /// \brief 16 address bytes, network order.
  using AddressBytes = std::array<uint8_t, 16>;

  /// \brief Size of the fixed header in bytes.
  static constexpr uint32_t kSize = 40;
  /// \brief Most uSIDs one destination address carries after a 32-bit locator.
  static constexpr uint32_t kMaxUsids = 6;
  /// \brief uSID value meaning "end of carrier".
  static constexpr uint16_t kEndOfCarrier = 0;
  /// \brief Next-header value for UDP.
  static constexpr uint8_t kNextHeaderUdp = 17;
  /// \brief Next-header value for an IPv6 routing header (the SRH).
  static constexpr uint8_t kNextHeaderRouting = 43;

  Ipv6UsidHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set the whole 8-bit traffic class (DSCP and ECN).
  void SetTrafficClass(uint8_t tc);
  /// \brief The whole 8-bit traffic class.
  uint8_t GetTrafficClass() const;
  /// \brief Set the 6-bit DSCP, keeping the ECN bits. Aborts if \p dscp > 63.
  void SetDscp(uint8_t dscp);
  /// \brief The 6-bit DSCP.
  uint8_t GetDscp() const;
  /// \brief Set the 2 ECN bits, keeping the DSCP.
  void SetEcn(Ecn ecn);
  /// \brief The 2 ECN bits.
  Ecn GetEcn() const;
  /// \brief Set the 20-bit flow label. Aborts if it does not fit in 20 bits.
  void SetFlowLabel(uint32_t label);
  /// \brief The 20-bit flow label.
  uint32_t GetFlowLabel() const;
  /// \brief Set the payload length (bytes after this header, extension headers included).
  void SetPayloadLength(uint16_t len);
  /// \brief The payload length in bytes.
  uint16_t GetPayloadLength() const;
  /// \brief Set the next-header protocol number.
  void SetNextHeader(uint8_t nh);
  /// \brief The next-header protocol number.
  uint8_t GetNextHeader() const;
  /// \brief Set the hop limit.
  void SetHopLimit(uint8_t limit);
  /// \brief The hop limit.
  uint8_t GetHopLimit() const;

  /// \brief Set the source address from raw bytes.
  void SetSourceBytes(const AddressBytes& addr);
  /// \brief The source address bytes.
  const AddressBytes& GetSourceBytes() const;
  /// \brief Set the destination address from raw bytes.
  void SetDestinationBytes(const AddressBytes& addr);
  /// \brief The destination address bytes.
  const AddressBytes& GetDestinationBytes() const;
  /// \brief Set the source address.
  void SetSource(Ipv6Address addr);
  /// \brief The source address.
  Ipv6Address GetSource() const;
  /// \brief Set the destination address.
  void SetDestination(Ipv6Address addr);
  /// \brief The destination address.
  Ipv6Address GetDestination() const;

  /**
   * \brief Build a uSID carrier: \p locator, then \p usids in travel order, then zeros.
   *
   * Aborts if there are more than kMaxUsids uSIDs or if one is 0 (the end-of-carrier value).
   */
  static AddressBytes MakeUsidAddress(uint32_t locator, const std::vector<uint16_t>& usids);
  /// \brief Set the destination to a uSID carrier (see MakeUsidAddress).
  void SetUsidDestination(uint32_t locator, const std::vector<uint16_t>& usids);
  /// \brief Set the destination to a uSID carrier from an inline list (never more than fits).
  void SetUsidDestination(uint32_t locator, const UsidList& usids);
  /// \brief The 32-bit locator block of the destination.
  uint32_t GetLocator() const;
  /// \brief The active uSID (the first after the locator); 0 means end of carrier.
  uint16_t GetActiveUsid() const;
  /// \brief The uSIDs still in the carrier, in travel order, up to the first 0.
  std::vector<uint16_t> GetRemainingUsids() const;
  /// \brief uN behaviour: shift the 96 bits after the locator left by 16, filling with 0.
  void ShiftUsid();
  /// \brief True when the active uSID is end-of-carrier (no uSID left to consume).
  bool IsUsidCarrierEmpty() const;

private:
  uint8_t m_trafficClass;     //!< DSCP (6) and ECN (2)
  uint32_t m_flowLabel;       //!< 20-bit flow label
  uint16_t m_payloadLength;   //!< bytes after the fixed header
  uint8_t m_nextHeader;       //!< next protocol
  uint8_t m_hopLimit;         //!< hop limit
  AddressBytes m_source;      //!< source address
  AddressBytes m_destination; //!< destination address (a uSID carrier in SRv6 mode)
};

} // namespace ns3

#endif // MRCSIM_MODELS_IPV6_USID_HEADER_H
