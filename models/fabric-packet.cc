#include "models/fabric-packet.h"

#include "models/fabric-address.h"
#include "models/roce-bth-header.h"
#include "models/roce-reth-header.h"
#include "models/roce-udp-header.h"

#include "topologies/fabric-routing.h"

#include "ns3/abort.h"

namespace ns3
{

uint32_t
FabricHeaderBytes(bool reth)
{
  return Ipv6UsidHeader::kSize + RoceUdpHeader::kSize + RoceBthHeader::kSize + (reth ? RoceRethHeader::kSize : 0);
}

Ptr<Packet>
MakeFabricPacket(const FabricPacketSpec& s)
{
  Ptr<Packet> p = Create<Packet>(s.payloadBytes);
  RoceRethHeader reth;
  reth.SetVirtualAddress(s.remoteAddress);
  reth.SetRkey(1);
  reth.SetDmaLength(s.payloadBytes);
  AddRoceHeaders(p, s, s.reth ? &reth : nullptr);
  return p;
}

namespace
{

/// Writes several headers, outermost first, with one Packet::AddHeader: each AddHeader on a
/// fresh packet reallocates its buffer, and a data packet has four. The bytes are exactly those
/// of the headers added one by one, so receivers remove them one by one.
class HeaderStack : public Header
{
public:
  static TypeId GetTypeId()
  {
    static TypeId tid = TypeId("ns3::FabricHeaderStack").SetParent<Header>().SetGroupName("Mrcsim");
    return tid;
  }
  TypeId GetInstanceTypeId() const override { return GetTypeId(); }

  void Add(const Header* h)
  {
    m_headers[m_count++] = h;
    m_size += h->GetSerializedSize();
  }
  uint32_t GetSerializedSize() const override { return m_size; }
  void Serialize(Buffer::Iterator start) const override
  {
    for (uint32_t k = 0; k < m_count; ++k)
    {
      m_headers[k]->Serialize(start);
      start.Next(m_headers[k]->GetSerializedSize());
    }
  }
  uint32_t Deserialize(Buffer::Iterator start) override
  {
    NS_ABORT_MSG("HeaderStack is written only; remove its headers one by one");
    return 0;
  }
  void Print(std::ostream& os) const override
  {
    for (uint32_t k = 0; k < m_count; ++k)
    {
      os << (k ? " " : "");
      m_headers[k]->Print(os);
    }
  }

private:
  const Header* m_headers[4] = {};
  uint32_t m_count = 0;
  uint32_t m_size = 0;
};

NS_OBJECT_ENSURE_REGISTERED(HeaderStack);

} // namespace

void
AddRoceHeaders(Ptr<Packet> p, const FabricPacketSpec& s, const Header* inner)
{
  const uint32_t innerBytes = inner ? inner->GetSerializedSize() : 0;
  const uint32_t afterUdp = RoceBthHeader::kSize + innerBytes + p->GetSize();
  RoceBthHeader bth;
  bth.SetOpcode(s.opcode);
  bth.SetDestQp(s.destQp);
  bth.SetPsn(s.psn);
  bth.SetAckReq(s.ackRequest);
  RoceUdpHeader udp;
  udp.SetSourcePort(s.entropy);
  udp.SetDestinationPort(RoceUdpHeader::kRoceV2Port);
  udp.SetLength(static_cast<uint16_t>(afterUdp + RoceUdpHeader::kSize));
  Ipv6UsidHeader ip;
  ip.SetDscp(s.dscp);
  ip.SetEcn(s.ecn);
  ip.SetFlowLabel(s.flowLabel);
  ip.SetPayloadLength(static_cast<uint16_t>(afterUdp + RoceUdpHeader::kSize));
  ip.SetNextHeader(Ipv6UsidHeader::kNextHeaderUdp);
  ip.SetHopLimit(64);
  ip.SetSourceBytes(GpuAddress(s.srcGpu, s.plane));
  if (s.usids.empty())
  {
    ip.SetDestinationBytes(GpuAddress(s.dstGpu, s.plane));
  }
  else
  {
    ip.SetUsidDestination(mrcsim::FabricRouting::Locator(s.plane), s.usids);
  }
  HeaderStack stack;
  stack.Add(&ip);
  stack.Add(&udp);
  stack.Add(&bth);
  if (inner)
  {
    stack.Add(inner);
  }
  p->AddHeader(stack);
}

} // namespace ns3
