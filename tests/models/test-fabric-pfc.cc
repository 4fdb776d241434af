// PFC makes an incast lossless: seven GPUs (three under the receiver's T0, four behind the T1s)
// send at line rate into one GPU port; with PFC on every port policy and small egress limits
// nothing is dropped, everything arrives, PAUSE frames are sent by switches and obeyed by NICs
// (the pause spreads back through the T1s to the far T0 and its GPUs), and every buffer drains.
// The same incast without PFC overflows the same small limits, so the lossless result is earned.
#include "tests/models/fabric-test-fixture.h"

#include "models/wire/pfc-pause-header.h"

#include "ns3/boolean.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

constexpr uint32_t kReceiver = 0;
constexpr int kPlane = 0;
constexpr int kPacketsPerSender = 40;
constexpr uint32_t kPayload = 4096;
constexpr uint32_t kDataLimit = 30000; // egress limit of switch ports: about 7 packets
constexpr uint32_t kXoff = 20000;
constexpr uint32_t kXon = 10000;

// Bytes that can still arrive at an ingress after it crosses XOFF: the packet that crossed it;
// then the PAUSE may wait for one frame on the reverse wire, takes its own serialisation, one
// propagation delay and the upstream's forwarding latency to act, while the upstream finishes the
// frame it is sending; everything on the forward wire (one delay) and in this switch's
// forwarding pipeline (one latency) still lands. At 100 Gb/s, 1 us links, 300 ns latency.
uint32_t
Headroom()
{
  const double bytesPerNs = 100e9 / 8 / 1e9;
  const uint32_t frame = DataPacketBytes(kPayload) + kFraming;
  const double pauseNs = (PfcPauseHeader::kSize + kFraming) / bytesPerNs;
  return DataPacketBytes(kPayload) + 2 * frame + uint32_t(bytesPerNs * (2 * 1000 + 2 * 300 + pauseNs)) + 1;
}

struct IncastResult
{
  std::set<std::pair<uint32_t, uint32_t>> received; // (source GPU, PSN)
  uint64_t duplicates = 0;
  uint64_t drops[size_t(DropCause::Count)] = {};
  uint64_t pausesSentBySwitches = 0;
  uint64_t resumesSentBySwitches = 0;
  std::set<uint32_t> nicsPaused; // GPUs whose NIC port received a PAUSE
  std::set<VertexId> pausingSwitches;
  uint64_t portsLeftPaused = 0;
  std::map<FabricPort*, Time> pausedSince;
  Time tracedPaused;      // sum of traced PAUSE-to-RESUME intervals
  Time countedPaused;     // sum of the ports' PausedTime()
  uint64_t bytesLeft = 0; // queue and ingress bytes left anywhere after the run
  Time first;
  Time last;
};

/// Every port class of the fixture's fabric: PFC on or off, the test's XOFF, XON and headroom.
void
SetPfc(FabricFixture& fx, bool pfc)
{
  for (const Ptr<PortQueueConfig>& c :
       { fx.net->GetFabricPortConfig(), fx.net->GetLastHopPortConfig(), fx.net->GetNicPortConfig() })
  {
    c->SetAttribute("PfcEnabled", BooleanValue(pfc));
    c->SetAttribute("PfcXoff", UintegerValue(kXoff));
    c->SetAttribute("PfcXon", UintegerValue(kXon));
    c->SetAttribute("PfcHeadroom", UintegerValue(Headroom()));
  }
}

