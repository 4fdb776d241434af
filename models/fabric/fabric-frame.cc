// Frames: the inner-header registry, the frame's own fields, and the conversion to and from the
// bytes the header classes write. The pools are in frame-pool.cc.
#include "models/fabric/fabric-frame.h"

#include "models/wire/fabric-address.h"
#include "models/engine/fabric-parallel-simulator.h"
#include "models/wire/pfc-pause-header.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-udp-header.h"
#include "models/wire/send-time-tag.h"

#include "topologies/fabric-routing.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricFrame");

FrameInnerCodec FrameInners::s_codecs[256];
uint8_t FrameInners::s_wireBytes[256];
bool FrameInners::s_big[256];
uint8_t FrameInners::s_opcodeKind[256];
bool FrameInners::s_opcodeWhenRoom[256];
uint32_t FrameInners::s_registered;

void
FrameInners::Put(uint8_t kind, const FrameInnerCodec& codec)
{
  NS_ABORT_MSG_IF(codec.wireBytes > 255 || !codec.addTo || !codec.removeFrom,
                  "FrameInners: codec " << codec.name << " is incomplete or has more than 255 bytes");
  s_codecs[kind] = codec;
  s_wireBytes[kind] = static_cast<uint8_t>(codec.wireBytes);
  s_big[kind] = codec.big;
}

uint8_t
FrameInners::Register(const FrameInnerCodec& codec)
{
  // Kinds 0 (none) and 1 (PFC) are the fabric's.
  NS_ABORT_MSG_IF(s_registered + 2 > 255, "FrameInners: more than 253 inner-header kinds");
  const auto kind = static_cast<uint8_t>(2 + s_registered++);
  Put(kind, codec);
  return kind;
}

void
FrameInners::BindOpcode(uint8_t opcode, uint8_t kind, bool whenRoom)
{
  NS_ABORT_MSG_IF(s_opcodeKind[opcode] != kNone && s_opcodeKind[opcode] != kind,
                  "FrameInners: opcode 0x" << std::hex << int(opcode) << " is bound to "
                                            << s_codecs[s_opcodeKind[opcode]].name << " and to "
                                            << s_codecs[kind].name);
  s_opcodeKind[opcode] = kind;
  s_opcodeWhenRoom[opcode] = whenRoom;
}

const FrameInnerCodec&
FrameInners::Get(uint8_t kind)
{
  NS_ABORT_MSG_IF(kind == kNone || !s_codecs[kind].addTo, "FrameInners: no codec of kind " << int(kind));
  return s_codecs[kind];
}

uint8_t
FrameInners::KindAfter(uint8_t opcode, uint32_t bytesAfterBth)
{
  const uint8_t kind = s_opcodeKind[opcode];
  if (kind != kNone && s_opcodeWhenRoom[opcode] && bytesAfterBth < s_wireBytes[kind])
  {
    return kNone;
  }
  return kind;
}

/// The fabric's own codec (PFC), at its fixed kind.
struct FabricFrameCodecs
{
  FabricFrameCodecs() { FrameInners::Put(FrameInners::kPfc, MakeFrameInnerCodec<PfcPauseHeader>("PFC")); }
};

namespace
{
const FabricFrameCodecs g_fabricCodecs;
} // namespace

void
FrameInnerOf<PfcPauseHeader>::Write(FabricFrame& f, const PfcPauseHeader& h)
{
  NS_ABORT_MSG_IF(!f.big, "WriteInner: a PFC frame needs a big frame (FramePtr::Make(true))");
  f.inner = FrameInners::kPfc;
  Fields& x = f.InnerFields<Fields>();
  x.classEnableVector = h.GetClassEnableVector();
  for (uint8_t c = 0; c < PfcPauseHeader::kPriorities; ++c)
  {
    x.quanta[c] = h.GetQuanta(c);
  }
}

void
FrameInnerOf<PfcPauseHeader>::Read(const FabricFrame& f, PfcPauseHeader& h)
{
  const Fields& x = f.InnerFields<Fields>();
  h.SetClassEnableVector(x.classEnableVector);
  for (uint8_t c = 0; c < PfcPauseHeader::kPriorities; ++c)
  {
    h.SetQuanta(c, x.quanta[c]);
  }
}

