// Describes the packets endpoints put on the fabric: IPv6 (GPU address or uSID carrier) + UDP
// (RoCEv2 port, entropy in the source port) + BTH, the transport's inner header (see
// FrameInnerOf in fabric-frame.h), then payload.
#ifndef MRCSIM_MODELS_FABRIC_PACKET_H
#define MRCSIM_MODELS_FABRIC_PACKET_H

#include "models/wire/ipv6-usid-header.h"
#include "models/wire/udp-entropy.h"
#include "models/wire/usid-list.h"

#include "ns3/packet.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// \brief What goes into a data packet.
struct FabricPacketSpec
{
  uint32_t srcGpu = 0;
  uint32_t dstGpu = 0;
  int plane = 0;
  UsidList usids;            ///< SRv6 path (FabricRouting::Usids); empty: route on dstGpu by ECMP
  uint16_t entropy = EvEntropy::kBase; ///< UDP source port
  uint32_t flowLabel = 0;
  uint8_t dscp = 26; ///< data DSCP (control traffic uses the port config's ControlDscp)
  Ipv6UsidHeader::Ecn ecn = Ipv6UsidHeader::Ect0;
  uint8_t opcode = 0x0A; ///< BTH opcode (RC RDMA WRITE ONLY)
  uint32_t destQp = 1;
  uint32_t psn = 0;
  bool ackRequest = false;
  uint32_t payloadBytes = 4096; ///< zero-filled payload after the inner header
};

/// \brief IPv6 + UDP + BTH bytes, the headers every fabric packet has.
uint32_t FabricHeaderBytes();

} // namespace ns3

#endif