IncastResult
RunIncast(bool pfc)
{
  FabricFixture fx(TinyMultiplane());
  SetPfc(fx, pfc);
  // Switch egress queues are small. The NICs keep their default (1 MB) limit because each holds
  // its whole burst: they are the sources, enqueued at t = 0 and paced by their own wire.
  fx.net->GetFabricPortConfig()->SetAttribute("DataLimit", UintegerValue(kDataLimit));
  fx.net->GetLastHopPortConfig()->SetAttribute("DataLimit", UintegerValue(kDataLimit));
  REQUIRE(fx.net->GetNicPortConfig()->ClassLimit(1) >= kPacketsPerSender * DataPacketBytes(kPayload));

  IncastResult r;
  const Fabric& f = *fx.fabric;
  for (VertexId v = 0; v < f.NumVertices(); ++v)
  {
    if (f.Node(v).role == NodeRole::Switch && f.Node(v).plane != kPlane)
    {
      continue;
    }
    bool isGpu = f.Node(v).role == NodeRole::Gpu;
    uint32_t gpu = f.Node(v).index;
    for (uint16_t i = 0; i < f.Degree(v); ++i)
    {
      Ptr<FabricPort> port = fx.net->GetPort(v, i);
      FabricPort* raw = PeekPointer(port);
      port->TraceConnectWithoutContext("Pause",
                                       Callback<void, uint8_t, bool, bool>(
                                         [&r, isGpu, gpu, v, raw](uint8_t cls, bool paused, bool sent)
                                         {
                                           if (!sent)
                                           {
                                             // Paused time as the trace shows it, to check PausedTime().
                                             if (paused)
                                               r.pausedSince[raw] = Simulator::Now();
                                             else
                                               r.tracedPaused += Simulator::Now() - r.pausedSince[raw];
                                           }
                                           if (sent && !isGpu)
                                           {
                                             (paused ? r.pausesSentBySwitches : r.resumesSentBySwitches)++;
                                             r.pausingSwitches.insert(v);
                                           }
                                           if (!sent && isGpu && paused)
                                           {
                                             r.nicsPaused.insert(gpu);
                                           }
                                         }));
    }
  }
  fx.net->GetHost(kReceiver)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>(
    [&](Ptr<Packet> p, uint16_t)
    {
      if (r.received.empty())
      {
        r.first = Simulator::Now();
      }
      r.last = Simulator::Now();
      if (!r.received.emplace(SourceGpu(p), PeekPsn(p)).second)
      {
        ++r.duplicates;
      }
    }));

  const uint16_t nic = uint16_t(fx.Routing().Attach(kReceiver, kPlane).gpuPort);
  for (uint32_t src = 1; src < f.NumGpus(); ++src)
  {
    for (int k = 0; k < kPacketsPerSender; ++k)
    {
      uint16_t entropy = uint16_t(0xC000 + src * 256 + k);
      REQUIRE(fx.net->GetHost(src)->Send(DataPacket(src, kReceiver, kPlane, kPayload, entropy, uint32_t(k)), nic));
    }
  }
  Simulator::Run();

  for (size_t c = 0; c < size_t(DropCause::Count); ++c)
  {
    r.drops[c] = fx.net->CountDrops(DropCause(c));
  }
  for (VertexId v = 0; v < f.NumVertices(); ++v)
  {
    for (uint16_t i = 0; i < f.Degree(v); ++i)
    {
      Ptr<FabricPort> port = fx.net->GetPort(v, i);
      r.portsLeftPaused += port->IsPaused(1);
      r.countedPaused += port->PausedTime();
      r.bytesLeft += port->QueueBytes(0) + port->QueueBytes(1) + port->IngressBytes(1);
    }
  }
  Simulator::Destroy();
  return r;
}

uint64_t
TotalDrops(const IncastResult& r)
{
  uint64_t n = 0;
  for (uint64_t d : r.drops)
  {
    n += d;
  }
  return n;
}

} // namespace

TEST_CASE("fabric: an incast under PFC loses nothing and pauses the senders", "[fabric][pfc]")
{
  const uint64_t sent = 7 * kPacketsPerSender;
  IncastResult r = RunIncast(true);

  for (size_t c = 0; c < size_t(DropCause::Count); ++c)
  {
    INFO("drops by " << DropCauseName(DropCause(c)));
    CHECK(r.drops[c] == 0);
  }
  CHECK(r.received.size() == sent);
  CHECK(r.duplicates == 0);

  // Switches paused their upstreams and released them; NICs under both T0s were stopped (under
  // the far T0 only through the T1s pausing it in turn).
  CHECK(r.pausesSentBySwitches > 0);
  CHECK(r.resumesSentBySwitches == r.pausesSentBySwitches);
  CHECK(r.pausingSwitches.size() >= 3); // receiver's T0, a T1, the far T0
  CHECK(r.nicsPaused.count(1) + r.nicsPaused.count(2) + r.nicsPaused.count(3) > 0);
  CHECK(r.nicsPaused.count(4) + r.nicsPaused.count(5) + r.nicsPaused.count(6) + r.nicsPaused.count(7) > 0);
  CHECK(r.portsLeftPaused == 0);
  CHECK(r.countedPaused > Time(0));
  CHECK(r.countedPaused == r.tracedPaused);
  CHECK(r.bytesLeft == 0);

  // The bottleneck (the T0 port facing the receiver) cannot beat its line rate, and PFC keeps it
  // busy: the incast takes at most a few microseconds longer than the bytes need.
  const Time tx = NanoSeconds(WirePicoseconds(DataPacketBytes(kPayload), 100000000000ull) / 1000);
  CHECK(r.last - r.first >= (sent - 1) * tx);
  CHECK(r.last - r.first <= (sent - 1) * tx + MicroSeconds(5));
}

