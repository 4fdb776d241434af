// A T0-T1 link fails mid-transfer and comes back. The link reports it at once (LinkState); what
// is queued for it, in flight on it, or forwarded to it is dropped and counted (LinkDown,
// NextHopDown); the switches at its ends stop using it exactly DetectionDelay later, and every
// switch moves to repaired tables exactly ReconvergenceDelay later (RouteChange trace, ECMP
// groups); until then the far T0 keeps hashing flows onto the T1 that lost its way down, which
// drops them (NoRoute). After the link comes back, the same delays restore the old groups.
// Fabric: one plane, 2 T0 x 2 T1 with one link per pair, so a dead up-link changes routes.
#include "tests/models/fabric-test-fixture.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

const Time kFail = MicroSeconds(10);
const Time kRestore = MicroSeconds(40);
const Time kDetect = MicroSeconds(3);
const Time kReconverge = MicroSeconds(15);
const Time kStopSending = MicroSeconds(70);
const Time kInterval = NanoSeconds(200);
constexpr uint32_t kPayload = 1000;
constexpr uint32_t kNear = 0; // GPU under the T0 whose up-link fails
constexpr uint32_t kFar = 4;  // GPU under the other T0

struct DropEvent
{
  Time at;
  DropCause cause;
  uint32_t src;
};

struct RouteEvent
{
  Time at;
  uint32_t link;
  bool up;
  bool global;
  bool operator==(const RouteEvent& o) const
  {
    return std::tie(at, link, up, global) == std::tie(o.at, o.link, o.up, o.global);
  }
};

std::ostream&
operator<<(std::ostream& os, const RouteEvent& e)
{
  return os << "{" << e.at.GetNanoSeconds() << " ns, link " << e.link << (e.up ? " up" : " down")
            << (e.global ? " global" : " local") << "}";
}

std::vector<uint16_t>
Group(const FabricNetwork& net, VertexId sw, uint32_t gpu)
{
  PortGroup g = net.GetControlPlane()->EcmpGroup(sw, gpu);
  return std::vector<uint16_t>(g.ports, g.ports + g.size);
}

bool
Contains(const std::vector<uint16_t>& v, uint16_t x)
{
  return std::find(v.begin(), v.end(), x) != v.end();
}

uint64_t
CountIn(const std::vector<Time>& times, Time from, Time to)
{
  return std::count_if(times.begin(), times.end(), [&](Time t) { return t >= from && t < to; });
}

} // namespace

