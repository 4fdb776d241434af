// ECN marking at an egress port follows the RED curve of its PortQueueConfig: never at or below
// Kmin, always at or above Kmax, and in between with probability Pmax (q - Kmin) / (Kmax - Kmin)
// of the class bytes found on arrival. Checked statistically with a fixed seed over every fabric
// port of the tiny fabric, each filled at t = 0 (the simulator never runs, so nothing drains).
#include "tests/models/fabric-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

constexpr uint32_t kKmin = 10000;
constexpr uint32_t kKmax = 60000;
constexpr double kPmax = 0.5;
constexpr uint32_t kPayload = 24; // 100-byte packets: fine steps of queue length
constexpr int kPacketsPerPort = 800;
constexpr int kNotEctEvery = 7; // every 7th packet is not ECN-capable

struct Sample
{
  uint32_t queueBefore;
  bool ect;
  bool marked;
};

void
ConfigureRed(const Ptr<PortQueueConfig>& c, bool enabled)
{
  c->SetAttribute("EcnEnabled", BooleanValue(enabled));
  c->SetAttribute("EcnKmin", UintegerValue(kKmin));
  c->SetAttribute("EcnKmax", UintegerValue(kKmax));
  c->SetAttribute("EcnPmax", DoubleValue(kPmax));
}

// Fills every switch port using the fabric-port policy with kPacketsPerPort packets at t = 0;
// returns one sample per packet, in order.
std::vector<Sample>
FillFabricPorts(FabricFixture& fx, bool ecnEnabled, bool* markHadCe = nullptr)
{
  Ptr<PortQueueConfig> config = fx.net->GetFabricPortConfig();
  ConfigureRed(config, ecnEnabled);
  std::vector<Sample> samples;
  bool marked = false;
  bool allCe = true;
  auto onMark = Callback<void, Ptr<const Packet>>(
    [&](Ptr<const Packet> p)
    {
      marked = true;
      allCe = allCe && PeekIp(p).GetEcn() == Ipv6UsidHeader::Ce;
    });
  const Fabric& f = *fx.fabric;
  int ports = 0;
  int refused = 0;
  for (VertexId v = 0; v < f.NumVertices(); ++v)
  {
    if (f.Node(v).role != NodeRole::Switch)
    {
      continue;
    }
    for (uint16_t i = 0; i < f.Degree(v); ++i)
    {
      Ptr<FabricPort> port = fx.net->GetPort(v, i);
      if (port->GetQueueConfig() != config)
      {
        continue;
      }
      ++ports;
      port->TraceConnectWithoutContext("EcnMark", onMark);
      for (int k = 0; k < kPacketsPerPort; ++k)
      {
        FabricPacketSpec s;
        s.srcGpu = 0;
        s.dstGpu = 5;
        s.payloadBytes = kPayload;
        s.ecn = (k % kNotEctEvery == kNotEctEvery - 1) ? Ipv6UsidHeader::NotEct : Ipv6UsidHeader::Ect0;
        Sample sm{ port->QueueBytes(1), s.ecn != Ipv6UsidHeader::NotEct, false };
        marked = false;
        refused += !port->Enqueue(MakeWriteFrame(s), 1, nullptr);
        sm.marked = marked;
        samples.push_back(sm);
      }
    }
  }
  REQUIRE(refused == 0);
  REQUIRE(ports == 32); // 2 planes x (2 T0 x 4 up + 2 T1 x 4 down)
  if (markHadCe)
  {
    *markHadCe = allCe;
  }
  return samples;
}

} // namespace

TEST_CASE("fabric: the RED curve of the port policy", "[fabric][ecn]")
{
  FabricFixture fx(TinyMultiplane());
  Ptr<PortQueueConfig> c = fx.net->GetFabricPortConfig();
  ConfigureRed(c, true);
  CHECK(c->MarkProbability(0) == 0);
  CHECK(c->MarkProbability(kKmin) == 0);
  CHECK(c->MarkProbability(kKmin + 25000) == Approx(0.25));
  CHECK(c->MarkProbability(kKmax - 1) == Approx(kPmax * (kKmax - 1 - kKmin) / double(kKmax - kKmin)));
  CHECK(c->MarkProbability(kKmax) == 1);
  CHECK(c->MarkProbability(10 * kKmax) == 1);
  Simulator::Destroy();
}

