// FabricFrame: the frame the fabric carries against the bytes the header classes write.
#include "models/fabric/fabric-frame.h"

#include "models/wire/fabric-address.h"
#include "models/mrc/mrc-frame.h"
#include "models/mrc/mrc-queue-pair.h"
#include "models/rdma/rdma-frame.h"
#include "models/roce/roce-frame.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/send-time-tag.h"

#include "tests/models/fabric-test-fixture.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <vector>

using namespace ns3;
using namespace mrcsim::test;

namespace
{

std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
  std::vector<uint8_t> b(p->GetSize());
  p->CopyData(b.data(), b.size());
  return b;
}

constexpr uint32_t kVa = 0xF1020304u; ///< a RETH virtual address (a frame keeps 32 bits of it)

FabricPacketSpec
Spec()
{
  FabricPacketSpec s;
  s.srcGpu = 70000;
  s.dstGpu = 131071;
  s.plane = 5;
  s.entropy = 0xC123;
  s.flowLabel = 0xABCDE;
  s.destQp = 0x123456;
  s.psn = 0xFFFFFE;
  s.ackRequest = true;
  s.payloadBytes = 4096;
  return s;
}

/// The frame's bytes, read back into a frame, give the same bytes again.
void
CheckRoundTrip(const FabricFrame& f)
{
  Ptr<Packet> p = ToPacket(f);
  CHECK(p->GetSize() == f.Size());
  FramePtr back = FromPacket(p, f.Protocol());
  CHECK(Bytes(ToPacket(*back)) == Bytes(p));
  CHECK(back->Size() == f.Size());
  CHECK(back->inner == f.inner);
}

/// A RETH data frame (virtual address kVa, DMA length the payload).
FramePtr
Data(const FabricPacketSpec& s)
{
  return MakeWriteFrame(s, kVa);
}

} // namespace

TEST_CASE("frame: a data frame holds exactly what its packet's headers say", "[frame]")
{
  const FabricPacketSpec s = Spec();
  FramePtr f = Data(s);
  Ptr<Packet> p = MakeWritePacket(s, true, kVa);
  CHECK(f->Size() == p->GetSize());
  CHECK(f->Size() == WriteHeaderBytes(true) + 4096);
  Ptr<Packet> c = p->Copy();
  Ipv6UsidHeader ip;
  c->RemoveHeader(ip);
  CHECK(ip.GetDestinationBytes() == GpuAddress(131071, 5));
  CHECK(ip.GetSourceBytes() == GpuAddress(70000, 5));
  CHECK(ip.GetFlowLabel() == 0xABCDEu);
  CHECK(ip.GetDscp() == 26);
  CHECK(ip.GetEcn() == Ipv6UsidHeader::Ect0);
  CHECK(ip.GetHopLimit() == 64);
  CHECK(ip.GetPayloadLength() == f->ipPayloadLength);
  RoceUdpHeader udp;
  c->RemoveHeader(udp);
  CHECK(udp.GetSourcePort() == 0xC123);
  CHECK(udp.GetDestinationPort() == RoceUdpHeader::kRoceV2Port);
  RoceBthHeader bth;
  c->RemoveHeader(bth);
  CHECK(bth.GetDestQp() == 0x123456u);
  CHECK(bth.GetPsn() == 0xFFFFFEu);
  CHECK(bth.GetAckReq());
  RoceRethHeader reth;
  c->RemoveHeader(reth);
  CHECK(reth.GetVirtualAddress() == 0xF1020304u);
  CHECK(reth.GetDmaLength() == 4096u);
  CHECK(c->GetSize() == 4096u);
  CHECK(f->PayloadReceived() == 4096u);

  // Reading the packet gives the same frame fields back.
  FramePtr g = FromPacket(p, FabricPort::kIpv6);
  CHECK(g->dst == f->dst);
  CHECK(g->srcGpu == 70000u);
  CHECK(g->srcPlane == 5);
  CHECK(g->flowLabel == f->flowLabel);
  CHECK(g->trafficClass == f->trafficClass);
  CHECK(g->srcPort == f->srcPort);
  CHECK(g->destQp == f->destQp);
  CHECK(g->psn == f->psn);
  CHECK(g->ackRequest);
  CHECK(g->inner == FrameInnerOf<RoceRethHeader>::Kind());
  RoceRethHeader gReth;
  ReadInner(*g, gReth);
  CHECK(gReth.GetVirtualAddress() == kVa);
  CHECK(g->payloadBytes == 4096);
}

