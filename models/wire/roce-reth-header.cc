#include "models/wire/roce-reth-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRethHeader");

NS_OBJECT_ENSURE_REGISTERED(RoceRethHeader);

RoceRethHeader::RoceRethHeader() : m_virtualAddress(0), m_rkey(0), m_dmaLength(0) {}

TypeId
RoceRethHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::RoceRethHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<RoceRethHeader>();
  return tid;
}

TypeId
RoceRethHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
RoceRethHeader::GetSerializedSize() const
{
  return kSize;
}

void
RoceRethHeader::Serialize(Buffer::Iterator start) const
{
  Buffer::Iterator i = start;
  i.WriteHtonU64(m_virtualAddress);
  i.WriteHtonU32(m_rkey);
  i.WriteHtonU32(m_dmaLength);
}

uint32_t
RoceRethHeader::Deserialize(Buffer::Iterator start)
{
  Buffer::Iterator i = start;
  m_virtualAddress = i.ReadNtohU64();
  m_rkey = i.ReadNtohU32();
  m_dmaLength = i.ReadNtohU32();
  return kSize;
}

void
RoceRethHeader::Print(std::ostream& os) const
{
  os << "RETH va=0x" << std::hex << m_virtualAddress << " rkey=0x" << m_rkey << std::dec << " len=" << m_dmaLength;
}

void
RoceRethHeader::SetVirtualAddress(uint64_t va)
{
  m_virtualAddress = va;
}

uint64_t
RoceRethHeader::GetVirtualAddress() const
{
  return m_virtualAddress;
}

void
RoceRethHeader::SetRkey(uint32_t rkey)
{
  m_rkey = rkey;
}

uint32_t
RoceRethHeader::GetRkey() const
{
  return m_rkey;
}

void
RoceRethHeader::SetDmaLength(uint32_t len)
{
  m_dmaLength = len;
}

uint32_t
RoceRethHeader::GetDmaLength() const
{
  return m_dmaLength;
}

} // namespace ns3
