// RDMA WRITE data frames: the RETH as a frame's inner header, and the builders both transports
// (and the tests and benchmarks) use for data frames.
#ifndef MRCSIM_MODELS_RDMA_FRAME_H
#define MRCSIM_MODELS_RDMA_FRAME_H

#include "models/fabric/fabric-frame.h"
#include "models/wire/roce-reth-header.h"

#include <cstdint>

namespace ns3
{

/// \brief The RETH in a frame: 8 bytes, so a data frame stays small. The frame keeps 32 bits of
/// the virtual address (the models send the offset in the message there, below 4 GiB as the DMA
/// length is) and no R_Key (ToPacket writes 1).
template<>
struct FrameInnerOf<RoceRethHeader>
{
  struct Fields
  {
    uint32_t virtualAddress;
    uint32_t dmaLength;
  };
  static constexpr bool kBig = false;
  static uint8_t Kind();
  static void Write(FabricFrame& frame, const RoceRethHeader& h);
  static void Read(const FabricFrame& frame, RoceRethHeader& h);
};

/// \brief An RDMA WRITE frame: `spec`'s IPv6, UDP and BTH, a RETH (virtual address, DMA length)
/// if `reth`, then spec.payloadBytes of payload.
FramePtr MakeWriteFrame(const FabricPacketSpec& spec, bool reth, uint64_t virtualAddress, uint32_t dmaLength);

/// \brief As above with a RETH at virtual address `virtualAddress` whose DMA length is the payload.
FramePtr MakeWriteFrame(const FabricPacketSpec& spec, uint64_t virtualAddress = 0);

/// \brief The bytes of MakeWriteFrame(spec, reth, virtualAddress, spec.payloadBytes), for tests
/// and tools that want a packet.
Ptr<Packet> MakeWritePacket(const FabricPacketSpec& spec, bool reth = true, uint64_t virtualAddress = 0);

/// \brief IPv6 + UDP + BTH (+ RETH) bytes of a WRITE frame, without payload.
uint32_t WriteHeaderBytes(bool reth);

} // namespace ns3

#endif
