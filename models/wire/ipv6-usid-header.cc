#include "models/wire/ipv6-usid-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Ipv6UsidHeader");

NS_OBJECT_ENSURE_REGISTERED(Ipv6UsidHeader);

namespace
{
// Print 16 address bytes in the usual colon-separated hex groups (no zero compression).
void
PrintAddressBytes(std::ostream& os, const Ipv6UsidHeader::AddressBytes& a)
{
  std::ios_base::fmtflags flags = os.flags();
  os << std::hex;
  for (std::size_t i = 0; i < a.size(); i += 2)
  {
    if (i > 0)
    {
      os << ':';
    }
    os << ((static_cast<uint32_t>(a[i]) << 8) | a[i + 1]);
  }
  os.flags(flags);
}
} // namespace

Ipv6UsidHeader::Ipv6UsidHeader()
  : m_trafficClass(0)
  , m_flowLabel(0)
  , m_payloadLength(0)
  , m_nextHeader(kNextHeaderUdp)
  , m_hopLimit(64)
  , m_source{}
  , m_destination{}
{
}

TypeId
Ipv6UsidHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::Ipv6UsidHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<Ipv6UsidHeader>();
  return tid;
}

TypeId
Ipv6UsidHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
Ipv6UsidHeader::GetSerializedSize() const
{
  return kSize;
}

void
Ipv6UsidHeader::Serialize(Buffer::Iterator start) const
{
  Buffer::Iterator i = start;
  uint32_t word = (6u << 28) | (static_cast<uint32_t>(m_trafficClass) << 20) | m_flowLabel;
  i.WriteHtonU32(word);
  i.WriteHtonU16(m_payloadLength);
  i.WriteU8(m_nextHeader);
  i.WriteU8(m_hopLimit);
  i.Write(m_source.data(), m_source.size());
  i.Write(m_destination.data(), m_destination.size());
}

uint32_t
Ipv6UsidHeader::Deserialize(Buffer::Iterator start)
{
  Buffer::Iterator i = start;
  uint32_t word = i.ReadNtohU32();
  NS_ABORT_MSG_IF((word >> 28) != 6, "Ipv6UsidHeader::Deserialize: IP version " << (word >> 28) << ", expected 6");
  m_trafficClass = static_cast<uint8_t>((word >> 20) & 0xFF);
  m_flowLabel = word & 0xFFFFF;
  m_payloadLength = i.ReadNtohU16();
  m_nextHeader = i.ReadU8();
  m_hopLimit = i.ReadU8();
  i.Read(m_source.data(), m_source.size());
  i.Read(m_destination.data(), m_destination.size());
  return GetSerializedSize();
}

void
Ipv6UsidHeader::Print(std::ostream& os) const
{
  os << "IPv6 tc=" << static_cast<uint32_t>(m_trafficClass) << " ecn=" << static_cast<uint32_t>(GetEcn())
     << " flow=" << m_flowLabel << " plen=" << m_payloadLength << " nh=" << static_cast<uint32_t>(m_nextHeader)
     << " hlim=" << static_cast<uint32_t>(m_hopLimit) << " src=";
  PrintAddressBytes(os, m_source);
  os << " dst=";
  PrintAddressBytes(os, m_destination);
}

void
Ipv6UsidHeader::SetTrafficClass(uint8_t tc)
{
  m_trafficClass = tc;
}

uint8_t
Ipv6UsidHeader::GetTrafficClass() const
{
  return m_trafficClass;
}

void
Ipv6UsidHeader::SetDscp(uint8_t dscp)
{
  NS_ABORT_MSG_IF(dscp > 63,
                  "Ipv6UsidHeader::SetDscp: DSCP " << static_cast<uint32_t>(dscp) << " does not fit in 6 bits");
  m_trafficClass = static_cast<uint8_t>((dscp << 2) | (m_trafficClass & 0x3));
}

uint8_t
Ipv6UsidHeader::GetDscp() const
{
  return m_trafficClass >> 2;
}

void
Ipv6UsidHeader::SetEcn(Ecn ecn)
{
  NS_ABORT_MSG_IF(static_cast<uint8_t>(ecn) > 3, "Ipv6UsidHeader::SetEcn: invalid ECN value");
  m_trafficClass = static_cast<uint8_t>((m_trafficClass & 0xFC) | static_cast<uint8_t>(ecn));
}

Ipv6UsidHeader::Ecn
Ipv6UsidHeader::GetEcn() const
{
  return static_cast<Ecn>(m_trafficClass & 0x3);
}

void
Ipv6UsidHeader::SetFlowLabel(uint32_t label)
{
  NS_ABORT_MSG_IF(label > 0xFFFFF, "Ipv6UsidHeader::SetFlowLabel: " << label << " does not fit in 20 bits");
  m_flowLabel = label;
}

uint32_t
Ipv6UsidHeader::GetFlowLabel() const
{
  return m_flowLabel;
}

void
Ipv6UsidHeader::SetPayloadLength(uint16_t len)
{
  m_payloadLength = len;
}

uint16_t
Ipv6UsidHeader::GetPayloadLength() const
{
  return m_payloadLength;
}

