// Round-trip, byte-layout and bitmap tests of the MRC SACK, NACK and probe headers.
#include "models/wire/mrc-nack-header.h"
#include "models/wire/mrc-probe-header.h"
#include "models/wire/mrc-sack-header.h"

#include "header-test-helpers.h"

#include "ns3/packet.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace ns3;
using namespace mrcsim::test;

TEST_CASE("MrcSackHeader round-trips every field", "[headers][sack]")
{
  MrcSackHeader h;
  h.SetCumulativeAckPsn(0x00ABCD);
  h.SetAckedPsn(0x00ABD5);
  h.SetSackBaseOffset(2);
  h.SetBitmap(0x8000000000000041ull);
  h.SetEchoedEv(0xBEEF);
  h.SetEcnEcho(true);
  h.SetTimestampEcho(0xDEADBEEF);
  CHECK(h.GetSerializedSize() == 24);
  MrcSackHeader out = RoundTrip(h);
  CHECK(out.GetCumulativeAckPsn() == 0x00ABCDu);
  CHECK(out.GetAckedPsn() == 0x00ABD5u);
  CHECK(out.GetSackBaseOffset() == 2);
  CHECK(out.GetSackBasePsn() == 0x00ABCFu);
  CHECK(out.GetBitmap() == 0x8000000000000041ull);
  CHECK(out.GetEchoedEv() == 0xBEEF);
  CHECK(out.GetEcnEcho());
  CHECK(out.GetTimestampEcho() == 0xDEADBEEFu);

  h.SetEcnEcho(false);
  CHECK_FALSE(RoundTrip(h).GetEcnEcho());
}

TEST_CASE("MrcSackHeader byte layout", "[headers][sack]")
{
  MrcSackHeader h;
  h.SetCumulativeAckPsn(0x123456);
  h.SetAckedPsn(0x12345A);
  h.SetEcnEcho(true);
  h.SetSackBaseOffset(0x0102);
  h.SetEchoedEv(0x0304);
  h.SetBitmap(0x0011223344556677ull);
  h.SetTimestampEcho(0x89ABCDEF);
  CHECK(Bytes(h) == std::vector<uint8_t>{ 0x00, 0x12, 0x34, 0x56, 0x80, 0x12, 0x34, 0x5A, 0x01, 0x02, 0x03, 0x04,
                                          0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x89, 0xAB, 0xCD, 0xEF });
}

TEST_CASE("MrcSackHeader bitmap set and test", "[headers][sack]")
{
  MrcSackHeader h;
  h.SetCumulativeAckPsn(100); // 100 and everything before it arrived
  h.SetSackBaseOffset(1);     // bit 0 = PSN 101
  CHECK(h.GetSackBasePsn() == 101u);
  CHECK(h.IsSacked(100));
  CHECK(h.IsSacked(50));
  CHECK_FALSE(h.IsSacked(101));

  h.SetSacked(103);
  h.SetSacked(164); // the last bit of the window
  CHECK(h.GetBitmap() == ((uint64_t{ 1 } << 2) | (uint64_t{ 1 } << 63)));
  CHECK(h.IsSacked(103));
  CHECK(h.IsSacked(164));
  CHECK_FALSE(h.IsSacked(102));
  CHECK_FALSE(h.IsSacked(104));
  CHECK_FALSE(h.IsSacked(165)); // beyond the window

  // Already covered by the cumulative ACK: no bit changes.
  h.SetSacked(99);
  CHECK(h.GetBitmap() == ((uint64_t{ 1 } << 2) | (uint64_t{ 1 } << 63)));

  MrcSackHeader out = RoundTrip(h);
  CHECK(out.IsSacked(103));
  CHECK(out.IsSacked(164));
  CHECK_FALSE(out.IsSacked(102));

  CHECK(Aborts([h]() mutable { h.SetSacked(165); }));
  CHECK(Aborts([] { MrcSackHeader().SetCumulativeAckPsn(0x1000000); }));
}