TEST_CASE("fabric: ECN marks follow the RED curve statistically (fixed seed)", "[fabric][ecn]")
{
  FabricFixture fx(TinyMultiplane(), 7, 3);
  bool markedAreCe = false;
  std::vector<Sample> samples = FillFabricPorts(fx, true, &markedAreCe);
  CHECK(markedAreCe);
  Ptr<PortQueueConfig> c = fx.net->GetFabricPortConfig();

  // Outside the ramp the outcome is certain.
  uint64_t belowKmin = 0, aboveKmax = 0, notEct = 0;
  uint64_t notEctMarked = 0, belowMarked = 0, aboveUnmarked = 0;
  for (const Sample& s : samples)
  {
    if (!s.ect)
    {
      ++notEct;
      notEctMarked += s.marked; // a packet that is not ECN-capable is never marked
      continue;
    }
    if (s.queueBefore <= kKmin)
    {
      ++belowKmin;
      belowMarked += s.marked;
    }
    else if (s.queueBefore >= kKmax)
    {
      ++aboveKmax;
      aboveUnmarked += !s.marked;
    }
  }
  CHECK(notEctMarked == 0);
  CHECK(belowMarked == 0);
  CHECK(aboveUnmarked == 0);
  CHECK(belowKmin > 2000);
  CHECK(aboveKmax > 2000);
  CHECK(notEct > 3000);

  // On the ramp: buckets of 5 KB; the marked count of each is a sum of Bernoulli draws with
  // the probabilities RED gives for the queue each packet found.
  const uint32_t width = 5000;
  const int buckets = (kKmax - kKmin) / width;
  std::vector<double> expected(buckets, 0), variance(buckets, 0);
  std::vector<uint64_t> observed(buckets, 0), n(buckets, 0);
  for (const Sample& s : samples)
  {
    if (!s.ect || s.queueBefore <= kKmin || s.queueBefore >= kKmax)
    {
      continue;
    }
    int b = int((s.queueBefore - kKmin) / width);
    double p = c->MarkProbability(s.queueBefore);
    ++n[b];
    expected[b] += p;
    variance[b] += p * (1 - p);
    observed[b] += s.marked ? 1 : 0;
  }
  double chi2 = 0;
  for (int b = 0; b < buckets; ++b)
  {
    INFO("bucket " << b << ": queue " << kKmin + b * width << ".." << kKmin + (b + 1) * width << " B, n=" << n[b]
                   << ", marked " << observed[b] << ", expected " << expected[b]);
    REQUIRE(n[b] > 1000);
    CHECK(std::abs(double(observed[b]) - expected[b]) <= 4 * std::sqrt(variance[b]));
    chi2 += (observed[b] - expected[b]) * (observed[b] - expected[b]) / variance[b];
  }
  // Sum of 10 squared standard normals: 0.999 quantile of chi-square(10) is 29.59.
  CHECK(chi2 < 29.59);
  Simulator::Destroy();
}

TEST_CASE("fabric: ECN marking repeats exactly for a seed and changes with the run", "[fabric][ecn]")
{
  auto marks = [](uint64_t run)
  {
    FabricFixture fx(TinyMultiplane(), 7, run);
    std::vector<bool> m;
    for (const Sample& s : FillFabricPorts(fx, true))
    {
      m.push_back(s.marked);
    }
    Simulator::Destroy();
    return m;
  };
  std::vector<bool> a = marks(3);
  std::vector<bool> b = marks(3);
  std::vector<bool> c = marks(4);
  CHECK(a == b);
  CHECK(a != c);
}

TEST_CASE("fabric: with EcnEnabled=false nothing is marked, even above Kmax", "[fabric][ecn]")
{
  FabricFixture fx(TinyMultiplane(), 7, 3);
  std::vector<Sample> samples = FillFabricPorts(fx, false);
  uint64_t marked = 0, aboveKmax = 0;
  for (const Sample& s : samples)
  {
    marked += s.marked;
    aboveKmax += s.queueBefore >= kKmax;
  }
  CHECK(aboveKmax > 2000);
  CHECK(marked == 0);
  Simulator::Destroy();
}

// A packet refused by drop-tail never leaves the port, so it must not count as marked: EcnMark
// (and the CE bit) should only concern packets that were queued.
TEST_CASE("fabric: a packet dropped at enqueue is not reported as ECN-marked", "[fabric][ecn]")
{
  FabricFixture fx(TinyMultiplane());
  Ptr<PortQueueConfig> c = fx.net->GetLastHopPortConfig();
  c->SetAttribute("EcnEnabled", BooleanValue(true));
  c->SetAttribute("EcnKmin", UintegerValue(0));
  c->SetAttribute("EcnKmax", UintegerValue(1)); // any queued byte: mark with certainty
  c->SetAttribute("DataLimit", UintegerValue(10000));
  Ptr<FabricPort> port = fx.LeafPortFacing(2, 0);
  int marks = 0, drops = 0, accepted = 0;
  port->TraceConnectWithoutContext("EcnMark", Callback<void, Ptr<const Packet>>([&](Ptr<const Packet>) { ++marks; }));
  port->TraceConnectWithoutContext(
    "Drop", Callback<void, Ptr<const Packet>, DropCause>([&](Ptr<const Packet>, DropCause) { ++drops; }));
  // 4182-byte packets: the first goes straight to the wire, the second finds an empty queue (no
  // mark), the third finds 4182 B (marked) and fills the class to 8364 B; the other seven do not fit.
  for (int k = 0; k < 10; ++k)
  {
    accepted += port->Enqueue(FromPacket(DataPacket(0, 2, 0, 4106), FabricPort::kIpv6), 1, nullptr);
  }
  CHECK(accepted == 3);
  CHECK(drops == 7);
  CHECK(marks == 1);
  Simulator::Destroy();
}