void
Ipv6UsidHeader::SetNextHeader(uint8_t nh)
{
  m_nextHeader = nh;
}

uint8_t
Ipv6UsidHeader::GetNextHeader() const
{
  return m_nextHeader;
}

void
Ipv6UsidHeader::SetHopLimit(uint8_t limit)
{
  m_hopLimit = limit;
}

uint8_t
Ipv6UsidHeader::GetHopLimit() const
{
  return m_hopLimit;
}

void
Ipv6UsidHeader::SetSourceBytes(const AddressBytes& addr)
{
  m_source = addr;
}

const Ipv6UsidHeader::AddressBytes&
Ipv6UsidHeader::GetSourceBytes() const
{
  return m_source;
}

void
Ipv6UsidHeader::SetDestinationBytes(const AddressBytes& addr)
{
  m_destination = addr;
}

const Ipv6UsidHeader::AddressBytes&
Ipv6UsidHeader::GetDestinationBytes() const
{
  return m_destination;
}

void
Ipv6UsidHeader::SetSource(Ipv6Address addr)
{
  addr.Serialize(m_source.data());
}

Ipv6Address
Ipv6UsidHeader::GetSource() const
{
  AddressBytes copy = m_source;
  return Ipv6Address(copy.data());
}

void
Ipv6UsidHeader::SetDestination(Ipv6Address addr)
{
  addr.Serialize(m_destination.data());
}

Ipv6Address
Ipv6UsidHeader::GetDestination() const
{
  AddressBytes copy = m_destination;
  return Ipv6Address(copy.data());
}

Ipv6UsidHeader::AddressBytes
Ipv6UsidHeader::MakeUsidAddress(uint32_t locator, const std::vector<uint16_t>& usids)
{
  NS_ABORT_MSG_IF(usids.size() > kMaxUsids,
                  "Ipv6UsidHeader::MakeUsidAddress: " << usids.size() << " uSIDs, at most " << kMaxUsids
                                                      << " fit after a 32-bit locator; use an SRH");
  AddressBytes a{};
  a[0] = static_cast<uint8_t>(locator >> 24);
  a[1] = static_cast<uint8_t>(locator >> 16);
  a[2] = static_cast<uint8_t>(locator >> 8);
  a[3] = static_cast<uint8_t>(locator);
  for (std::size_t k = 0; k < usids.size(); ++k)
  {
    NS_ABORT_MSG_IF(usids[k] == kEndOfCarrier,
                    "Ipv6UsidHeader::MakeUsidAddress: uSID " << k << " is 0, the end-of-carrier value");
    a[4 + 2 * k] = static_cast<uint8_t>(usids[k] >> 8);
    a[5 + 2 * k] = static_cast<uint8_t>(usids[k]);
  }
  return a;
}

void
Ipv6UsidHeader::SetUsidDestination(uint32_t locator, const std::vector<uint16_t>& usids)
{
  m_destination = MakeUsidAddress(locator, usids);
}

void
Ipv6UsidHeader::SetUsidDestination(uint32_t locator, const UsidList& usids)
{
  AddressBytes& a = m_destination;
  a = AddressBytes{};
  a[0] = static_cast<uint8_t>(locator >> 24);
  a[1] = static_cast<uint8_t>(locator >> 16);
  a[2] = static_cast<uint8_t>(locator >> 8);
  a[3] = static_cast<uint8_t>(locator);
  for (uint32_t k = 0; k < usids.size(); ++k)
  {
    NS_ABORT_MSG_IF(usids[k] == kEndOfCarrier,
                    "Ipv6UsidHeader::SetUsidDestination: uSID " << k << " is 0, the end-of-carrier value");
    a[4 + 2 * k] = static_cast<uint8_t>(usids[k] >> 8);
    a[5 + 2 * k] = static_cast<uint8_t>(usids[k]);
  }
}

uint32_t
Ipv6UsidHeader::GetLocator() const
{
  return (static_cast<uint32_t>(m_destination[0]) << 24) | (static_cast<uint32_t>(m_destination[1]) << 16) |
         (static_cast<uint32_t>(m_destination[2]) << 8) | m_destination[3];
}

uint16_t
Ipv6UsidHeader::GetActiveUsid() const
{
  return static_cast<uint16_t>((m_destination[4] << 8) | m_destination[5]);
}

std::vector<uint16_t>
Ipv6UsidHeader::GetRemainingUsids() const
{
  std::vector<uint16_t> out;
  for (std::size_t k = 0; k < kMaxUsids; ++k)
  {
    uint16_t u = static_cast<uint16_t>((m_destination[4 + 2 * k] << 8) | m_destination[5 + 2 * k]);
    if (u == kEndOfCarrier)
    {
      break;
    }
    out.push_back(u);
  }
  return out;
}

void
Ipv6UsidHeader::ShiftUsid()
{
  for (std::size_t b = 4; b < 14; ++b)
  {
    m_destination[b] = m_destination[b + 2];
  }
  m_destination[14] = 0;
  m_destination[15] = 0;
}

bool
Ipv6UsidHeader::IsUsidCarrierEmpty() const
{
  return GetActiveUsid() == kEndOfCarrier;
}

} // namespace ns3