TEST_CASE("MrcSackHeader bitmap works across the PSN wrap", "[headers][sack][psn]")
{
  MrcSackHeader h;
  h.SetCumulativeAckPsn(0xFFFFFD);
  h.SetSackBaseOffset(1); // bit 0 = 0xFFFFFE
  h.SetSacked(0xFFFFFF);
  h.SetSacked(0x000002);
  CHECK(h.GetBitmap() == ((uint64_t{ 1 } << 1) | (uint64_t{ 1 } << 4)));
  CHECK(h.IsSacked(0xFFFFFF));
  CHECK(h.IsSacked(0x000002));
  CHECK(h.IsSacked(0xFFFFF0)); // before the cumulative ACK
  CHECK_FALSE(h.IsSacked(0xFFFFFE));
  CHECK_FALSE(h.IsSacked(0x000000));

  // A base offset past the cumulative ACK wraps too.
  h.SetCumulativeAckPsn(0xFFFFF0);
  h.SetSackBaseOffset(0x20);
  CHECK(h.GetSackBasePsn() == 0x000010u);
}

TEST_CASE("MrcSackHeader timestamp delta wraps at 2^32 ns", "[headers][sack]")
{
  CHECK(MrcSackHeader::TimestampDelta(1500, 1000) == 500u);
  CHECK(MrcSackHeader::TimestampDelta(100, 0xFFFFFF00u) == 356u);
}

TEST_CASE("MrcNackHeader round-trips and lays out reason then PSN then EV", "[headers][nack]")
{
  MrcNackHeader h;
  h.SetPsn(0xABCDEF);
  h.SetReason(MrcNackHeader::Trimmed);
  h.SetEchoedEv(0x1234);
  CHECK(h.GetSerializedSize() == 8);
  CHECK(Bytes(h) == std::vector<uint8_t>{ 0x01, 0xAB, 0xCD, 0xEF, 0x12, 0x34, 0x00, 0x00 });
  MrcNackHeader out = RoundTrip(h);
  CHECK(out.GetPsn() == 0xABCDEFu);
  CHECK(out.GetReason() == MrcNackHeader::Trimmed);
  CHECK(out.GetEchoedEv() == 0x1234);

  h.SetReason(MrcNackHeader::OutOfBuffer);
  CHECK(RoundTrip(h).GetReason() == MrcNackHeader::OutOfBuffer);
  h.SetReason(MrcNackHeader::Other);
  CHECK(RoundTrip(h).GetReason() == MrcNackHeader::Other);
  // An unnamed code survives the round trip unchanged.
  h.SetReason(static_cast<MrcNackHeader::Reason>(7));
  CHECK(static_cast<uint32_t>(RoundTrip(h).GetReason()) == 7u);
  CHECK(std::string(MrcNackHeader::ReasonName(MrcNackHeader::Trimmed)) == "TRIMMED");
  CHECK(std::string(MrcNackHeader::ReasonName(static_cast<MrcNackHeader::Reason>(7))) == "UNKNOWN");
  CHECK(Aborts([] { MrcNackHeader().SetPsn(0x1000000); }));
}

TEST_CASE("MrcProbeHeader round-trips request and response", "[headers][probe]")
{
  MrcProbeHeader h;
  h.SetType(MrcProbeHeader::Request);
  h.SetEv(0x00FE);
  h.SetSequence(0x01020304);
  h.SetSendTime(MicroSeconds(262) + NanoSeconds(144));
  CHECK(h.GetSerializedSize() == 16);
  CHECK(Bytes(h) == std::vector<uint8_t>{
                      0x00, 0x00, 0x00, 0xFE, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00 });
  MrcProbeHeader out = RoundTrip(h);
  CHECK(out.IsRequest());
  CHECK(out.GetEv() == 0x00FE);
  CHECK(out.GetSequence() == 0x01020304u);
  CHECK(out.GetSendTimestamp() == 262144u);
  CHECK(out.GetSendTime() == NanoSeconds(262144));

  out.SetType(MrcProbeHeader::Response);
  MrcProbeHeader resp = RoundTrip(out);
  CHECK(resp.GetType() == MrcProbeHeader::Response);
  CHECK_FALSE(resp.IsRequest());
  CHECK(resp.GetSendTimestamp() == 262144u);

  // An unknown probe type is refused on receipt.
  CHECK(Aborts(
    []
    {
      uint8_t bad[16] = { 9 };
      Ptr<Packet> p = Create<Packet>(bad, 16);
      MrcProbeHeader x;
      p->RemoveHeader(x);
    }));
}
