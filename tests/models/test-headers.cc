// Round-trip and byte-layout tests of the IPv6/SRv6, UDP, RoCE (BTH, AETH, RETH, CNP) and PFC
// headers.
#include "models/wire/ipv6-usid-header.h"
#include "models/wire/pfc-pause-header.h"
#include "models/wire/roce-aeth-header.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-cnp-header.h"
#include "models/wire/roce-reth-header.h"
#include "models/wire/roce-udp-header.h"

#include "header-test-helpers.h"

#include "ns3/packet.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace ns3;
using namespace mrcsim::test;

namespace
{

Ipv6UsidHeader::AddressBytes
Seq(uint8_t first)
{
  Ipv6UsidHeader::AddressBytes a{};
  for (std::size_t k = 0; k < a.size(); ++k)
  {
    a[k] = static_cast<uint8_t>(first + k);
  }
  return a;
}

} // namespace

TEST_CASE("Ipv6UsidHeader round-trips every field", "[headers][ipv6]")
{
  Ipv6UsidHeader h;
  h.SetDscp(26);
  h.SetEcn(Ipv6UsidHeader::Ect0);
  h.SetFlowLabel(0xABCDE);
  h.SetPayloadLength(4160);
  h.SetNextHeader(Ipv6UsidHeader::kNextHeaderUdp);
  h.SetHopLimit(17);
  h.SetSourceBytes(Seq(0x10));
  h.SetUsidDestination(0xfc000001, { 0x0002, 0x0103, 0x0204 });

  CHECK(h.GetSerializedSize() == 40);
  Ipv6UsidHeader out = RoundTrip(h);
  CHECK(out.GetDscp() == 26);
  CHECK(out.GetEcn() == Ipv6UsidHeader::Ect0);
  CHECK(out.GetTrafficClass() == ((26 << 2) | 2));
  CHECK(out.GetFlowLabel() == 0xABCDE);
  CHECK(out.GetPayloadLength() == 4160);
  CHECK(out.GetNextHeader() == 17);
  CHECK(out.GetHopLimit() == 17);
  CHECK(out.GetSourceBytes() == Seq(0x10));
  CHECK(out.GetDestinationBytes() == h.GetDestinationBytes());
  CHECK(out.GetLocator() == 0xfc000001u);
  CHECK(out.GetRemainingUsids() == std::vector<uint16_t>{ 0x0002, 0x0103, 0x0204 });
}

TEST_CASE("Ipv6UsidHeader first word and addresses sit where IPv6 puts them", "[headers][ipv6]")
{
  Ipv6UsidHeader h;
  h.SetTrafficClass(0xB7); // DSCP 45, ECN CE
  h.SetFlowLabel(0x12345);
  h.SetPayloadLength(0x0102);
  h.SetNextHeader(43);
  h.SetHopLimit(64);
  h.SetSourceBytes(Seq(0xA0));
  h.SetDestinationBytes(Seq(0x30));
  std::vector<uint8_t> b = Bytes(h);
  REQUIRE(b.size() == 40);
  // Version 6 | TC 0xB7 | flow label 0x12345 = 0x6B712345.
  CHECK(b[0] == 0x6B);
  CHECK(b[1] == 0x71);
  CHECK(b[2] == 0x23);
  CHECK(b[3] == 0x45);
  CHECK(b[4] == 0x01);
  CHECK(b[5] == 0x02);
  CHECK(b[6] == 43);
  CHECK(b[7] == 64);
  CHECK(b[8] == 0xA0);
  CHECK(b[23] == 0xAF);
  CHECK(b[24] == 0x30);
  CHECK(b[39] == 0x3F);
  CHECK(h.GetEcn() == Ipv6UsidHeader::Ce);
  CHECK(h.GetDscp() == 45);
}

TEST_CASE("Ipv6UsidHeader ECN setters keep DSCP and vice versa", "[headers][ipv6]")
{
  Ipv6UsidHeader h;
  h.SetDscp(63);
  h.SetEcn(Ipv6UsidHeader::Ect1);
  CHECK(h.GetTrafficClass() == 0xFD);
  h.SetEcn(Ipv6UsidHeader::Ce);
  CHECK(h.GetDscp() == 63);
  CHECK(h.GetEcn() == Ipv6UsidHeader::Ce);
  h.SetDscp(0);
  CHECK(h.GetEcn() == Ipv6UsidHeader::Ce);
  CHECK(h.GetTrafficClass() == 0x03);
  h.SetEcn(Ipv6UsidHeader::NotEct);
  CHECK(h.GetTrafficClass() == 0);
}

