// The SRv6 Segment Routing Header (RFC 8754, routing type 4) for paths needing more than the six
// uSIDs one destination address holds: a list of 128-bit segments (each may be a uSID carrier).
// Leaves out SRH TLVs (HMAC, padding) and the "last entry"/"hdr ext len" consistency of TLVs.
#ifndef MRCSIM_MODELS_SRV6_ROUTING_HEADER_H
#define MRCSIM_MODELS_SRV6_ROUTING_HEADER_H

#include "ns3/header.h"
#include "ns3/ipv6-address.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief SRv6 Segment Routing Header.
 *
 * Wire layout: next header (8), hdr ext len (8, in 8-octet units after the first 8 = 2 x
 * segments), routing type (8, = 4), segments left (8), last entry (8, = segments - 1), flags (8),
 * tag (16), then the segment list. As in RFC 8754 the list is stored in wire order:
 * segment 0 is the FINAL segment of the path; segments left indexes the active one.
 */
class Srv6RoutingHeader : public Header
{
public:
  /// \brief 16 segment bytes, network order.
  using Segment = std::array<uint8_t, 16>;

  /// \brief IPv6 routing type of the SRH.
  static constexpr uint8_t kRoutingType = 4;
  /// \brief Most segments the 8-bit hdr ext len allows.
  static constexpr uint32_t kMaxSegments = 127;

  Srv6RoutingHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set the next-header protocol number (17 for UDP).
  void SetNextHeader(uint8_t nh);
  /// \brief The next-header protocol number.
  uint8_t GetNextHeader() const;
  /// \brief Set segments left. Aborts if it is not below the number of segments.
  void SetSegmentsLeft(uint8_t left);
  /// \brief Segments left (index of the active segment in the wire-order list).
  uint8_t GetSegmentsLeft() const;
  /// \brief Set the flags byte.
  void SetFlags(uint8_t flags);
  /// \brief The flags byte.
  uint8_t GetFlags() const;
  /// \brief Set the 16-bit tag.
  void SetTag(uint16_t tag);
  /// \brief The 16-bit tag.
  uint16_t GetTag() const;

  /**
   * \brief Set the segment list in wire order (index 0 = final segment).
   *
   * Aborts if it is empty or longer than kMaxSegments. Segments left becomes size - 1.
   */
  void SetSegmentList(const std::vector<Segment>& wireOrder);
  /**
   * \brief Set the segment list from the path in travel order (first segment visited first).
   *
   * Stores it reversed, as the wire requires, and sets segments left to size - 1.
   */
  void SetPath(const std::vector<Segment>& travelOrder);
  /// \brief The segment list in wire order.
  const std::vector<Segment>& GetSegmentList() const;
  /// \brief Segment \p index of the wire-order list. Aborts when out of range.
  const Segment& GetSegment(uint8_t index) const;
  /// \brief Number of segments.
  uint32_t GetNSegments() const;
  /// \brief The last-entry field (segments - 1).
  uint8_t GetLastEntry() const;
  /// \brief The active segment, Segment List[Segments Left].
  const Segment& GetActiveSegment() const;
  /**
   * \brief Endpoint behaviour: decrement segments left and return the new active segment,
   * which the caller copies into the IPv6 destination. Aborts when segments left is 0.
   */
  const Segment& AdvanceSegment();
  /// \brief Convert a segment to an ns3::Ipv6Address.
  static Ipv6Address ToIpv6Address(const Segment& s);
  /// \brief Convert an ns3::Ipv6Address to a segment.
  static Segment FromIpv6Address(Ipv6Address a);

private:
  uint8_t m_nextHeader;            //!< next protocol
  uint8_t m_segmentsLeft;          //!< index of the active segment
  uint8_t m_flags;                 //!< flags byte
  uint16_t m_tag;                  //!< tag
  std::vector<Segment> m_segments; //!< segment list, wire order
};

} // namespace ns3

#endif // MRCSIM_MODELS_SRV6_ROUTING_HEADER_H
