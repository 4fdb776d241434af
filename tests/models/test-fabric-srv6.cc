// SRv6 uSID forwarding: a packet carrying the uSIDs of a chosen T0-T1-T0 path in a chosen plane
// crosses exactly the switch ports of that path (whatever its UDP entropy), reaches the right
// GPU on the NIC port of that plane with only the NIC uSID left, at the exact time of four links
// and three switches; a carrier whose locator names another plane, or a uSID naming no port, is
// dropped as BadUsid by the first switch.
#include "tests/models/fabric-test-fixture.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

constexpr int kPlane = 1;
constexpr uint32_t kSrc = 1; // under T0 0
constexpr uint32_t kDst = 6; // under T0 1
constexpr uint32_t kPayload = 4106; // 4200-byte frames: 336 ns at 100G

using Hop = std::pair<VertexId, uint16_t>;

// Records, per PSN, the (switch, port) sequence packets leave through, on every switch port.
void
TraceSwitchPorts(FabricFixture& fx, std::map<uint32_t, std::vector<Hop>>& hops)
{
  const Fabric& f = *fx.fabric;
  for (VertexId v = 0; v < f.NumVertices(); ++v)
  {
    if (f.Node(v).role != NodeRole::Switch)
    {
      continue;
    }
    for (uint16_t i = 0; i < f.Degree(v); ++i)
    {
      fx.net->GetPort(v, i)->TraceConnectWithoutContext(
        "Dequeue", Callback<void, Ptr<const Packet>, uint8_t>([&hops, v, i](Ptr<const Packet> p, uint8_t) {
          hops[PeekPsn(p)].emplace_back(v, i);
        }));
    }
  }
}

} // namespace

TEST_CASE("fabric: a packet follows its uSID path across T0-T1-T0 in the chosen plane", "[fabric][srv6]")
{
  FabricFixture fx(TinyMultiplane());
  const FabricRouting& routing = fx.Routing();
  const uint64_t paths = routing.CountPaths(kSrc, kDst, kPlane);
  REQUIRE(paths == 8); // 4 T0 up-ports, then 2 parallel links from the T1 down to the far T0

  std::map<uint32_t, std::vector<Hop>> hops;
  TraceSwitchPorts(fx, hops);
  struct Rx
  {
    Time at;
    uint16_t port;
    std::vector<uint16_t> usidsLeft;
    uint32_t locator;
  };
  std::map<uint32_t, Rx> received;
  for (uint32_t g = 0; g < fx.fabric->NumGpus(); ++g)
  {
    fx.net->GetHost(g)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>([&, g](Ptr<Packet> p, uint16_t port) {
      CHECK(g == kDst);
      Ipv6UsidHeader ip = PeekIp(p);
      received[PeekPsn(p)] = Rx{Simulator::Now(), port, ip.GetRemainingUsids(), ip.GetLocator()};
    }));
  }

  // One packet per path, 20 us apart so each crosses an idle fabric; entropy varies to show
  // that SRv6 forwarding ignores it.
  const uint16_t nic = routing.Attach(kSrc, kPlane).gpuPort;
  std::map<uint32_t, std::vector<PathHop>> expected;
  const Time gap = MicroSeconds(20);
  for (uint64_t choice = 0; choice < paths; ++choice)
  {
    std::vector<PathHop> path = routing.Path(kSrc, kDst, kPlane, choice);
    REQUIRE(path.size() == 3);
    REQUIRE(routing.CheckPath(path, kSrc, kDst, kPlane) == "");
    std::vector<uint16_t> usids = routing.Usids(path, kDst, kPlane);
    REQUIRE(usids.size() == 4);
    uint32_t psn = uint32_t(choice);
    expected[psn] = path;
    Ptr<Packet> p = DataPacket(kSrc, kDst, kPlane, kPayload, uint16_t(0xC000 + 977 * choice), psn, usids);
    Simulator::Schedule(gap * int64_t(choice), [&fx, p, nic]() { fx.net->GetHost(kSrc)->Send(p, nic); });
  }
  Simulator::Run();

  const Time tx = NanoSeconds(336);
  const Time oneWay = 4 * (tx + MicroSeconds(1)) + 3 * DefaultForwardingLatency();
  std::set<std::vector<Hop>> distinct;
  for (auto& [psn, path] : expected)
  {
    INFO("path choice " << psn);
    std::vector<Hop> want;
    for (const PathHop& h : path)
    {
      want.emplace_back(h.node, h.egressPort);
      CHECK(fx.fabric->Node(h.node).plane == kPlane);
    }
    CHECK(fx.fabric->Node(path[0].node).tier == 0);
    CHECK(fx.fabric->Node(path[1].node).tier == 1);
    CHECK(fx.fabric->Node(path[2].node).tier == 0);
    CHECK(hops[psn] == want);
    distinct.insert(hops[psn]);
    REQUIRE(received.count(psn) == 1);
    const Rx& rx = received[psn];
    CHECK(rx.port == routing.Attach(kDst, kPlane).gpuPort);
    CHECK(rx.port == kPlane);
    CHECK(rx.locator == FabricRouting::Locator(kPlane));
    CHECK(rx.usidsLeft == std::vector<uint16_t>{FabricRouting::PortUsid(routing.Attach(kDst, kPlane).gpuPort)});
    CHECK(rx.at == gap * int64_t(psn) + oneWay);
  }
  CHECK(distinct.size() == paths);
  CHECK(received.size() == paths);

  // Every forwarding happened in the chosen plane: 3 per packet, none in the other plane.
  uint64_t forwarded[2] = {0, 0};
  for (VertexId v = 0; v < fx.fabric->NumVertices(); ++v)
  {
    if (fx.fabric->Node(v).role == NodeRole::Switch)
    {
      forwarded[fx.fabric->Node(v).plane] += fx.net->GetSwitch(v)->Forwarded();
    }
  }
  CHECK(forwarded[kPlane] == 3 * paths);
  CHECK(forwarded[1 - kPlane] == 0);
  Simulator::Destroy();
}

