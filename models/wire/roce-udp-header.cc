#include "models/wire/roce-udp-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceUdpHeader");

NS_OBJECT_ENSURE_REGISTERED(RoceUdpHeader);

RoceUdpHeader::RoceUdpHeader() : m_sourcePort(0), m_destinationPort(kRoceV2Port), m_length(kSize), m_checksum(0) {}

TypeId
RoceUdpHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::RoceUdpHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<RoceUdpHeader>();
  return tid;
}

TypeId
RoceUdpHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
RoceUdpHeader::GetSerializedSize() const
{
  return kSize;
}

void
RoceUdpHeader::Serialize(Buffer::Iterator start) const
{
  Buffer::Iterator i = start;
  i.WriteHtonU16(m_sourcePort);
  i.WriteHtonU16(m_destinationPort);
  i.WriteHtonU16(m_length);
  i.WriteHtonU16(m_checksum);
}

uint32_t
RoceUdpHeader::Deserialize(Buffer::Iterator start)
{
  Buffer::Iterator i = start;
  m_sourcePort = i.ReadNtohU16();
  m_destinationPort = i.ReadNtohU16();
  m_length = i.ReadNtohU16();
  m_checksum = i.ReadNtohU16();
  return kSize;
}

void
RoceUdpHeader::Print(std::ostream& os) const
{
  os << "UDP " << m_sourcePort << " > " << m_destinationPort << " len=" << m_length << " csum=" << m_checksum;
}

void
RoceUdpHeader::SetSourcePort(uint16_t port)
{
  m_sourcePort = port;
}

uint16_t
RoceUdpHeader::GetSourcePort() const
{
  return m_sourcePort;
}

void
RoceUdpHeader::SetDestinationPort(uint16_t port)
{
  m_destinationPort = port;
}

uint16_t
RoceUdpHeader::GetDestinationPort() const
{
  return m_destinationPort;
}

void
RoceUdpHeader::SetLength(uint16_t length)
{
  NS_ABORT_MSG_IF(length < kSize, "RoceUdpHeader::SetLength: " << length << " is below the 8-byte header");
  m_length = length;
}

uint16_t
RoceUdpHeader::GetLength() const
{
  return m_length;
}

void
RoceUdpHeader::SetChecksum(uint16_t checksum)
{
  m_checksum = checksum;
}

uint16_t
RoceUdpHeader::GetChecksum() const
{
  return m_checksum;
}

} // namespace ns3