TEST_CASE("uSID destination bytes: locator then uSIDs then zeros", "[headers][ipv6][usid]")
{
  Ipv6UsidHeader::AddressBytes a = Ipv6UsidHeader::MakeUsidAddress(0xfc000001, { 0x0002, 0x0103 });
  const Ipv6UsidHeader::AddressBytes expected{ 0xfc, 0x00, 0x00, 0x01, 0x00, 0x02, 0x01, 0x03, 0, 0, 0, 0, 0, 0, 0, 0 };
  CHECK(a == expected);

  Ipv6UsidHeader h;
  h.SetUsidDestination(0xfc000001, { 0x0002, 0x0103 });
  std::vector<uint8_t> b = Bytes(h);
  REQUIRE(b.size() == 40);
  CHECK(std::vector<uint8_t>(b.begin() + 24, b.end()) == std::vector<uint8_t>(expected.begin(), expected.end()));
  CHECK(h.GetDestination() == Ipv6Address("fc00:1:2:103::"));
}

TEST_CASE("ShiftUsid consumes one uSID per hop until the carrier is empty", "[headers][usid]")
{
  Ipv6UsidHeader h;
  h.SetUsidDestination(0xfc000001, { 0x0011, 0x0022, 0x0033, 0x0044, 0x0055, 0x0066 });
  CHECK(h.GetActiveUsid() == 0x0011);
  CHECK_FALSE(h.IsUsidCarrierEmpty());
  h.ShiftUsid();
  CHECK(h.GetLocator() == 0xfc000001u);
  CHECK(h.GetActiveUsid() == 0x0022);
  CHECK(h.GetRemainingUsids() == std::vector<uint16_t>{ 0x22, 0x33, 0x44, 0x55, 0x66 });
  const Ipv6UsidHeader::AddressBytes afterOne{ 0xfc, 0x00, 0x00, 0x01, 0x00, 0x22, 0x00, 0x33,
                                               0x00, 0x44, 0x00, 0x55, 0x00, 0x66, 0,    0 };
  CHECK(h.GetDestinationBytes() == afterOne);
  for (int k = 0; k < 4; ++k)
  {
    h.ShiftUsid();
  }
  CHECK(h.GetActiveUsid() == 0x0066);
  CHECK_FALSE(h.IsUsidCarrierEmpty());
  h.ShiftUsid();
  CHECK(h.IsUsidCarrierEmpty());
  CHECK(h.GetActiveUsid() == 0);
  CHECK(h.GetRemainingUsids().empty());
  CHECK(h.GetLocator() == 0xfc000001u);
  // A switch shifting an empty carrier leaves it empty.
  h.ShiftUsid();
  CHECK(h.IsUsidCarrierEmpty());
}

TEST_CASE("uSID helpers survive a wire round trip mid-path", "[headers][usid]")
{
  Ipv6UsidHeader h;
  h.SetUsidDestination(0xfc00abcd, { 0x0100, 0x0201, 0x0302, 0x0403 });
  h.ShiftUsid();
  Ipv6UsidHeader out = RoundTrip(h);
  CHECK(out.GetLocator() == 0xfc00abcdu);
  CHECK(out.GetActiveUsid() == 0x0201);
  CHECK(out.GetRemainingUsids() == std::vector<uint16_t>{ 0x0201, 0x0302, 0x0403 });
}

TEST_CASE("Ipv6UsidHeader converts to and from ns3::Ipv6Address", "[headers][ipv6]")
{
  Ipv6UsidHeader h;
  h.SetSource(Ipv6Address("2001:db8::1"));
  h.SetDestination(Ipv6Address("fc00:1:2:103::"));
  CHECK(h.GetSource() == Ipv6Address("2001:db8::1"));
  CHECK(h.GetLocator() == 0xfc000001u);
  CHECK(h.GetActiveUsid() == 0x0002);
  CHECK(h.GetSourceBytes()[0] == 0x20);
  CHECK(h.GetSourceBytes()[1] == 0x01);
  CHECK(h.GetSourceBytes()[15] == 0x01);
}

TEST_CASE("Ipv6UsidHeader rejects bad input", "[headers][ipv6][abort]")
{
  CHECK(Aborts([] { Ipv6UsidHeader::MakeUsidAddress(1, { 1, 2, 3, 4, 5, 6, 7 }); }));
  CHECK(Aborts([] { Ipv6UsidHeader::MakeUsidAddress(1, { 1, 0, 3 }); }));
  CHECK(Aborts([] { Ipv6UsidHeader().SetFlowLabel(0x100000); }));
  CHECK(Aborts([] { Ipv6UsidHeader().SetDscp(64); }));
  CHECK_FALSE(Aborts([] { Ipv6UsidHeader::MakeUsidAddress(1, { 1, 2, 3, 4, 5, 6 }); }));
  // A non-IPv6 version nibble is refused on receipt.
  CHECK(Aborts(
    []
    {
      Ptr<Packet> p = Create<Packet>(40);
      Ipv6UsidHeader h;
      p->RemoveHeader(h);
    }));
}

