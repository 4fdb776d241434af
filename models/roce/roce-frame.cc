#include "models/roce/roce-frame.h"

#include "models/wire/roce-bth-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFrame");

namespace
{

// Registered at load time, each read by FromPacket after its own BTH opcode.
const uint8_t g_aethKind = RegisterFrameInner<RoceAethHeader>("AETH", { RoceBthHeader::kRcAck });
const uint8_t g_cnpKind = RegisterFrameInner<RoceCnpHeader>("CNP", { RoceBthHeader::kCnp });

} // namespace

uint8_t
FrameInnerOf<RoceAethHeader>::Kind()
{
  return g_aethKind;
}

void
FrameInnerOf<RoceAethHeader>::Write(FabricFrame& f, const RoceAethHeader& h)
{
  f.inner = g_aethKind;
  Fields& x = f.InnerFields<Fields>();
  x.syndrome = h.GetSyndrome();
  x.msn = h.GetMsn();
}

void
FrameInnerOf<RoceAethHeader>::Read(const FabricFrame& f, RoceAethHeader& h)
{
  const Fields& x = f.InnerFields<Fields>();
  h.SetSyndrome(x.syndrome);
  h.SetMsn(x.msn);
}

uint8_t
FrameInnerOf<RoceCnpHeader>::Kind()
{
  return g_cnpKind;
}

void
FrameInnerOf<RoceCnpHeader>::Write(FabricFrame& f, const RoceCnpHeader&)
{
  f.inner = g_cnpKind;
}

void
FrameInnerOf<RoceCnpHeader>::Read(const FabricFrame&, RoceCnpHeader&)
{
}

} // namespace ns3
