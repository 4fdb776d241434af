#include "models/rdma/rdma-frame.h"

#include "models/wire/roce-bth-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaFrame");

namespace
{

/// Registered at load time; FromPacket reads a RETH after the WRITE opcodes the standard gives
/// one (First, Only, Only with immediate) when the packet has room for it.
const uint8_t g_rethKind = RegisterFrameInner<RoceRethHeader>(
  "RETH",
  { RoceBthHeader::kRcWriteFirst, RoceBthHeader::kRcWriteOnly, RoceBthHeader::kRcWriteOnlyImm },
  true);

/// A RETH virtual address as a frame keeps it (32 bits).
uint32_t
FrameVirtualAddress(uint64_t address)
{
  NS_ABORT_MSG_IF(address > UINT32_MAX,
                  "FabricFrame: RETH virtual address 0x" << std::hex << address
                                                         << " is beyond the 32 bits a frame keeps");
  return static_cast<uint32_t>(address);
}

} // namespace

uint8_t
FrameInnerOf<RoceRethHeader>::Kind()
{
  return g_rethKind;
}

void
FrameInnerOf<RoceRethHeader>::Write(FabricFrame& f, const RoceRethHeader& h)
{
  f.inner = g_rethKind;
  Fields& x = f.InnerFields<Fields>();
  x.virtualAddress = FrameVirtualAddress(h.GetVirtualAddress());
  x.dmaLength = h.GetDmaLength();
}

void
FrameInnerOf<RoceRethHeader>::Read(const FabricFrame& f, RoceRethHeader& h)
{
  const Fields& x = f.InnerFields<Fields>();
  h.SetVirtualAddress(x.virtualAddress);
  h.SetRkey(1);
  h.SetDmaLength(x.dmaLength);
}

FramePtr
MakeWriteFrame(const FabricPacketSpec& spec, bool reth, uint64_t virtualAddress, uint32_t dmaLength)
{
  FramePtr f = MakeFrame(spec);
  if (reth)
  {
    RoceRethHeader h;
    h.SetVirtualAddress(virtualAddress);
    h.SetDmaLength(dmaLength);
    AddInner(*f, h);
  }
  return f;
}

FramePtr
MakeWriteFrame(const FabricPacketSpec& spec, uint64_t virtualAddress)
{
  return MakeWriteFrame(spec, true, virtualAddress, spec.payloadBytes);
}

Ptr<Packet>
MakeWritePacket(const FabricPacketSpec& spec, bool reth, uint64_t virtualAddress)
{
  return ToPacket(*MakeWriteFrame(spec, reth, virtualAddress, spec.payloadBytes));
}

uint32_t
WriteHeaderBytes(bool reth)
{
  return FabricHeaderBytes() + (reth ? RoceRethHeader::kSize : 0);
}

} // namespace ns3