TEST_CASE("RoceUdpHeader is 8 bytes and round-trips", "[headers][udp]")
{
  RoceUdpHeader h;
  CHECK(h.GetSerializedSize() == 8);
  CHECK(h.GetDestinationPort() == 4791);
  h.SetSourcePort(0xC123);
  h.SetLength(8 + 12 + 16 + 4096);
  h.SetChecksum(0);
  std::vector<uint8_t> b = Bytes(h);
  CHECK(b == std::vector<uint8_t>{ 0xC1, 0x23, 0x12, 0xB7, 0x10, 0x24, 0x00, 0x00 });
  RoceUdpHeader out = RoundTrip(h);
  CHECK(out.GetSourcePort() == 0xC123);
  CHECK(out.GetDestinationPort() == RoceUdpHeader::kRoceV2Port);
  CHECK(out.GetLength() == 4132);
  CHECK(out.GetChecksum() == 0);
  CHECK(Aborts([] { RoceUdpHeader().SetLength(7); }));
}

TEST_CASE("RoceBthHeader bytes put opcode and QP and PSN where IBTA does", "[headers][bth]")
{
  RoceBthHeader h;
  h.SetOpcode(RoceBthHeader::kRcWriteMiddle);
  h.SetSolicitedEvent(true);
  h.SetPadCount(2);
  h.SetPkey(0x8001);
  h.SetDestQp(0xABCDEF);
  h.SetAckReq(true);
  h.SetPsn(0x123456);
  CHECK(h.GetSerializedSize() == 12);
  std::vector<uint8_t> b = Bytes(h);
  CHECK(b == std::vector<uint8_t>{ 0x07, 0xA0, 0x80, 0x01, 0x00, 0xAB, 0xCD, 0xEF, 0x80, 0x12, 0x34, 0x56 });
}

TEST_CASE("RoceBthHeader round-trips every field", "[headers][bth]")
{
  RoceBthHeader h;
  h.SetOpcode(RoceBthHeader::kRcWriteOnlyImm);
  h.SetSolicitedEvent(true);
  h.SetMigReq(true);
  h.SetPadCount(3);
  h.SetTver(5);
  h.SetPkey(0x7FFF);
  h.SetFecn(true);
  h.SetBecn(true);
  h.SetDestQp(0xFFFFFF);
  h.SetAckReq(true);
  h.SetPsn(0xFFFFFF);
  RoceBthHeader out = RoundTrip(h);
  CHECK(out.GetOpcode() == 0x0B);
  CHECK(out.GetSolicitedEvent());
  CHECK(out.GetMigReq());
  CHECK(out.GetPadCount() == 3);
  CHECK(out.GetTver() == 5);
  CHECK(out.GetPkey() == 0x7FFF);
  CHECK(out.GetFecn());
  CHECK(out.GetBecn());
  CHECK(out.GetDestQp() == 0xFFFFFFu);
  CHECK(out.GetAckReq());
  CHECK(out.GetPsn() == 0xFFFFFFu);

  RoceBthHeader plain;
  RoceBthHeader plainOut = RoundTrip(plain);
  CHECK_FALSE(plainOut.GetSolicitedEvent());
  CHECK_FALSE(plainOut.GetFecn());
  CHECK_FALSE(plainOut.GetBecn());
  CHECK_FALSE(plainOut.GetAckReq());
  CHECK(plainOut.GetPkey() == RoceBthHeader::kDefaultPkey);
}

