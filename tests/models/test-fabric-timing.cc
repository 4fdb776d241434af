// Exact timing of the fabric: serialisation + propagation + forwarding latency on a single
// switch hop, queueing behind another sender, and back-to-back bursts (equal and mixed sizes).
// Expected times are derived from the link rate, framing and delays, never read back from a run.
#include "tests/models/fabric-test-fixture.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

// 100 Gb/s, 1 us links of the tiny fabric.
constexpr uint64_t kRate = 100000000000ull;
const Time kDelay = MicroSeconds(1);

// A payload whose frame (packet + 18 B framing) takes a whole number of nanoseconds at 100G:
// 4106 + 76 header bytes + 18 = 4200 B = 33600 bits = 336 ns.
constexpr uint32_t kPayload = 4106;

} // namespace

TEST_CASE("fabric: one hop through a T0 takes 2 x (serialisation + propagation) + forwarding latency",
          "[fabric][timing]")
{
  FabricFixture fx(TinyMultiplane());
  const uint32_t size = DataPacketBytes(kPayload);
  REQUIRE(size == 4182);
  Ptr<FabricPort> nic = fx.NicPort(0, 0);

  // TxTime from first principles: (4182 + 18) B x 8 / 100 Gb/s = 336 ns exactly.
  REQUIRE(WirePicoseconds(size, kRate) == 336000);
  CHECK(nic->TxTime(size) == PicoSeconds(WirePicoseconds(size, kRate)));
  CHECK(fx.LeafPortFacing(1, 0)->TxTime(size) == NanoSeconds(336));
  CHECK(fx.net->GetChannel(fx.Routing().Attach(0, 0).link)->GetDelay() == kDelay);
  CHECK(fx.net->GetSwitch(fx.Routing().Attach(0, 0).leaf)->GetForwardingLatency() == DefaultForwardingLatency());

  // GPU0 and GPU1 share T0 0 of every plane.
  REQUIRE(fx.Routing().Attach(0, 0).leaf == fx.Routing().Attach(1, 0).leaf);

  std::vector<Time> arrivals;
  std::vector<uint16_t> ports;
  fx.net->GetHost(1)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet> p, uint16_t port) {
    arrivals.push_back(Simulator::Now());
    ports.push_back(port);
  }));
  REQUIRE(fx.net->GetHost(0)->Send(DataPacket(0, 1, 0, kPayload), 0));
  Simulator::Run();

  REQUIRE(arrivals.size() == 1);
  CHECK(ports[0] == 0);
  CHECK(arrivals[0] == 2 * (NanoSeconds(336) + kDelay) + NanoSeconds(300));
  CHECK(arrivals[0] == NanoSeconds(2 * (336 + 1000) + 300));
  Simulator::Destroy();
}

TEST_CASE("fabric: the ForwardingLatency default set before building applies to every switch hop",
          "[fabric][timing]")
{
  ScopedDefault latency("ns3::FabricSwitch::ForwardingLatency", TimeValue(NanoSeconds(777)),
                        TimeValue(DefaultForwardingLatency()));
  FabricFixture fx(TinyMultiplane());
  REQUIRE(fx.net->GetSwitch(fx.Routing().Attach(0, 1).leaf)->GetForwardingLatency() == NanoSeconds(777));

  Time arrival;
  fx.net->GetHost(1)->SetReceiveCallback(
    Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet>, uint16_t) { arrival = Simulator::Now(); }));
  fx.net->GetHost(0)->Send(DataPacket(0, 1, 1, kPayload), 1);
  Simulator::Run();
  CHECK(arrival == NanoSeconds(2 * (336 + 1000) + 777));
  Simulator::Destroy();
}