TEST_CASE("frame: every inner header and a PFC frame round-trip through bytes", "[frame]")
{
  FabricPacketSpec s = Spec();
  s.usids = std::vector<uint16_t>{ 3, 17, 2 };
  CheckRoundTrip(*Data(s));

  MrcSackHeader sack;
  sack.SetCumulativeAckPsn(0xABCD);
  sack.SetAckedPsn(0xABD5);
  sack.SetSackBaseOffset(1);
  sack.SetBitmap(0x8000000000000041ull);
  sack.SetEchoedEv(0x1234);
  sack.SetEcnEcho(true);
  sack.SetTimestampEcho(0xDEADBEEF);
  s.opcode = MrcQueuePair::kOpSack;
  FramePtr f = MakeControlFrame(s, sack);
  CHECK(f->Size() == FabricHeaderBytes() + MrcSackHeader::kSize);
  CheckRoundTrip(*f);
  MrcSackHeader read;
  ReadInner(*FromPacket(ToPacket(*f), FabricPort::kIpv6), read);
  CHECK(read.GetBitmap() == 0x8000000000000041ull);
  CHECK(read.GetEcnEcho());
  CHECK(read.GetTimestampEcho() == 0xDEADBEEFu);
  CHECK(read.GetEchoedEv() == 0x1234);

  MrcNackHeader nack;
  nack.SetPsn(77);
  nack.SetReason(MrcNackHeader::Trimmed);
  nack.SetEchoedEv(9);
  s.opcode = MrcQueuePair::kOpNack;
  CheckRoundTrip(*MakeControlFrame(s, nack));

  MrcProbeHeader probe;
  probe.SetType(MrcProbeHeader::Response);
  probe.SetEv(44);
  probe.SetSequence(99);
  probe.SetSendTimestamp(123456789);
  s.opcode = MrcQueuePair::kOpProbe;
  CheckRoundTrip(*MakeControlFrame(s, probe));

  RoceAethHeader aeth;
  aeth.SetNak(RoceAethHeader::kNakPsnSequenceError);
  aeth.SetMsn(0x654321);
  s.opcode = RoceBthHeader::kRcAck;
  CheckRoundTrip(*MakeControlFrame(s, aeth));

  s.opcode = RoceBthHeader::kCnp;
  FramePtr cnp = MakeControlFrame(s, RoceCnpHeader());
  CHECK(cnp->Size() == FabricHeaderBytes() + RoceCnpHeader::kSize);
  CheckRoundTrip(*cnp);

  PfcPauseHeader pfc;
  pfc.SetPause(3, 0xFFFF);
  FramePtr pause = FramePtr::Make(true);
  WriteInner(*pause, pfc);
  CHECK(pause->Protocol() == PfcPauseHeader::kEtherType);
  CHECK(pause->Size() == PfcPauseHeader::kSize);
  CheckRoundTrip(*pause);
  PfcPauseHeader back;
  ReadInner(*FromPacket(ToPacket(*pause), PfcPauseHeader::kEtherType), back);
  CHECK(back.IsClassEnabled(3));
  CHECK(back.GetQuanta(3) == 0xFFFF);
  CHECK_FALSE(back.IsClassEnabled(2));
}

TEST_CASE("frame: a trimmed frame is cut to its IPv6 payload length and keeps its send time", "[frame]")
{
  FramePtr f = Data(Spec());
  const uint32_t udpLength = f->ipPayloadLength;
  f->ipPayloadLength = 48; // an 88-byte trimmed frame: UDP, BTH, RETH and 12 payload bytes
  SetSendTime(f, 4242);
  Ptr<Packet> p = ToPacket(*f);
  CHECK(p->GetSize() == 88u);
  CHECK(f->PayloadReceived() == 12u);
  SendTimeTag tag;
  REQUIRE(p->PeekPacketTag(tag));
  CHECK(tag.GetTime().GetTimeStep() == 4242);
  Ptr<Packet> c = p->Copy();
  Ipv6UsidHeader ip;
  c->RemoveHeader(ip);
  RoceUdpHeader udp;
  c->RemoveHeader(udp);
  CHECK(udp.GetLength() == udpLength); // the UDP length still says what was sent
  CheckRoundTrip(*f);
  FramePtr back = FromPacket(p, FabricPort::kIpv6);
  CHECK(back->timed);
  CHECK(back->SendTime() == 4242);
  CHECK(back->payloadBytes == 4096);
}