TEST_CASE("fabric: a failed T0-T1 link drops, reports, and is routed around after exact delays",
          "[fabric][failure]")
{
  FabricFixture fx(OneLinkPerPair());
  FabricNetwork& net = *fx.net;
  const Fabric& f = *fx.fabric;
  Ptr<FabricControlPlane> cp = net.GetControlPlane();
  cp->SetAttribute("DetectionDelay", TimeValue(kDetect));
  cp->SetAttribute("ReconvergenceDelay", TimeValue(kReconverge));

  // The near T0's up-link to T1 0, and the far T0's port toward that T1.
  const VertexId nearT0 = fx.Routing().Attach(kNear, 0).leaf;
  const VertexId farT0 = fx.Routing().Attach(kFar, 0).leaf;
  REQUIRE(nearT0 != farT0);
  const VertexId t1 = f.Switches(0, 1)[0];
  int nearPort = -1, farPort = -1;
  for (uint16_t p = 0; p < f.Degree(nearT0); ++p)
    if (f.Peer(nearT0, p).node == t1)
      nearPort = p;
  for (uint16_t p = 0; p < f.Degree(farT0); ++p)
    if (f.Peer(farT0, p).node == t1)
      farPort = p;
  REQUIRE(nearPort >= 0);
  REQUIRE(farPort >= 0);
  const uint32_t link = f.Peer(nearT0, uint16_t(nearPort)).link;

  // Before the failure both T0s spread over both T1s.
  REQUIRE(Group(net, nearT0, kFar).size() == 2);
  REQUIRE(Contains(Group(net, nearT0, kFar), uint16_t(nearPort)));
  REQUIRE(Contains(Group(net, farT0, kNear), uint16_t(farPort)));

  // ---- observers -----------------------------------------------------------------------------
  std::vector<std::pair<Time, bool>> linkState;
  net.GetChannel(link)->TraceConnectWithoutContext(
    "LinkState", Callback<void, bool>([&](bool up) { linkState.emplace_back(Simulator::Now(), up); }));
  std::vector<RouteEvent> routes;
  cp->TraceConnectWithoutContext("RouteChange", Callback<void, uint32_t, bool, bool>([&](uint32_t l, bool up, bool global) {
                                   routes.push_back(RouteEvent{Simulator::Now(), l, up, global});
                                 }));
  std::vector<DropEvent> drops;
  auto onDrop = Callback<void, Ptr<const Packet>, DropCause>(
    [&](Ptr<const Packet> p, DropCause c) { drops.push_back(DropEvent{Simulator::Now(), c, SourceGpu(p)}); });
  for (VertexId v = 0; v < f.NumVertices(); ++v)
  {
    if (f.Node(v).role == NodeRole::Switch)
      net.GetSwitch(v)->TraceConnectWithoutContext("Drop", onDrop);
    for (uint16_t p = 0; p < f.Degree(v); ++p)
      net.GetPort(v, p)->TraceConnectWithoutContext("Drop", onDrop);
  }
  for (uint32_t l = 0; l < f.NumLinks(); ++l)
    net.GetChannel(l)->TraceConnectWithoutContext("Drop", onDrop);
  // When ECMP puts packets on the ports toward T1 0 (enqueue happens at forwarding time).
  std::vector<Time> nearOnto, farOnto;
  net.GetPort(nearT0, uint16_t(nearPort))
    ->TraceConnectWithoutContext("Enqueue", Callback<void, Ptr<const Packet>, uint8_t>(
                                              [&](Ptr<const Packet>, uint8_t) { nearOnto.push_back(Simulator::Now()); }));
  net.GetPort(farT0, uint16_t(farPort))
    ->TraceConnectWithoutContext("Enqueue", Callback<void, Ptr<const Packet>, uint8_t>(
                                              [&](Ptr<const Packet>, uint8_t) { farOnto.push_back(Simulator::Now()); }));
  uint64_t rxFar = 0, rxNear = 0;
  net.GetHost(kFar)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet>, uint16_t) { ++rxFar; }));
  net.GetHost(kNear)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet>, uint16_t) { ++rxNear; }));
  // ECMP groups just before and just after each reconvergence.
  std::vector<std::vector<uint16_t>> nearGroups, farGroups;
  for (Time at : {kFail + kReconverge - NanoSeconds(1), kFail + kReconverge + NanoSeconds(1),
                  kRestore + kReconverge - NanoSeconds(1), kRestore + kReconverge + NanoSeconds(1)})
  {
    Simulator::Schedule(at, [&]() {
      nearGroups.push_back(Group(net, nearT0, kFar));
      farGroups.push_back(Group(net, farT0, kNear));
    });
  }

  // ---- traffic: both directions, one packet per 200 ns, 32 flows each ------------------------
  uint64_t sent = 0;
  for (Time t(0); t < kStopSending; t += kInterval)
  {
    uint16_t entropy = uint16_t(0xC000 + sent % 32);
    uint32_t psn = uint32_t(sent);
    Simulator::Schedule(t, [&net, entropy, psn]() {
      net.GetHost(kNear)->Send(DataPacket(kNear, kFar, 0, kPayload, entropy, psn), 0);
      net.GetHost(kFar)->Send(DataPacket(kFar, kNear, 0, kPayload, entropy, psn), 0);
    });
    ++sent;
  }
  net.ScheduleLinkUp(kFail, link, false);
  net.ScheduleLinkUp(kRestore, link, true);
  Simulator::Run();

  // ---- the link and the control plane report at exact times ----------------------------------
  CHECK(linkState == std::vector<std::pair<Time, bool>>{{kFail, false}, {kRestore, true}});
  CHECK(routes == std::vector<RouteEvent>{{kFail + kDetect, link, false, false},
                                          {kFail + kReconverge, link, false, true},
                                          {kRestore + kDetect, link, true, false},
                                          {kRestore + kReconverge, link, true, true}});

  // ---- near -> far: drops only until the near T0 detects the failure -------------------------
  uint64_t fwdDrops = 0, fwdNextHopDown = 0;
  for (const DropEvent& d : drops)
  {
    if (d.src != kNear)
      continue;
    ++fwdDrops;
    fwdNextHopDown += d.cause == DropCause::NextHopDown;
    INFO("near->far drop at " << d.at.GetNanoSeconds() << " ns, " << DropCauseName(d.cause));
    CHECK(d.at >= kFail);
    CHECK(d.at <= kFail + kDetect);
    CHECK((d.cause == DropCause::NextHopDown || d.cause == DropCause::LinkDown));
  }
  CHECK(fwdNextHopDown > 0);
  CHECK(rxFar + fwdDrops == sent);
  // Hashed onto the link before it failed; never from detection until the tables take it back.
  CHECK(CountIn(nearOnto, Time(0), kFail) > 0);
  CHECK(CountIn(nearOnto, kFail, kRestore + kReconverge) == 0);
  CHECK(CountIn(nearOnto, kRestore + kReconverge, kStopSending + MicroSeconds(5)) > 0);

  // ---- far -> near: the far T0 keeps using T1 0 until reconvergence --------------------------
  uint64_t revDrops = 0, revNoRoute = 0, revAfterDetect = 0;
  for (const DropEvent& d : drops)
  {
    if (d.src != kFar)
      continue;
    ++revDrops;
    revNoRoute += d.cause == DropCause::NoRoute;
    revAfterDetect += d.at > kFail + kDetect;
    INFO("far->near drop at " << d.at.GetNanoSeconds() << " ns, " << DropCauseName(d.cause));
    CHECK(d.at >= kFail);
    CHECK(d.at <= kFail + kReconverge);
    if (d.at > kFail + kDetect)
      CHECK(d.cause == DropCause::NoRoute); // T1 0 knows its way down is gone, has no other yet
  }
  CHECK(revNoRoute > 0);
  CHECK(revAfterDetect == revNoRoute);
  CHECK(rxNear + revDrops == sent);
  CHECK(CountIn(farOnto, kFail + kDetect, kFail + kReconverge) > 0);
  CHECK(CountIn(farOnto, kFail + kReconverge, kRestore + kReconverge) == 0);
  CHECK(CountIn(farOnto, kRestore + kReconverge, kStopSending + MicroSeconds(5)) > 0);

  // ---- ECMP groups: repaired exactly at reconvergence, restored after the link returns -------
  REQUIRE(nearGroups.size() == 4);
  CHECK(Contains(nearGroups[0], uint16_t(nearPort)));
  CHECK(Contains(farGroups[0], uint16_t(farPort)));
  CHECK(nearGroups[1].size() == 1);
  CHECK_FALSE(Contains(nearGroups[1], uint16_t(nearPort)));
  CHECK(farGroups[1].size() == 1);
  CHECK_FALSE(Contains(farGroups[1], uint16_t(farPort))); // no port leading to the cut-off T1
  CHECK(nearGroups[2] == nearGroups[1]);
  CHECK(farGroups[2] == farGroups[1]);
  CHECK(nearGroups[3].size() == 2);
  CHECK(farGroups[3].size() == 2);
  CHECK(Contains(nearGroups[3], uint16_t(nearPort)));
  CHECK(Contains(farGroups[3], uint16_t(farPort)));
  CHECK(fx.Routing().IsLinkUp(link));
  CHECK(fx.Routing().CheckGroupsAvoidDownLinks() == "");

  // ---- counters agree with the traces --------------------------------------------------------
  uint64_t counted = 0;
  for (size_t c = 0; c < size_t(DropCause::Count); ++c)
    counted += net.CountDrops(DropCause(c));
  CHECK(counted == drops.size());
  CHECK(net.CountDrops(DropCause::NextHopDown) + net.CountDrops(DropCause::LinkDown) > 0);
  CHECK(net.CountDrops(DropCause::NoRoute) == revNoRoute);
  CHECK(net.GetSwitch(t1)->Drops(DropCause::NoRoute) == revNoRoute);
  CHECK(std::none_of(drops.begin(), drops.end(), [](const DropEvent& d) { return d.at > kFail + kReconverge; }));
  Simulator::Destroy();
}

TEST_CASE("fabric: a packet sent to a port whose link is down is dropped as LinkDown", "[fabric][failure]")
{
  FabricFixture fx(TinyMultiplane());
  const Attachment& a = fx.Routing().Attach(0, 0);
  std::vector<DropCause> causes;
  Ptr<FabricPort> nic = fx.NicPort(0, 0);
  nic->TraceConnectWithoutContext("Drop", Callback<void, Ptr<const Packet>, DropCause>(
                                            [&](Ptr<const Packet>, DropCause c) { causes.push_back(c); }));
  fx.net->SetLinkUp(a.link, false);
  CHECK_FALSE(nic->IsLinkUp());
  CHECK_FALSE(fx.net->GetHost(0)->Send(DataPacket(0, 1, 0, 100), a.gpuPort));
  CHECK(causes == std::vector<DropCause>{DropCause::LinkDown});
  CHECK(fx.net->CountDrops(DropCause::LinkDown) == 1);
  Simulator::Run();
  Simulator::Destroy();
}