void
FabricFrame::SetSendTime(int64_t timeStep)
{
  NS_ABORT_MSG_IF(FrameInners::IsBig(inner),
                  "FabricFrame::SetSendTime: only frames whose inner header fits a small frame carry a send time");
  NS_ABORT_MSG_IF(!big, "FabricFrame::SetSendTime: a send time needs a big frame (see ns3::SetSendTime)");
  timed = true;
  std::memcpy(innerArea + kSmallInnerBytes, &timeStep, sizeof timeStep);
}

void
SetSendTime(FramePtr& frame, int64_t timeStep)
{
  if (!frame->big)
  {
    FramePtr big = FramePtr::Make(true);
    std::memcpy(static_cast<void*>(big.Get()), static_cast<const void*>(frame.Get()), FabricFrame::kSmallBytes);
    big->big = true;
    frame = std::move(big);
  }
  frame->SetSendTime(timeStep);
}

uint32_t
FabricFrame::PayloadReceived() const
{
  const uint32_t headers = RoceUdpHeader::kSize + RoceBthHeader::kSize + InnerBytes();
  return ipPayloadLength > headers ? std::min<uint32_t>(ipPayloadLength - headers, payloadBytes) : 0;
}

uint32_t
FabricFrame::Locator() const
{
  return (uint32_t(dst[0]) << 24) | (uint32_t(dst[1]) << 16) | (uint32_t(dst[2]) << 8) | dst[3];
}

void
FabricFrame::ShiftUsid()
{
  std::memmove(&dst[4], &dst[6], 10);
  dst[14] = 0;
  dst[15] = 0;
}

FramePtr
MakeFrame(const FabricPacketSpec& s, bool big)
{
  FramePtr f = FramePtr::Make(big);
  f->srcGpu = s.srcGpu;
  f->srcPlane = static_cast<uint8_t>(s.plane);
  if (s.usids.empty())
  {
    f->dst = GpuAddress(s.dstGpu, s.plane);
  }
  else
  {
    Ipv6UsidHeader ip;
    ip.SetUsidDestination(mrcsim::FabricRouting::Locator(s.plane), s.usids);
    f->dst = ip.GetDestinationBytes();
  }
  NS_ABORT_MSG_IF(s.flowLabel > 0xFFFFF, "MakeFrame: flow label " << s.flowLabel << " does not fit in 20 bits");
  f->flowLabel = s.flowLabel;
  f->trafficClass = static_cast<uint8_t>((s.dscp << 2) | s.ecn);
  f->hopLimit = 64;
  f->srcPort = s.entropy;
  f->opcode = s.opcode;
  f->ackRequest = s.ackRequest;
  f->destQp = s.destQp & 0xFFFFFF;
  f->psn = s.psn & 0xFFFFFF;
  f->payloadBytes = static_cast<uint16_t>(s.payloadBytes);
  f->ipPayloadLength = static_cast<uint16_t>(RoceUdpHeader::kSize + RoceBthHeader::kSize + s.payloadBytes);
  return f;
}

Ptr<Packet>
ToPacket(const FabricFrame& f)
{
  // ns-3 Packets share global state (free lists, the uid counter) that nothing locks.
  NS_ABORT_MSG_IF(FabricParallelSimulatorImpl::InParallelWindow(),
                  "a frame was converted to an ns-3 Packet inside a parallel run's window (a packet trace "
                  "source or pcap is on): run with one partition to trace packets");
  if (f.IsPfc())
  {
    Ptr<Packet> p = Create<Packet>();
    FrameInners::Get(f.inner).addTo(f, *p);
    return p;
  }
  Ptr<Packet> p = Create<Packet>(f.payloadBytes);
  if (f.timed)
  {
    SendTimeTag tag;
    tag.SetTime(TimeStep(static_cast<uint64_t>(f.SendTime())));
    p->AddPacketTag(tag);
  }
  if (f.inner != FrameInners::kNone)
  {
    FrameInners::Get(f.inner).addTo(f, *p);
  }
  RoceBthHeader bth;
  bth.SetOpcode(f.opcode);
  bth.SetDestQp(f.destQp);
  bth.SetPsn(f.psn);
  bth.SetAckReq(f.ackRequest);
  p->AddHeader(bth);
  RoceUdpHeader udp;
  udp.SetSourcePort(f.srcPort);
  udp.SetDestinationPort(RoceUdpHeader::kRoceV2Port);
  udp.SetLength(static_cast<uint16_t>(p->GetSize() + RoceUdpHeader::kSize));
  p->AddHeader(udp);
  // Trimmed: the content after the IPv6 header was cut to its payload length.
  if (p->GetSize() > f.ipPayloadLength)
  {
    p->RemoveAtEnd(p->GetSize() - f.ipPayloadLength);
  }
  Ipv6UsidHeader ip;
  ip.SetTrafficClass(f.trafficClass);
  ip.SetFlowLabel(f.flowLabel);
  ip.SetPayloadLength(f.ipPayloadLength);
  ip.SetNextHeader(Ipv6UsidHeader::kNextHeaderUdp);
  ip.SetHopLimit(f.hopLimit);
  ip.SetSourceBytes(GpuAddress(f.srcGpu, f.srcPlane));
  ip.SetDestinationBytes(f.dst);
  p->AddHeader(ip);
  return p;
}