TEST_CASE("RoceBthHeader opcodes and validation", "[headers][bth]")
{
  CHECK(RoceBthHeader::kRcWriteFirst == 0x06);
  CHECK(RoceBthHeader::kRcWriteMiddle == 0x07);
  CHECK(RoceBthHeader::kRcWriteLast == 0x08);
  CHECK(RoceBthHeader::kRcWriteLastImm == 0x09);
  CHECK(RoceBthHeader::kRcWriteOnly == 0x0A);
  CHECK(RoceBthHeader::kRcWriteOnlyImm == 0x0B);
  CHECK(RoceBthHeader::kRcAck == 0x11);
  CHECK(RoceBthHeader::kCnp == 0x81);
  CHECK(RoceBthHeader::IsRdmaWrite(RoceBthHeader::kRcWriteMiddle));
  CHECK_FALSE(RoceBthHeader::IsRdmaWrite(RoceBthHeader::kRcAck));
  CHECK(RoceBthHeader::HasStandardReth(RoceBthHeader::kRcWriteFirst));
  CHECK(RoceBthHeader::HasStandardReth(RoceBthHeader::kRcWriteOnlyImm));
  CHECK_FALSE(RoceBthHeader::HasStandardReth(RoceBthHeader::kRcWriteLast));
  CHECK(RoceBthHeader::HasImmediate(RoceBthHeader::kRcWriteLastImm));
  CHECK_FALSE(RoceBthHeader::HasImmediate(RoceBthHeader::kRcWriteLast));
  CHECK(RoceBthHeader::IsLastOfMessage(RoceBthHeader::kRcWriteOnly));
  CHECK_FALSE(RoceBthHeader::IsLastOfMessage(RoceBthHeader::kRcWriteFirst));
  CHECK(Aborts([] { RoceBthHeader().SetPsn(0x1000000); }));
  CHECK(Aborts([] { RoceBthHeader().SetDestQp(0x1000000); }));
  CHECK(Aborts([] { RoceBthHeader().SetPadCount(4); }));
}

TEST_CASE("RoceAethHeader encodes ACK and RNR NAK and NAK syndromes", "[headers][aeth]")
{
  RoceAethHeader h;
  CHECK(h.GetSerializedSize() == 4);
  h.SetNak(RoceAethHeader::kNakPsnSequenceError);
  h.SetMsn(0x010203);
  CHECK(Bytes(h) == std::vector<uint8_t>{ 0x60, 0x01, 0x02, 0x03 });
  RoceAethHeader out = RoundTrip(h);
  CHECK(out.IsNak());
  CHECK_FALSE(out.IsAck());
  CHECK(out.GetSyndromeValue() == RoceAethHeader::kNakPsnSequenceError);
  CHECK(out.GetMsn() == 0x010203u);

  h.SetAck(7);
  CHECK(Bytes(h)[0] == 0x07);
  out = RoundTrip(h);
  CHECK(out.IsAck());
  CHECK(out.GetSyndromeValue() == 7);

  h.SetRnrNak(0x1F);
  CHECK(Bytes(h)[0] == 0x3F);
  out = RoundTrip(h);
  CHECK(out.IsRnrNak());
  CHECK_FALSE(out.IsNak());

  h.SetNak(RoceAethHeader::kNakRemoteAccessError);
  CHECK(RoundTrip(h).GetSyndrome() == 0x62);
  CHECK(Aborts([] { RoceAethHeader().SetMsn(0x1000000); }));
  CHECK(Aborts([] { RoceAethHeader().SetAck(32); }));
}

TEST_CASE("RoceRethHeader is 16 big-endian bytes and round-trips", "[headers][reth]")
{
  RoceRethHeader h;
  h.SetVirtualAddress(0x0102030405060708ull);
  h.SetRkey(0xA1B2C3D4);
  h.SetDmaLength(4096);
  CHECK(h.GetSerializedSize() == 16);
  CHECK(Bytes(h) == std::vector<uint8_t>{
                      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xA1, 0xB2, 0xC3, 0xD4, 0x00, 0x00, 0x10, 0x00 });
  RoceRethHeader out = RoundTrip(h);
  CHECK(out.GetVirtualAddress() == 0x0102030405060708ull);
  CHECK(out.GetRkey() == 0xA1B2C3D4u);
  CHECK(out.GetDmaLength() == 4096u);
}

TEST_CASE("A CNP is a BTH with opcode 0x81 and BECN plus 16 zero bytes", "[headers][cnp]")
{
  RoceBthHeader bth = RoceCnpHeader::MakeCnpBth(0x0000d2);
  RoceCnpHeader cnp;
  CHECK(cnp.GetSerializedSize() == 16);
  Ptr<Packet> p = Create<Packet>();
  p->AddHeader(cnp);
  p->AddHeader(bth);
  REQUIRE(p->GetSize() == 28);
  std::vector<uint8_t> b(28);
  p->CopyData(b.data(), b.size());
  // The Annex A17 example: 81 00 ff ff 40 00 00 d2 00 00 00 00 then 16 zero bytes.
  std::vector<uint8_t> expected{ 0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0xd2, 0, 0, 0, 0 };
  expected.resize(28, 0);
  CHECK(b == expected);

  RoceBthHeader bthOut;
  p->RemoveHeader(bthOut);
  CHECK(bthOut.GetOpcode() == RoceBthHeader::kCnp);
  CHECK(bthOut.GetBecn());
  CHECK(bthOut.GetDestQp() == 0xd2u);
  RoceCnpHeader cnpOut;
  CHECK(p->RemoveHeader(cnpOut) == 16);
  CHECK(p->GetSize() == 0);
}