TEST_CASE("fabric: the same incast without PFC overflows the small limits", "[fabric][pfc]")
{
  const uint64_t sent = 7 * kPacketsPerSender;
  IncastResult r = RunIncast(false);
  CHECK(r.drops[size_t(DropCause::QueueFull)] > 0);
  CHECK(TotalDrops(r) == r.drops[size_t(DropCause::QueueFull)]);
  CHECK(r.received.size() + TotalDrops(r) == sent);
  CHECK(r.received.size() < sent);
  CHECK(r.pausesSentBySwitches == 0);
  CHECK(r.nicsPaused.empty());
  CHECK(r.bytesLeft == 0);
}

// A link flap between a PAUSE and its RESUME: the switch still holds the upstream's bytes above
// XOFF when the link returns, so the upstream must be paused again before it can overrun the
// headroom. Lossless means no PfcHeadroom drop whatever the link did.
TEST_CASE("fabric: PFC pauses the upstream again after a link flap while above XOFF", "[fabric][pfc]")
{
  FabricFixture fx(TinyMultiplane());
  SetPfc(fx, true);
  Ptr<FabricControlPlane> cp = fx.net->GetControlPlane();
  cp->SetAttribute("DetectionDelay", TimeValue(MicroSeconds(1)));
  cp->SetAttribute("ReconvergenceDelay", TimeValue(MicroSeconds(2)));

  // The T0 port facing GPU 0 drains at 1% of its rate (33.6 us per packet), so GPU 1's bytes
  // stay in the T0 above XOFF for the whole test.
  const Attachment& rx = fx.Routing().Attach(0, 0);
  Ptr<FabricPort> egress = fx.net->GetPort(rx.leaf, rx.leafPort);
  fx.net->GetChannel(rx.link)->SetRateFactor(PeekPointer(egress), 0.01);
  const Attachment& tx = fx.Routing().Attach(1, 0);
  Ptr<FabricPort> ingress = fx.net->GetPort(tx.leaf, tx.leafPort);

  std::vector<std::pair<Time, bool>> nicPauses; // PAUSE/RESUME received by GPU 1
  fx.NicPort(1, 0)->TraceConnectWithoutContext("Pause",
                                               Callback<void, uint8_t, bool, bool>(
                                                 [&](uint8_t, bool paused, bool sent)
                                                 {
                                                   if (!sent)
                                                     nicPauses.emplace_back(Simulator::Now(), paused);
                                                 }));
  auto burst = [&fx](int n, uint32_t firstPsn)
  {
    for (int k = 0; k < n; ++k)
      fx.net->GetHost(1)->Send(DataPacket(1, 0, 0, kPayload, 0xC000, firstPsn + k), 0);
  };
  const Time flapDown = MicroSeconds(20);
  const Time flapUp = MicroSeconds(21);
  uint32_t ingressBeforeFlap = 0;
  Simulator::Schedule(Time(0), [&]() { burst(12, 0); });
  Simulator::Schedule(flapDown - NanoSeconds(1), [&]() { ingressBeforeFlap = ingress->IngressBytes(1); });
  fx.net->ScheduleLinkUp(flapDown, tx.link, false);
  fx.net->ScheduleLinkUp(flapUp, tx.link, true);
  Simulator::Schedule(MicroSeconds(22), [&]() { burst(30, 100); });
  Simulator::Run();

  // The set-up did what it should: GPU 1 was paused before the flap, above XOFF.
  REQUIRE_FALSE(nicPauses.empty());
  CHECK(nicPauses.front().second);
  CHECK(nicPauses.front().first < flapDown);
  CHECK(ingressBeforeFlap > kXoff);
  // After the link returns, the second burst must be paused again, and nothing overruns.
  bool pausedAgain = std::any_of(
    nicPauses.begin(), nicPauses.end(), [&](const std::pair<Time, bool>& e) { return e.second && e.first > flapUp; });
  CHECK(pausedAgain);
  CHECK(fx.net->CountDrops(DropCause::PfcHeadroom) == 0);
  CHECK(fx.net->CountDrops(DropCause::QueueFull) == 0);
  Simulator::Destroy();
}