FramePtr
FromPacket(Ptr<const Packet> packet, uint16_t protocol, int innerKind)
{
  FramePtr f = FramePtr::Make(true); // big: it may hold anything
  Ptr<Packet> p = packet->Copy();
  if (protocol == PfcPauseHeader::kEtherType)
  {
    FrameInners::Get(FrameInners::kPfc).removeFrom(*f, *p);
    return f;
  }
  NS_ABORT_MSG_IF(protocol != 0x86DD, "FromPacket: EtherType 0x" << std::hex << protocol << " is neither IPv6 nor PFC");
  Ipv6UsidHeader ip;
  p->RemoveHeader(ip);
  NS_ABORT_MSG_IF(ip.GetNextHeader() != Ipv6UsidHeader::kNextHeaderUdp,
                  "FromPacket: next header " << int(ip.GetNextHeader()) << "; the fabric carries IPv6 + UDP only");
  NS_ABORT_MSG_IF(!IsGpuAddress(ip.GetSourceBytes()),
                  "FromPacket: source " << ip.GetSource() << " is not a GPU address");
  const auto& src = ip.GetSourceBytes();
  f->srcGpu = GpuOfAddress(src);
  f->srcPlane = static_cast<uint8_t>((src[4] << 8) | src[5]);
  f->dst = ip.GetDestinationBytes();
  f->flowLabel = ip.GetFlowLabel();
  f->trafficClass = ip.GetTrafficClass();
  f->hopLimit = ip.GetHopLimit();
  f->ipPayloadLength = ip.GetPayloadLength();
  NS_ABORT_MSG_IF(p->GetSize() < RoceUdpHeader::kSize + RoceBthHeader::kSize,
                  "FromPacket: " << p->GetSize() << " bytes after IPv6, fewer than UDP + BTH");
  RoceUdpHeader udp;
  p->RemoveHeader(udp);
  RoceBthHeader bth;
  p->RemoveHeader(bth);
  f->srcPort = udp.GetSourcePort();
  f->opcode = bth.GetOpcode();
  f->ackRequest = bth.GetAckReq();
  f->destQp = bth.GetDestQp();
  f->psn = bth.GetPsn();
  // What follows the BTH: the inner header registered for the opcode (a RETH only where there
  // is room for one, so MRC's RETH on middle and last packets is read as payload).
  const uint8_t op = f->opcode;
  const uint32_t afterBth = udp.GetLength() - RoceUdpHeader::kSize - RoceBthHeader::kSize;
  f->inner = innerKind >= 0 ? static_cast<uint8_t>(innerKind) : FrameInners::KindAfter(op, afterBth);
  NS_ABORT_MSG_IF(udp.GetLength() < RoceUdpHeader::kSize + RoceBthHeader::kSize + f->InnerBytes(),
                  "FromPacket: UDP length " << udp.GetLength() << " too short for opcode 0x" << std::hex << int(op));
  f->payloadBytes = static_cast<uint16_t>(afterBth - f->InnerBytes());
  SendTimeTag tag;
  if (p->PeekPacketTag(tag))
  {
    f->SetSendTime(tag.GetTime().GetTimeStep());
  }
  // A trimmed packet lost its inner header with the payload: its fields stay zero.
  if (p->GetSize() < f->InnerBytes())
  {
    return f;
  }
  if (f->inner != FrameInners::kNone)
  {
    FrameInners::Get(f->inner).removeFrom(*f, *p);
  }
  return f;
}

} // namespace ns3