TEST_CASE("frame: frames are 48 bytes unless their fields need 64, and a send time moves a frame to 64", "[frame]")
{
  FabricPacketSpec s = Spec();
  FramePtr data = Data(s);
  CHECK_FALSE(data->big);
  s.opcode = RoceBthHeader::kRcAck;
  CHECK_FALSE(MakeControlFrame(s, RoceAethHeader())->big);
  s.opcode = MrcNackHeader::kBthOpcode;
  CHECK_FALSE(MakeControlFrame(s, MrcNackHeader())->big);
  s.opcode = MrcSackHeader::kBthOpcode;
  MrcSackHeader sack;
  sack.SetBitmap(0x8000000000000001ull);
  sack.SetTimestampEcho(0xFEDCBA98u);
  FramePtr sf = MakeControlFrame(s, sack);
  CHECK(sf->big);
  MrcSackHeader sackBack;
  ReadInner(*sf, sackBack);
  CHECK(sackBack.GetBitmap() == 0x8000000000000001ull);
  CHECK(sackBack.GetTimestampEcho() == 0xFEDCBA98u);
  s.opcode = MrcProbeHeader::kBthOpcode;
  CHECK(MakeControlFrame(s, MrcProbeHeader())->big);

  // Small frames are 48 bytes apart in the arena: two made in a row do not overlap, and
  // zeroing one leaves the other's fields alone.
  FramePtr a = Data(Spec());
  FramePtr b = Data(Spec());
  const auto gap = std::abs(reinterpret_cast<const char*>(b.Get()) - reinterpret_cast<const char*>(a.Get()));
  CHECK(gap >= std::ptrdiff_t(FabricFrame::kSmallBytes));
  RoceRethHeader ra;
  RoceRethHeader rb;
  ReadInner(*a, ra);
  ReadInner(*b, rb);
  CHECK(ra.GetDmaLength() == 4096u);
  CHECK(rb.GetDmaLength() == 4096u);

  // A send time moves a small frame to a big one with every field kept.
  const std::vector<uint8_t> before = Bytes(ToPacket(*a));
  const uint64_t live = FramePtr::Live();
  SetSendTime(a, 777);
  CHECK(a->big);
  CHECK(a->timed);
  CHECK(a->SendTime() == 777);
  CHECK(FramePtr::Live() == live);      // the small frame went back to the pool
  CHECK(Bytes(ToPacket(*a)) == before); // the send time travels as a tag, not in the bytes
  SendTimeTag tag;
  CHECK(ToPacket(*a)->PeekPacketTag(tag));
  CHECK(tag.GetTime().GetTimeStep() == 777);
}

TEST_CASE("frame: uSID carrier helpers match the IPv6 header's", "[frame][usid]")
{
  FabricPacketSpec s = Spec();
  s.usids = std::vector<uint16_t>{ 3, 17, 2 };
  FramePtr f = Data(s);
  Ipv6UsidHeader ip;
  ip.SetDestinationBytes(f->dst);
  CHECK(f->Locator() == ip.GetLocator());
  for (uint16_t expected : { 3, 17, 2, 0 })
  {
    CHECK(f->ActiveUsid() == expected);
    CHECK(ip.GetActiveUsid() == expected);
    f->ShiftUsid();
    ip.ShiftUsid();
    CHECK(f->dst == ip.GetDestinationBytes());
  }
}