TEST_CASE("fabric: two senders into one port: the second packet waits exactly one serialisation time",
          "[fabric][timing]")
{
  FabricFixture fx(TinyMultiplane());
  const Time tx = NanoSeconds(336);
  std::vector<std::pair<Time, uint32_t>> arrivals; // (time, source GPU)
  fx.net->GetHost(2)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>(
    [&](Ptr<Packet> p, uint16_t) { arrivals.emplace_back(Simulator::Now(), SourceGpu(p)); }));
  fx.net->GetHost(0)->Send(DataPacket(0, 2, 0, kPayload), 0);
  fx.net->GetHost(1)->Send(DataPacket(1, 2, 0, kPayload), 0);
  Simulator::Run();

  REQUIRE(arrivals.size() == 2);
  const Time first = 2 * (tx + MicroSeconds(1)) + NanoSeconds(300);
  CHECK(arrivals[0].first == first);
  CHECK(arrivals[1].first == first + tx);
  // Both reached the T0 at the same instant; FIFO order is the order of the sends.
  CHECK(arrivals[0].second == 0);
  CHECK(arrivals[1].second == 1);
  Simulator::Destroy();
}

TEST_CASE("fabric: a burst of equal packets from one NIC arrives spaced by one serialisation time",
          "[fabric][timing]")
{
  FabricFixture fx(TinyMultiplane());
  const int n = 20;
  const Time tx = NanoSeconds(336);
  std::vector<std::pair<Time, uint32_t>> arrivals; // (time, PSN)
  fx.net->GetHost(3)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>(
    [&](Ptr<Packet> p, uint16_t) { arrivals.emplace_back(Simulator::Now(), PeekPsn(p)); }));
  for (int i = 0; i < n; ++i)
  {
    REQUIRE(fx.net->GetHost(0)->Send(DataPacket(0, 3, 0, kPayload, 0xC000, 100 + i), 0));
  }
  Simulator::Run();

  REQUIRE(arrivals.size() == size_t(n));
  const Time first = 2 * (tx + MicroSeconds(1)) + NanoSeconds(300);
  for (int i = 0; i < n; ++i)
  {
    INFO("packet " << i);
    CHECK(arrivals[i].second == uint32_t(100 + i));
    CHECK(arrivals[i].first == first + i * tx);
  }
  Simulator::Destroy();
}

TEST_CASE("fabric: a burst of mixed sizes follows the store-and-forward recursion exactly",
          "[fabric][timing]")
{
  FabricFixture fx(TinyMultiplane());
  // Payloads whose frames take whole nanoseconds at 100G (frame bytes a multiple of 25): large,
  // small, small, large, medium... so small packets catch up with large ones at the T0.
  const std::vector<uint32_t> payloads = {4106, 31, 131, 4106, 1031, 31, 2031, 4106, 31};
  std::vector<Time> tx;
  for (uint32_t pl : payloads)
  {
    int64_t ps = WirePicoseconds(DataPacketBytes(pl), kRate);
    REQUIRE(ps % 1000 == 0);
    tx.push_back(PicoSeconds(ps));
    CHECK(fx.NicPort(0, 0)->TxTime(DataPacketBytes(pl)) == tx.back());
  }

  // NIC: frames leave back to back. T0: frame k is handled at its last bit's arrival plus the
  // propagation delay and forwarding latency, and starts when both it is there and the previous
  // frame has left. GPU: last bit arrives one serialisation and one delay after the start.
  const Time d = MicroSeconds(1);
  const Time lat = DefaultForwardingLatency();
  std::vector<Time> expected;
  Time nicEnd(0);
  Time egressFree(0);
  for (const Time& t : tx)
  {
    nicEnd += t;
    Time atSwitch = nicEnd + d + lat;
    Time start = std::max(atSwitch, egressFree);
    egressFree = start + t;
    expected.push_back(egressFree + d);
  }

  std::vector<std::pair<Time, uint32_t>> arrivals;
  fx.net->GetHost(2)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>(
    [&](Ptr<Packet> p, uint16_t) { arrivals.emplace_back(Simulator::Now(), PeekPsn(p)); }));
  for (size_t i = 0; i < payloads.size(); ++i)
  {
    fx.net->GetHost(0)->Send(DataPacket(0, 2, 0, payloads[i], 0xC000, uint32_t(i)), 0);
  }
  Simulator::Run();

  REQUIRE(arrivals.size() == payloads.size());
  for (size_t i = 0; i < payloads.size(); ++i)
  {
    INFO("packet " << i << " payload " << payloads[i]);
    CHECK(arrivals[i].second == i);
    CHECK(arrivals[i].first == expected[i]);
  }
  Simulator::Destroy();
}