TEST_CASE("pfc: a PAUSE lasts its quanta, is refreshed while congested and expires when not", "[fabric][pfc]")
{
  // 1,000 quanta at 100G: 5.12 us. The T0 port facing GPU 0 drains at 1% of its rate, so GPU 1's
  // bytes stay above XOFF in the T0 for the whole test.
  const uint16_t quanta = 1000;
  const Time pauseTime = NanoSeconds(5120);
  for (bool refreshesLost : { false, true })
  {
    DYNAMIC_SECTION((refreshesLost ? "refreshes lost" : "refreshed"))
    {
      FabricFixture fx(TinyMultiplane());
      SetPfc(fx, true);
      for (const Ptr<PortQueueConfig>& c :
           { fx.net->GetFabricPortConfig(), fx.net->GetLastHopPortConfig(), fx.net->GetNicPortConfig() })
        c->SetAttribute("PfcPauseQuanta", UintegerValue(quanta));
      const Attachment& rx = fx.Routing().Attach(0, 0);
      Ptr<FabricPort> egress = fx.net->GetPort(rx.leaf, rx.leafPort);
      fx.net->GetChannel(rx.link)->SetRateFactor(PeekPointer(egress), 0.01);
      const Attachment& tx = fx.Routing().Attach(1, 0);
      Ptr<FabricPort> ingress = fx.net->GetPort(tx.leaf, tx.leafPort);
      std::vector<Time> sent;                       // PAUSEs the T0 sent toward GPU 1
      std::vector<std::pair<Time, bool>> received; // pause state changes at GPU 1's port
      ingress->TraceConnectWithoutContext("Pause",
                                          Callback<void, uint8_t, bool, bool>(
                                            [&](uint8_t, bool paused, bool isSent)
                                            {
                                              if (isSent && paused)
                                                sent.push_back(Simulator::Now());
                                            }));
      fx.NicPort(1, 0)->TraceConnectWithoutContext("Pause",
                                                   Callback<void, uint8_t, bool, bool>(
                                                     [&](uint8_t, bool paused, bool isSent)
                                                     {
                                                       if (!isSent)
                                                         received.emplace_back(Simulator::Now(), paused);
                                                     }));
      Simulator::Schedule(Time(0),
                          [&]()
                          {
                            for (int k = 0; k < 12; ++k)
                              fx.net->GetHost(1)->Send(DataPacket(1, 0, 0, kPayload, 0xC000, k), 0);
                          });
      if (refreshesLost)
      {
        // Once the first PAUSE is on its way (sent at 3.3 us), every later frame toward GPU 1
        // is lost, the first refresh (at 5.9 us) included.
        Simulator::Schedule(MicroSeconds(5),
                            [&]() { fx.net->GetChannel(tx.link)->SetLossRate(PeekPointer(ingress), 1.0); });
      }
      Simulator::Stop(MicroSeconds(30));
      Simulator::Run();
      REQUIRE(sent.size() >= 2);
      REQUIRE_FALSE(received.empty());
      REQUIRE(received.front().second);
      CHECK(sent.front() < MicroSeconds(5));
      // Refreshes every half of the pause time while the buffer stays above XON.
      CHECK(sent[1] - sent[0] == pauseTime / 2);
      if (!refreshesLost)
      {
        CHECK(received.size() == 1); // paused throughout: every refresh came before expiry
      }
      else
      {
        // Nothing renewed the pause: GPU 1 resumed on its own, the quanta after the PAUSE came.
        REQUIRE(received.size() >= 2);
        CHECK_FALSE(received[1].second);
        CHECK(received[1].first - received[0].first == pauseTime);
      }
      Simulator::Destroy();
    }
  }
}

TEST_CASE("pfc: headroom is derived from the port's rate, its cable and the response time", "[pfc]")
{
  // Two frames, one PAUSE (84 bytes on the wire), and the cable's round trip plus the response
  // time (3,247 ns) at the port's rate: at 100G with a 1 us cable, 2 x 4,210 + 84 + 5,247 ns x
  // 12.5 bytes/ns (rounded up).
  Ptr<PortQueueConfig> cfg = CreateObject<PortQueueConfig>();
  CHECK(cfg->PfcHeadroomOf(100000000000ull, MicroSeconds(1)) == 2 * 4210 + 84 + 65588);
  // Eight times the rate, eight times the bytes in flight.
  CHECK(cfg->PfcHeadroomOf(800000000000ull, MicroSeconds(1)) == 2 * 4210 + 84 + 524700);
  // A set PfcHeadroom wins.
  cfg->SetAttribute("PfcHeadroom", UintegerValue(100000));
  CHECK(cfg->PfcHeadroomOf(800000000000ull, MicroSeconds(1)) == 100000);
}
