#include "models/fabric/fabric-packet.h"

#include "ns3/log.h"

#include "models/fabric/fabric-frame.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-reth-header.h"
#include "models/wire/roce-udp-header.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricPacket");

uint32_t
FabricHeaderBytes(bool reth)
{
  return Ipv6UsidHeader::kSize + RoceUdpHeader::kSize + RoceBthHeader::kSize + (reth ? RoceRethHeader::kSize : 0);
}

Ptr<Packet>
MakeFabricPacket(const FabricPacketSpec& spec)
{
  return ToPacket(*MakeFrame(spec));
}

} // namespace ns3