TEST_CASE("fabric: a uSID carrier with another plane's locator is dropped as BadUsid", "[fabric][srv6]")
{
  FabricFixture fx(TinyMultiplane());
  const FabricRouting& routing = fx.Routing();
  std::vector<uint16_t> usids = routing.Usids(routing.Path(kSrc, kDst, kPlane, 5), kDst, kPlane);
  const VertexId t0 = routing.Attach(kSrc, kPlane).leaf;

  std::vector<DropCause> switchDrops;
  fx.net->GetSwitch(t0)->TraceConnectWithoutContext(
    "Drop", Callback<void, Ptr<const Packet>, DropCause>([&](Ptr<const Packet>, DropCause c) { switchDrops.push_back(c); }));
  int received = 0;
  fx.net->GetHost(kDst)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet>, uint16_t) { ++received; }));

  // The plane-1 path's uSIDs under plane 0's locator, sent out of the plane-1 NIC port.
  Ptr<Packet> wrongPlane = DataPacket(kSrc, kDst, 1 - kPlane, kPayload, 0xC000, 1, usids);
  REQUIRE(PeekIp(wrongPlane).GetLocator() == FabricRouting::Locator(1 - kPlane));
  fx.net->GetHost(kSrc)->Send(wrongPlane, routing.Attach(kSrc, kPlane).gpuPort);
  // The right locator but a first uSID naming a port the T0 does not have.
  std::vector<uint16_t> noPort = usids;
  noPort[0] = FabricRouting::PortUsid(uint16_t(fx.fabric->Degree(t0)));
  fx.net->GetHost(kSrc)->Send(DataPacket(kSrc, kDst, kPlane, kPayload, 0xC000, 2, noPort),
                              routing.Attach(kSrc, kPlane).gpuPort);
  // The control: the same path with the right locator arrives.
  fx.net->GetHost(kSrc)->Send(DataPacket(kSrc, kDst, kPlane, kPayload, 0xC000, 3, usids),
                              routing.Attach(kSrc, kPlane).gpuPort);
  Simulator::Run();

  CHECK(switchDrops == std::vector<DropCause>{DropCause::BadUsid, DropCause::BadUsid});
  CHECK(fx.net->GetSwitch(t0)->Drops(DropCause::BadUsid) == 2);
  CHECK(fx.net->CountDrops(DropCause::BadUsid) == 2);
  CHECK(fx.net->GetSwitch(t0)->Forwarded() == 1);
  CHECK(received == 1);
  Simulator::Destroy();
}