// Runs are independent replications: two run numbers must not share a marking stream. The port
// seed is (seed << 32) ^ run ^ f(node, port), then forced odd, so runs 2k and 2k + 1 coincide.
TEST_CASE("fabric: ECN marking differs between runs 4 and 5", "[fabric][ecn]")
{
  auto marks = [](uint64_t run)
  {
    FabricFixture fx(TinyMultiplane(), 7, run);
    std::vector<bool> m;
    for (const Sample& s : FillFabricPorts(fx, true))
    {
      m.push_back(s.marked);
    }
    Simulator::Destroy();
    return m;
  };
  CHECK(marks(4) != marks(5));
}

// EcnMarkPoint Dequeue: the decision is taken when a packet starts on the wire, on the bytes it
// leaves behind, so a queue filled at once marks its first departures and not its last ones, and
// nothing at enqueue. With a step at 20 KB (Kmin 20,000, Kmax 20,001), exactly the packets that
// leave more than 20,000 bytes behind are marked.
TEST_CASE("fabric: with EcnMarkPoint=Dequeue the bytes a departing packet leaves behind decide", "[fabric][ecn]")
{
  FabricFixture fx(TinyMultiplane(), 7, 3);
  Ptr<PortQueueConfig> config = fx.net->GetFabricPortConfig();
  config->SetAttribute("EcnEnabled", BooleanValue(true));
  config->SetAttribute("EcnMarkPoint", EnumValue(PortQueueConfig::DEQUEUE));
  config->SetAttribute("EcnKmin", UintegerValue(20000));
  config->SetAttribute("EcnKmax", UintegerValue(20001));
  config->SetAttribute("ReferenceRate", DataRateValue(DataRate(0)));
  const Fabric& f = *fx.fabric;
  Ptr<FabricPort> port;
  for (VertexId v = 0; v < f.NumVertices() && !port; ++v)
  {
    for (uint16_t i = 0; f.Node(v).role == NodeRole::Switch && i < f.Degree(v) && !port; ++i)
    {
      if (fx.net->GetPort(v, i)->GetQueueConfig() == config)
      {
        port = fx.net->GetPort(v, i);
      }
    }
  }
  REQUIRE(port);
  std::vector<uint32_t> behindAtMark;
  port->TraceConnectWithoutContext("EcnMark",
                                   Callback<void, Ptr<const Packet>>([&](Ptr<const Packet> p)
                                                                     {
                                                                       CHECK(PeekIp(p).GetEcn() == Ipv6UsidHeader::Ce);
                                                                       behindAtMark.push_back(port->QueueBytes(1));
                                                                     }));
  bool firstStarted = false; // an idle port puts the first packet on the wire at once
  for (int k = 0; k < 400; ++k)
  {
    FabricPacketSpec s;
    s.srcGpu = 0;
    s.dstGpu = 5;
    s.payloadBytes = 200;
    s.ecn = Ipv6UsidHeader::Ect0;
    REQUIRE(port->Enqueue(MakeWriteFrame(s), 1, nullptr));
    firstStarted = firstStarted || (k == 0 && port->QueueBytes(1) == 0);
  }
  CHECK(behindAtMark.empty()); // nothing at enqueue
  const int queued = firstStarted ? 399 : 400;
  const uint32_t size = port->QueueBytes(1) / queued;
  REQUIRE(size * queued == port->QueueBytes(1));
  uint64_t expected = 0; // the i-th queued packet to leave leaves (queued - i) packets behind
  for (int i = 1; i <= queued; ++i)
  {
    expected += uint64_t(queued - i) * size > 20000;
  }
  REQUIRE(expected > 0);
  REQUIRE(expected < uint64_t(queued));
  Simulator::Run();
  CHECK(behindAtMark.size() == expected);
  for (uint32_t b : behindAtMark)
  {
    CHECK(b > 20000);
  }
  CHECK(port->QueueBytes(1) == 0);
  Simulator::Destroy();
}
