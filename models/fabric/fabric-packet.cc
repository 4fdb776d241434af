#include "models/fabric/fabric-packet.h"

#include "ns3/log.h"

#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-udp-header.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricPacket");

uint32_t
FabricHeaderBytes()
{
  return Ipv6UsidHeader::kSize + RoceUdpHeader::kSize + RoceBthHeader::kSize;
}

} // namespace ns3
