#include "models/srv6-routing-header.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(Srv6RoutingHeader);

Srv6RoutingHeader::Srv6RoutingHeader() : m_nextHeader(17), m_segmentsLeft(0), m_flags(0), m_tag(0) {}

TypeId
Srv6RoutingHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::Srv6RoutingHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<Srv6RoutingHeader>();
  return tid;
}

TypeId
Srv6RoutingHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
Srv6RoutingHeader::GetSerializedSize() const
{
  return 8 + 16 * static_cast<uint32_t>(m_segments.size());
}

void
Srv6RoutingHeader::Serialize(Buffer::Iterator start) const
{
  NS_ABORT_MSG_IF(m_segments.empty(), "Srv6RoutingHeader::Serialize: empty segment list");
  Buffer::Iterator i = start;
  i.WriteU8(m_nextHeader);
  i.WriteU8(static_cast<uint8_t>(2 * m_segments.size()));
  i.WriteU8(kRoutingType);
  i.WriteU8(m_segmentsLeft);
  i.WriteU8(GetLastEntry());
  i.WriteU8(m_flags);
  i.WriteHtonU16(m_tag);
  for (const Segment& s : m_segments)
  {
    i.Write(s.data(), s.size());
  }
}

uint32_t
Srv6RoutingHeader::Deserialize(Buffer::Iterator start)
{
  Buffer::Iterator i = start;
  m_nextHeader = i.ReadU8();
  uint8_t hdrExtLen = i.ReadU8();
  uint8_t routingType = i.ReadU8();
  NS_ABORT_MSG_IF(routingType != kRoutingType,
                  "Srv6RoutingHeader::Deserialize: routing type " << static_cast<uint32_t>(routingType)
                                                                  << ", expected 4");
  m_segmentsLeft = i.ReadU8();
  uint8_t lastEntry = i.ReadU8();
  m_flags = i.ReadU8();
  m_tag = i.ReadNtohU16();
  // Without TLVs, hdr ext len is exactly two 8-octet units per segment.
  NS_ABORT_MSG_IF(hdrExtLen != 2 * (lastEntry + 1),
                  "Srv6RoutingHeader::Deserialize: hdr ext len "
                    << static_cast<uint32_t>(hdrExtLen) << " does not match last entry "
                    << static_cast<uint32_t>(lastEntry) << " (TLVs are not modelled)");
  NS_ABORT_MSG_IF(m_segmentsLeft > lastEntry, "Srv6RoutingHeader::Deserialize: segments left beyond last entry");
  m_segments.assign(lastEntry + 1u, Segment{});
  for (Segment& s : m_segments)
  {
    i.Read(s.data(), s.size());
  }
  return GetSerializedSize();
}

void
Srv6RoutingHeader::Print(std::ostream& os) const
{
  os << "SRH nh=" << static_cast<uint32_t>(m_nextHeader) << " left=" << static_cast<uint32_t>(m_segmentsLeft)
     << " segments=" << m_segments.size() << " flags=" << static_cast<uint32_t>(m_flags) << " tag=" << m_tag;
}

void
Srv6RoutingHeader::SetNextHeader(uint8_t nh)
{
  m_nextHeader = nh;
}

uint8_t
Srv6RoutingHeader::GetNextHeader() const
{
  return m_nextHeader;
}

void
Srv6RoutingHeader::SetSegmentsLeft(uint8_t left)
{
  NS_ABORT_MSG_IF(left >= m_segments.size(),
                  "Srv6RoutingHeader::SetSegmentsLeft: " << static_cast<uint32_t>(left) << " with " << m_segments.size()
                                                         << " segments");
  m_segmentsLeft = left;
}

uint8_t
Srv6RoutingHeader::GetSegmentsLeft() const
{
  return m_segmentsLeft;
}

void
Srv6RoutingHeader::SetFlags(uint8_t flags)
{
  m_flags = flags;
}

uint8_t
Srv6RoutingHeader::GetFlags() const
{
  return m_flags;
}

void
Srv6RoutingHeader::SetTag(uint16_t tag)
{
  m_tag = tag;
}

uint16_t
Srv6RoutingHeader::GetTag() const
{
  return m_tag;
}

void
Srv6RoutingHeader::SetSegmentList(const std::vector<Segment>& wireOrder)
{
  NS_ABORT_MSG_IF(wireOrder.empty(), "Srv6RoutingHeader::SetSegmentList: empty segment list");
  NS_ABORT_MSG_IF(wireOrder.size() > kMaxSegments,
                  "Srv6RoutingHeader::SetSegmentList: " << wireOrder.size() << " segments, at most " << kMaxSegments);
  m_segments = wireOrder;
  m_segmentsLeft = static_cast<uint8_t>(m_segments.size() - 1);
}

void
Srv6RoutingHeader::SetPath(const std::vector<Segment>& travelOrder)
{
  std::vector<Segment> wire(travelOrder.rbegin(), travelOrder.rend());
  SetSegmentList(wire);
}

const std::vector<Srv6RoutingHeader::Segment>&
Srv6RoutingHeader::GetSegmentList() const
{
  return m_segments;
}

const Srv6RoutingHeader::Segment&
Srv6RoutingHeader::GetSegment(uint8_t index) const
{
  NS_ABORT_MSG_IF(index >= m_segments.size(),
                  "Srv6RoutingHeader::GetSegment: index " << static_cast<uint32_t>(index) << " with "
                                                          << m_segments.size() << " segments");
  return m_segments[index];
}

uint32_t
Srv6RoutingHeader::GetNSegments() const
{
  return static_cast<uint32_t>(m_segments.size());
}

uint8_t
Srv6RoutingHeader::GetLastEntry() const
{
  NS_ABORT_MSG_IF(m_segments.empty(), "Srv6RoutingHeader::GetLastEntry: empty segment list");
  return static_cast<uint8_t>(m_segments.size() - 1);
}

const Srv6RoutingHeader::Segment&
Srv6RoutingHeader::GetActiveSegment() const
{
  return GetSegment(m_segmentsLeft);
}

const Srv6RoutingHeader::Segment&
Srv6RoutingHeader::AdvanceSegment()
{
  NS_ABORT_MSG_IF(m_segmentsLeft == 0, "Srv6RoutingHeader::AdvanceSegment: segments left is already 0");
  --m_segmentsLeft;
  return m_segments[m_segmentsLeft];
}

Ipv6Address
Srv6RoutingHeader::ToIpv6Address(const Segment& s)
{
  Segment copy = s;
  return Ipv6Address(copy.data());
}

Srv6RoutingHeader::Segment
Srv6RoutingHeader::FromIpv6Address(Ipv6Address a)
{
  Segment s{};
  a.Serialize(s.data());
  return s;
}

} // namespace ns3
