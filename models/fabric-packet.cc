#include "models/fabric-packet.h"

#include "models/fabric-address.h"
#include "models/roce-bth-header.h"
#include "models/roce-reth-header.h"
#include "models/roce-udp-header.h"

#include "topologies/fabric-routing.h"

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
  if (s.reth)
  {
    RoceRethHeader reth;
    reth.SetVirtualAddress(s.remoteAddress);
    reth.SetRkey(1);
    reth.SetDmaLength(s.payloadBytes);
    p->AddHeader(reth);
  }
  AddRoceHeaders(p, s);
  return p;
}

void
AddRoceHeaders(Ptr<Packet> p, const FabricPacketSpec& s)
{
  RoceBthHeader bth;
  bth.SetOpcode(s.opcode);
  bth.SetDestQp(s.destQp);
  bth.SetPsn(s.psn);
  bth.SetAckReq(s.ackRequest);
  p->AddHeader(bth);
  RoceUdpHeader udp;
  udp.SetSourcePort(s.entropy);
  udp.SetDestinationPort(RoceUdpHeader::kRoceV2Port);
  udp.SetLength(static_cast<uint16_t>(p->GetSize() + RoceUdpHeader::kSize));
  p->AddHeader(udp);
  Ipv6UsidHeader ip;
  ip.SetDscp(s.dscp);
  ip.SetEcn(s.ecn);
  ip.SetFlowLabel(s.flowLabel);
  ip.SetPayloadLength(static_cast<uint16_t>(p->GetSize()));
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
  p->AddHeader(ip);
}

} // namespace ns3
