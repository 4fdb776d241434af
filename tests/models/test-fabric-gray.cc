// Gray failures of a link, per direction: random loss drops the expected fraction (counted as
// RandomLoss) while a lost frame still uses its wire time, and a degraded rate stretches every
// serialisation by 1 / factor. Both leave the other direction untouched.
#include "tests/models/fabric-test-fixture.h"
#include "tests/models/header-test-helpers.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

constexpr uint32_t kPayload = 4106; // 4200-byte frames: 336 ns at 100G

} // namespace

TEST_CASE("fabric: random loss on a link drops the expected fraction, counted as RandomLoss", "[fabric][gray]")
{
  FabricFixture fx(TinyMultiplane(), 3, 9);
  const double p = 0.3;
  const int n = 2000;
  const Attachment& a = fx.Routing().Attach(0, 0);
  Ptr<FabricPort> nic = fx.NicPort(0, 0);
  Ptr<FabricChannel> ch = fx.net->GetChannel(a.link);
  ch->SetLossRate(PeekPointer(nic), p);
  CHECK(ch->GetLossRate(PeekPointer(nic)) == p);
  CHECK(ch->GetLossRate(PeekPointer(fx.LeafPortFacing(0, 0))) == 0);

  std::map<uint32_t, Time> arrivals; // PSN -> time
  fx.net->GetHost(1)->SetReceiveCallback(
    Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet> pk, uint16_t) { arrivals[PeekPsn(pk)] = Simulator::Now(); }));
  int channelLosses = 0;
  ch->TraceConnectWithoutContext("Drop", Callback<void, Ptr<const Packet>, DropCause>([&](Ptr<const Packet>, DropCause c) {
                                   channelLosses += c == DropCause::RandomLoss;
                                 }));
  // 125-byte frames (10 ns) sent every 50 ns: the NIC never holds a backlog.
  const Time gap = NanoSeconds(50);
  for (int k = 0; k < n; ++k)
  {
    Simulator::Schedule(gap * k, [&fx, &a, k]() {
      fx.net->GetHost(0)->Send(DataPacket(0, 1, 0, 31, 0xC000, uint32_t(k)), a.gpuPort);
    });
  }
  Simulator::Run();

  const uint64_t lost = fx.net->CountDrops(DropCause::RandomLoss);
  CHECK(lost == uint64_t(channelLosses));
  CHECK(arrivals.size() + lost == uint64_t(n));
  const double sigma = std::sqrt(n * p * (1 - p));
  CHECK(std::abs(double(lost) - n * p) <= 4 * sigma);
  const Time tx = NanoSeconds(10);
  const Time oneWay = 2 * (tx + MicroSeconds(1)) + DefaultForwardingLatency();
  int wrongTime = 0;
  for (auto& [psn, at] : arrivals)
  {
    wrongTime += at != gap * int64_t(psn) + oneWay;
  }
  CHECK(wrongTime == 0);
  Simulator::Destroy();
}

// A lost frame still used its wire time, and the frames queued behind it must still go: the
// port may not wait for an arrival that will never happen.
TEST_CASE("fabric: a frame lost from a backlogged NIC does not stall the frames behind it",
          "[fabric][gray]")
{
  FabricFixture fx(TinyMultiplane(), 3, 9);
  const int n = 200;
  const Attachment& a = fx.Routing().Attach(0, 0);
  Ptr<FabricPort> nic = fx.NicPort(0, 0);
  fx.net->GetChannel(a.link)->SetLossRate(PeekPointer(nic), 0.3);
  std::map<uint32_t, Time> arrivals;
  fx.net->GetHost(1)->SetReceiveCallback(
    Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet> pk, uint16_t) { arrivals[PeekPsn(pk)] = Simulator::Now(); }));
  for (int k = 0; k < n; ++k)
  {
    REQUIRE(fx.net->GetHost(0)->Send(DataPacket(0, 1, 0, kPayload, 0xC000, uint32_t(k)), a.gpuPort));
  }
  Simulator::Run();

  const uint64_t lost = fx.net->CountDrops(DropCause::RandomLoss);
  CHECK(nic->QueueBytes(1) == 0);
  CHECK(nic->TxPackets() == uint64_t(n));
  CHECK(arrivals.size() + lost == uint64_t(n));
  // Frame k left the NIC in slot k whether or not earlier frames were lost.
  const Time tx = NanoSeconds(336);
  const Time first = 2 * (tx + MicroSeconds(1)) + DefaultForwardingLatency();
  int wrongTime = 0;
  for (auto& [psn, at] : arrivals)
  {
    wrongTime += at != first + int64_t(psn) * tx;
  }
  CHECK(wrongTime == 0);
  Simulator::Destroy();
}

namespace
{

// Which of 200 paced packets over a link losing half its frames arrive, for a run number.
std::vector<bool>
ArrivedWithLoss(uint64_t run)
{
  FabricFixture fx(TinyMultiplane(), 3, run);
  const Attachment& a = fx.Routing().Attach(0, 0);
  fx.net->GetChannel(a.link)->SetLossRate(PeekPointer(fx.NicPort(0, 0)), 0.5);
  std::vector<bool> got(200, false);
  fx.net->GetHost(1)->SetReceiveCallback(
    Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet> pk, uint16_t) { got[PeekPsn(pk)] = true; }));
  for (uint32_t k = 0; k < 200; ++k)
  {
    Simulator::Schedule(NanoSeconds(50) * k, [&fx, &a, k]() {
      fx.net->GetHost(0)->Send(DataPacket(0, 1, 0, 31, 0xC000, k), a.gpuPort);
    });
  }
  Simulator::Run();
  Simulator::Destroy();
  return got;
}

} // namespace