TEST_CASE("A full RoCEv2 data packet stacks and unstacks in order", "[headers][stack]")
{
  const uint32_t payload = 4096;
  Ptr<Packet> p = Create<Packet>(payload);
  RoceRethHeader reth;
  reth.SetVirtualAddress(0x7f0000001000ull);
  reth.SetRkey(42);
  reth.SetDmaLength(payload);
  RoceBthHeader bth;
  bth.SetOpcode(RoceBthHeader::kRcWriteOnly);
  bth.SetDestQp(77);
  bth.SetPsn(0xFFFFFE);
  RoceUdpHeader udp;
  udp.SetSourcePort(0xD00D);
  udp.SetLength(static_cast<uint16_t>(8 + 12 + 16 + payload));
  Ipv6UsidHeader ip;
  ip.SetUsidDestination(0xfc000001, { 0x0101, 0x0202, 0x0303, 0x0404 });
  ip.SetPayloadLength(udp.GetLength());
  ip.SetEcn(Ipv6UsidHeader::Ect0);
  p->AddHeader(reth);
  p->AddHeader(bth);
  p->AddHeader(udp);
  p->AddHeader(ip);
  CHECK(p->GetSize() == 40 + 8 + 12 + 16 + payload);

  Ipv6UsidHeader ipOut;
  RoceUdpHeader udpOut;
  RoceBthHeader bthOut;
  RoceRethHeader rethOut;
  p->RemoveHeader(ipOut);
  p->RemoveHeader(udpOut);
  p->RemoveHeader(bthOut);
  p->RemoveHeader(rethOut);
  CHECK(p->GetSize() == payload);
  CHECK(ipOut.GetPayloadLength() == 8 + 12 + 16 + payload);
  CHECK(ipOut.GetActiveUsid() == 0x0101);
  CHECK(ipOut.GetEcn() == Ipv6UsidHeader::Ect0);
  CHECK(udpOut.GetSourcePort() == 0xD00D);
  CHECK(bthOut.GetPsn() == 0xFFFFFEu);
  CHECK(bthOut.GetDestQp() == 77u);
  CHECK(rethOut.GetVirtualAddress() == 0x7f0000001000ull);
}

TEST_CASE("PfcPauseHeader is a padded 802.1Qbb body", "[headers][pfc]")
{
  PfcPauseHeader h;
  h.SetPause(3, 0xFFFF);
  h.SetPause(0, 0); // resume priority 0
  CHECK(h.GetSerializedSize() == 46);
  CHECK(h.GetClassEnableVector() == 0x0009);
  std::vector<uint8_t> b = Bytes(h);
  REQUIRE(b.size() == 46);
  CHECK(b[0] == 0x01);
  CHECK(b[1] == 0x01);
  CHECK(b[2] == 0x00);
  CHECK(b[3] == 0x09);
  CHECK(b[4] == 0x00); // quanta[0]
  CHECK(b[5] == 0x00);
  CHECK(b[10] == 0xFF); // quanta[3]
  CHECK(b[11] == 0xFF);
  for (std::size_t k = 20; k < 46; ++k)
  {
    CHECK(b[k] == 0);
  }

  h.SetQuanta(7, 1234);
  PfcPauseHeader out = RoundTrip(h);
  CHECK(out.GetClassEnableVector() == 0x0009);
  CHECK(out.IsClassEnabled(0));
  CHECK(out.IsClassEnabled(3));
  CHECK_FALSE(out.IsClassEnabled(7));
  CHECK(out.GetQuanta(3) == 0xFFFF);
  CHECK(out.GetQuanta(7) == 1234);
  CHECK(out.GetQuanta(0) == 0);

  // 512 bit times at 100 Gb/s = 5.12 ns per quantum.
  CHECK(PfcPauseHeader::QuantaToTime(1000, DataRate("100Gbps")) == NanoSeconds(5120));
  CHECK(PfcPauseHeader::GetDestinationMac() == Mac48Address("01:80:c2:00:00:01"));
  CHECK(PfcPauseHeader::kEtherType == 0x8808);
  CHECK(Aborts([] { PfcPauseHeader().SetPause(8, 1); }));
  CHECK(Aborts([] { PfcPauseHeader().SetClassEnableVector(0x0100); }));
}
