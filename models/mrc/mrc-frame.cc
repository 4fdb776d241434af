#include "models/mrc/mrc-frame.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcFrame");

namespace
{

// Registered at load time, each read by FromPacket after its own BTH opcode.
const uint8_t g_sackKind = RegisterFrameInner<MrcSackHeader>("MRC SACK", { MrcSackHeader::kBthOpcode });
const uint8_t g_nackKind = RegisterFrameInner<MrcNackHeader>("MRC NACK", { MrcNackHeader::kBthOpcode });
const uint8_t g_probeKind = RegisterFrameInner<MrcProbeHeader>("MRC probe", { MrcProbeHeader::kBthOpcode });

} // namespace

uint8_t
FrameInnerOf<MrcSackHeader>::Kind()
{
  return g_sackKind;
}

void
FrameInnerOf<MrcSackHeader>::Write(FabricFrame& f, const MrcSackHeader& h)
{
  NS_ABORT_MSG_IF(!f.big, "WriteInner: a SACK needs a big frame (FramePtr::Make(true))");
  f.inner = g_sackKind;
  Fields& x = f.InnerFields<Fields>();
  x.cumulativeAckPsn = h.GetCumulativeAckPsn();
  x.ackedPsn = h.GetAckedPsn();
  x.baseOffset = h.GetSackBaseOffset();
  x.bitmap = h.GetBitmap();
  x.echoedEv = h.GetEchoedEv();
  x.timestampEcho = h.GetTimestampEcho();
  f.innerFlag = h.GetEcnEcho();
}

void
FrameInnerOf<MrcSackHeader>::Read(const FabricFrame& f, MrcSackHeader& h)
{
  const Fields& x = f.InnerFields<Fields>();
  h.SetCumulativeAckPsn(x.cumulativeAckPsn);
  h.SetAckedPsn(x.ackedPsn);
  h.SetSackBaseOffset(x.baseOffset);
  h.SetBitmap(x.bitmap);
  h.SetEchoedEv(x.echoedEv);
  h.SetTimestampEcho(x.timestampEcho);
  h.SetEcnEcho(f.innerFlag);
}

uint8_t
FrameInnerOf<MrcNackHeader>::Kind()
{
  return g_nackKind;
}

void
FrameInnerOf<MrcNackHeader>::Write(FabricFrame& f, const MrcNackHeader& h)
{
  f.inner = g_nackKind;
  Fields& x = f.InnerFields<Fields>();
  x.psn = h.GetPsn();
  x.reason = h.GetReason();
  x.echoedEv = h.GetEchoedEv();
}

void
FrameInnerOf<MrcNackHeader>::Read(const FabricFrame& f, MrcNackHeader& h)
{
  const Fields& x = f.InnerFields<Fields>();
  h.SetPsn(x.psn);
  h.SetReason(static_cast<MrcNackHeader::Reason>(x.reason));
  h.SetEchoedEv(x.echoedEv);
}

uint8_t
FrameInnerOf<MrcProbeHeader>::Kind()
{
  return g_probeKind;
}

void
FrameInnerOf<MrcProbeHeader>::Write(FabricFrame& f, const MrcProbeHeader& h)
{
  NS_ABORT_MSG_IF(!f.big, "WriteInner: a probe needs a big frame (FramePtr::Make(true))");
  f.inner = g_probeKind;
  Fields& x = f.InnerFields<Fields>();
  x.type = h.GetType();
  x.ev = h.GetEv();
  x.sequence = h.GetSequence();
  x.sendTimestamp = h.GetSendTimestamp();
}

void
FrameInnerOf<MrcProbeHeader>::Read(const FabricFrame& f, MrcProbeHeader& h)
{
  const Fields& x = f.InnerFields<Fields>();
  h.SetType(static_cast<MrcProbeHeader::Type>(x.type));
  h.SetEv(x.ev);
  h.SetSequence(x.sequence);
  h.SetSendTimestamp(x.sendTimestamp);
}

} // namespace ns3