TEST_CASE("fabric: random loss repeats exactly for a seed and changes with the run", "[fabric][gray]")
{
  std::vector<bool> a = ArrivedWithLoss(4);
  CHECK(std::count(a.begin(), a.end(), true) > 50);
  CHECK(a == ArrivedWithLoss(4));
  CHECK(a != ArrivedWithLoss(6));
}

// Runs are independent replications: the link's loss stream is seeded with
// ((seed << 32) ^ run ^ id * K) | 1, so runs 2k and 2k + 1 lose exactly the same frames.
TEST_CASE("fabric: random loss differs between runs 4 and 5", "[fabric][gray]")
{
  CHECK(ArrivedWithLoss(4) != ArrivedWithLoss(5));
}

TEST_CASE("fabric: a degraded link serialises at rate x factor in that direction only", "[fabric][gray]")
{
  FabricFixture fx(TinyMultiplane());
  const Attachment& a = fx.Routing().Attach(0, 0);
  Ptr<FabricPort> nic = fx.NicPort(0, 0);
  Ptr<FabricPort> leaf = fx.LeafPortFacing(0, 0);
  fx.net->GetChannel(a.link)->SetRateFactor(PeekPointer(nic), 0.5);
  const uint32_t size = DataPacketBytes(kPayload);
  CHECK(nic->TxTime(size) == NanoSeconds(672));
  CHECK(leaf->TxTime(size) == NanoSeconds(336));

  // GPU 0 -> GPU 1: slow first link, full-rate last link; the T0 forwards each frame as it
  // arrives (its egress is idle by then), so arrivals keep the slow spacing.
  std::vector<Time> at1, at0;
  fx.net->GetHost(1)->SetReceiveCallback(
    Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet>, uint16_t) { at1.push_back(Simulator::Now()); }));
  fx.net->GetHost(0)->SetReceiveCallback(
    Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet>, uint16_t) { at0.push_back(Simulator::Now()); }));
  const int n = 5;
  for (int k = 0; k < n; ++k)
  {
    fx.net->GetHost(0)->Send(DataPacket(0, 1, 0, kPayload), a.gpuPort);
    fx.net->GetHost(1)->Send(DataPacket(1, 0, 0, kPayload), fx.Routing().Attach(1, 0).gpuPort);
  }
  Simulator::Run();
  REQUIRE(at1.size() == size_t(n));
  REQUIRE(at0.size() == size_t(n));
  const Time d = MicroSeconds(1);
  const Time lat = DefaultForwardingLatency();
  for (int k = 0; k < n; ++k)
  {
    INFO("packet " << k);
    CHECK(at1[k] == (k + 1) * NanoSeconds(672) + d + lat + NanoSeconds(336) + d);
    // The reverse direction of the degraded link (T0 -> GPU 0) runs at full rate.
    CHECK(at0[k] == 2 * (NanoSeconds(336) + d) + lat + k * NanoSeconds(336));
  }
  Simulator::Destroy();
}

// The degraded rate is counted in whole bit/s (rounded down): a factor that leaves less than
// 1 bit/s (1e-12 of 100G) used to round it to 0 and divide by zero at the next frame. It is
// refused when set; a few bit/s is still a rate. Powers of two keep the products exact: 2^-37
// of 100G is 0.73 bit/s, 2^-35 is 2.91 bit/s, sent at 2 bit/s.
TEST_CASE("fabric: a rate factor leaving under 1 bit/s is refused; 2 bit/s still serialises", "[fabric][gray]")
{
  FabricFixture fx(TinyMultiplane());
  const Attachment& a = fx.Routing().Attach(0, 0);
  Ptr<FabricPort> nic = fx.NicPort(0, 0);
  Ptr<FabricChannel> ch = fx.net->GetChannel(a.link);
  const uint32_t size = DataPacketBytes(kPayload);
  REQUIRE(nic->GetDataRate().GetBitRate() == 100000000000ULL);
  CHECK(Aborts([&] { ch->SetRateFactor(PeekPointer(nic), 1e-12); }));
  CHECK(Aborts([&] { ch->SetRateFactor(PeekPointer(nic), std::ldexp(1.0, -37)); }));
  // A port that sends at 0 bit/s however it got there (a rate of 0, here) is refused at its next
  // frame instead of dividing by zero.
  CHECK(Aborts([&] {
    nic->SetDataRate(DataRate(0));
    nic->TxTime(size);
  }));

  ch->SetRateFactor(PeekPointer(nic), std::ldexp(1.0, -35));
  CHECK(nic->TxTime(size) == Seconds(16800)); // 4,200 bytes at 2 bit/s
  CHECK(fx.LeafPortFacing(0, 0)->TxTime(size) == NanoSeconds(336));
  Simulator::Destroy();
}
