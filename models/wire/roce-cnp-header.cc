#include "models/wire/roce-cnp-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCnpHeader");

NS_OBJECT_ENSURE_REGISTERED(RoceCnpHeader);

RoceCnpHeader::RoceCnpHeader() {}

TypeId
RoceCnpHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::RoceCnpHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<RoceCnpHeader>();
  return tid;
}

TypeId
RoceCnpHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
RoceCnpHeader::GetSerializedSize() const
{
  return kSize;
}

void
RoceCnpHeader::Serialize(Buffer::Iterator start) const
{
  start.WriteU8(0, kSize);
}

uint32_t
RoceCnpHeader::Deserialize(Buffer::Iterator start)
{
  // Reserved bytes are ignored on receipt.
  start.Next(kSize);
  return kSize;
}

void
RoceCnpHeader::Print(std::ostream& os) const
{
  os << "CNP reserved[16]";
}

RoceBthHeader
RoceCnpHeader::MakeCnpBth(uint32_t destQp, uint16_t pkey)
{
  RoceBthHeader bth;
  bth.SetOpcode(RoceBthHeader::kCnp);
  bth.SetPkey(pkey);
  bth.SetBecn(true);
  bth.SetDestQp(destQp);
  bth.SetPsn(0);
  bth.SetAckReq(false);
  return bth;
}

} // namespace ns3