TEST_CASE("frame: the pool hands frames back and a finished run leaves none alive", "[frame]")
{
  const uint64_t before = FramePtr::Live();
  {
    FramePtr a = Data(Spec());
    FramePtr b = std::move(a);
    CHECK_FALSE(a);
    CHECK(FramePtr::Live() == before + 1);
    FramePtr c = FramePtr::Make();
    CHECK(FramePtr::Live() == before + 2);
    c = std::move(b);
    CHECK(FramePtr::Live() == before + 1);
  }
  CHECK(FramePtr::Live() == before);

  // Frames queued and on the wire when a run stops are returned when the network is torn down.
  {
    FabricFixture fx(TinyMultiplane());
    for (uint32_t k = 0; k < 50; ++k)
    {
      fx.net->GetHost(0)->Send(FromPacket(DataPacket(0, 2, 0, 4096), FabricPort::kIpv6),
                               fx.NicPort(0, 0)->GetIfIndex());
    }
    Simulator::Stop(MicroSeconds(2));
    Simulator::Run();
    CHECK(FramePtr::Live() > before);
    CHECK(fx.net->GetHost(0)->GetPort(0)->TxPackets() > 0);
  }
  CHECK(FramePtr::Live() == before);
}

namespace
{

/// A header of a transport the fabric has never heard of: 6 bytes after its own BTH opcode.
class TestTokenHeader : public Header
{
public:
  static constexpr uint32_t kSize = 6;
  static constexpr uint8_t kBthOpcode = 0xD3;
  static TypeId GetTypeId()
  {
    static TypeId tid = TypeId("mrcsim::test::TestTokenHeader").SetParent<Header>();
    return tid;
  }
  TypeId GetInstanceTypeId() const override { return GetTypeId(); }
  uint32_t GetSerializedSize() const override { return kSize; }
  void Serialize(Buffer::Iterator i) const override
  {
    i.WriteHtonU32(token);
    i.WriteHtonU16(tag);
  }
  uint32_t Deserialize(Buffer::Iterator i) override
  {
    token = i.ReadNtohU32();
    tag = i.ReadNtohU16();
    return kSize;
  }
  void Print(std::ostream& os) const override { os << "token=" << token << " tag=" << tag; }
  uint32_t token = 0;
  uint16_t tag = 0;
};

} // namespace

namespace ns3
{

template<>
struct FrameInnerOf<TestTokenHeader>
{
  struct Fields
  {
    uint32_t token;
    uint16_t tag;
  };
  static constexpr bool kBig = false;
  static uint8_t Kind()
  {
    static const uint8_t kind = [] {
      const uint8_t k = FrameInners::Register(MakeFrameInnerCodec<TestTokenHeader>("test token"));
      FrameInners::BindOpcode(TestTokenHeader::kBthOpcode, k);
      return k;
    }();
    return kind;
  }
  static void Write(FabricFrame& f, const TestTokenHeader& h)
  {
    f.inner = Kind();
    f.InnerFields<Fields>() = Fields{ h.token, h.tag };
  }
  static void Read(const FabricFrame& f, TestTokenHeader& h)
  {
    h.token = f.InnerFields<Fields>().token;
    h.tag = f.InnerFields<Fields>().tag;
  }
};

} // namespace ns3

TEST_CASE("frame: a transport's own inner header travels without the fabric knowing it", "[frame]")
{
  FabricPacketSpec s = Spec();
  s.opcode = TestTokenHeader::kBthOpcode;
  TestTokenHeader h;
  h.token = 0xCAFEF00D;
  h.tag = 0x4242;
  FramePtr f = MakeControlFrame(s, h);
  CHECK_FALSE(f->big);
  CHECK(f->inner == FrameInnerOf<TestTokenHeader>::Kind());
  CHECK(f->Size() == FabricHeaderBytes() + TestTokenHeader::kSize);
  CheckRoundTrip(*f);
  // The bytes after the BTH are the header class's, and reading them back finds the codec by opcode.
  Ptr<Packet> p = ToPacket(*f);
  std::vector<uint8_t> b = Bytes(p);
  REQUIRE(b.size() == FabricHeaderBytes() + TestTokenHeader::kSize);
  CHECK(b[FabricHeaderBytes()] == 0xCA);
  CHECK(b[FabricHeaderBytes() + 5] == 0x42);
  TestTokenHeader back;
  ReadInner(*FromPacket(p, FabricPort::kIpv6), back);
  CHECK(back.token == 0xCAFEF00Du);
  CHECK(back.tag == 0x4242);
}
