// Packet trimming at an egress port: a data packet is cut to TrimmedSize and moved to the
// control class exactly when the data class bytes it finds plus its own size exceed
// TrimThreshold (and it is larger than a trimmed packet); never otherwise. Trimmed packets then
// leave first (strict priority) and reach the destination GPU with their headers intact.
#include "tests/models/fabric-test-fixture.h"

#include "ns3/boolean.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

constexpr uint32_t kThreshold = 30000;
constexpr uint32_t kTrimmedSize = 64;

struct Offered
{
  uint32_t size;
  uint32_t dataBytesBefore;
  uint32_t psn;
};

} // namespace

TEST_CASE("fabric: trimming happens exactly above the threshold, to TrimmedSize, in class 0", "[fabric][trim]")
{
  FabricFixture fx(TinyMultiplane());
  Ptr<PortQueueConfig> c = fx.net->GetLastHopPortConfig();
  c->SetAttribute("TrimEnabled", BooleanValue(true));
  c->SetAttribute("TrimThreshold", UintegerValue(kThreshold));
  c->SetAttribute("TrimmedSize", UintegerValue(kTrimmedSize));
  c->SetAttribute("EcnEnabled", BooleanValue(false));
  const uint8_t trimmedDscp = c->TrimmedDscp();

  // T0 0 of plane 0, the port facing GPU 2: its packets go to GPU 2 when the simulator runs.
  Ptr<FabricPort> port = fx.LeafPortFacing(2, 0);
  REQUIRE(port->GetQueueConfig() == c);

  std::vector<std::pair<uint32_t, uint8_t>> enqueued; // (PSN, class)
  std::vector<uint32_t> trimmedPsn;
  std::vector<uint32_t> trimmedSize;
  bool trimmedHeadersOk = true;
  port->TraceConnectWithoutContext(
    "Enqueue",
    Callback<void, Ptr<const Packet>, uint8_t>([&](Ptr<const Packet> p, uint8_t cls)
                                               { enqueued.emplace_back(PeekPsn(p), cls); }));
  port->TraceConnectWithoutContext("Trim",
                                   Callback<void, Ptr<const Packet>>(
                                     [&](Ptr<const Packet> p)
                                     {
                                       trimmedPsn.push_back(PeekPsn(p));
                                       trimmedSize.push_back(p->GetSize());
                                       Ipv6UsidHeader ip = PeekIp(p);
                                       trimmedHeadersOk =
                                         trimmedHeadersOk && ip.GetDscp() == trimmedDscp &&
                                         ip.GetPayloadLength() == kTrimmedSize - Ipv6UsidHeader::kSize &&
                                         PeekUdp(p).GetDestinationPort() == RoceUdpHeader::kRoceV2Port;
                                     }));

  // Sizes from a fixed sequence, from bare headers (below TrimmedSize once without RETH) to
  // jumbo, plus one exact fit: a packet that brings the data class to exactly the threshold.
  std::vector<Offered> offered;
  uint64_t lcg = 12345;
  int exactFit = -1;
  for (uint32_t psn = 0; psn < 120; ++psn)
  {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t payload = uint32_t((lcg >> 33) % 4097);
    FabricPacketSpec s;
    s.srcGpu = 0;
    s.dstGpu = 2;
    s.psn = psn;
    s.payloadBytes = payload;
    const bool reth = (psn % 11) != 5; // some 60-byte packets: smaller than TrimmedSize, never trimmed
    if (!reth)
    {
      s.payloadBytes = 0;
    }
    uint32_t before = port->QueueBytes(1);
    if (exactFit < 0 && reth && before + DataPacketBytes(0) <= kThreshold &&
        kThreshold - before - DataPacketBytes(0) <= 4096)
    {
      // Exactly fill to the threshold: not above it, so not trimmed.
      s.payloadBytes = kThreshold - before - DataPacketBytes(0);
      exactFit = int(psn);
    }
    Ptr<Packet> p = MakeWritePacket(s, reth);
    offered.push_back(Offered{ p->GetSize(), before, psn });
    REQUIRE(port->Enqueue(FromPacket(p, FabricPort::kIpv6), 1, nullptr));
  }

  // Expected from the rule alone.
  std::vector<uint32_t> expectTrimmed;
  for (const Offered& o : offered)
  {
    if (o.dataBytesBefore + o.size > kThreshold && o.size > kTrimmedSize)
    {
      expectTrimmed.push_back(o.psn);
    }
  }
  REQUIRE(exactFit > 0);
  CHECK(offered[exactFit].dataBytesBefore + offered[exactFit].size == kThreshold);
  CHECK(std::find(expectTrimmed.begin(), expectTrimmed.end(), uint32_t(exactFit)) == expectTrimmed.end());
  CHECK(expectTrimmed.size() > 50);
  CHECK(expectTrimmed.size() < offered.size() - 5);
  CHECK(trimmedPsn == expectTrimmed);
  CHECK(trimmedHeadersOk);
  for (uint32_t s : trimmedSize)
  {
    CHECK(s == kTrimmedSize);
  }
  // The data class never holds more than the threshold except through packets too small to trim.
  REQUIRE(enqueued.size() == offered.size());
  for (size_t i = 0; i < offered.size(); ++i)
  {
    bool trimmed = std::find(expectTrimmed.begin(), expectTrimmed.end(), offered[i].psn) != expectTrimmed.end();
    INFO("psn " << offered[i].psn << " size " << offered[i].size << " data bytes before "
                << offered[i].dataBytesBefore);
    CHECK(enqueued[i].first == offered[i].psn);
    CHECK(int(enqueued[i].second) == (trimmed ? 0 : 1));
  }
  uint32_t controlBytes = port->QueueBytes(0);
  CHECK(controlBytes == kTrimmedSize * expectTrimmed.size());

  // Strict priority: after the frame already on the wire, every trimmed header leaves before
  // the queued data, and GPU 2 receives all of them with the right sizes.
  std::vector<std::pair<uint32_t, uint32_t>> received; // (PSN, size)
  fx.net->GetHost(2)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>(
    [&](Ptr<Packet> p, uint16_t) { received.emplace_back(PeekPsn(p), p->GetSize()); }));
  Simulator::Run();
  REQUIRE(received.size() == offered.size());
  CHECK(received[0].first == 0);
  for (size_t i = 0; i < expectTrimmed.size(); ++i)
  {
    CHECK(received[1 + i].first == expectTrimmed[i]);
    CHECK(received[1 + i].second == kTrimmedSize);
  }
  for (size_t i = 1 + expectTrimmed.size(); i < received.size(); ++i)
  {
    CHECK(received[i].second > 0);
    CHECK(std::find(expectTrimmed.begin(), expectTrimmed.end(), received[i].first) == expectTrimmed.end());
  }
  CHECK(fx.net->CountDrops(DropCause::QueueFull) == 0);
  Simulator::Destroy();
}

TEST_CASE("fabric: with TrimEnabled=false nothing is trimmed, whatever the queue", "[fabric][trim]")
{
  FabricFixture fx(TinyMultiplane());
  Ptr<PortQueueConfig> c = fx.net->GetLastHopPortConfig();
  c->SetAttribute("TrimEnabled", BooleanValue(false));
  c->SetAttribute("TrimThreshold", UintegerValue(kThreshold));
  Ptr<FabricPort> port = fx.LeafPortFacing(2, 0);
  int trims = 0;
  std::vector<uint8_t> classes;
  port->TraceConnectWithoutContext("Trim", Callback<void, Ptr<const Packet>>([&](Ptr<const Packet>) { ++trims; }));
  port->TraceConnectWithoutContext(
    "Enqueue",
    Callback<void, Ptr<const Packet>, uint8_t>([&](Ptr<const Packet>, uint8_t cls) { classes.push_back(cls); }));
  for (int i = 0; i < 40; ++i)
  {
    REQUIRE(port->Enqueue(FromPacket(DataPacket(0, 2, 0, 4096), FabricPort::kIpv6), 1, nullptr));
  }
  CHECK(port->QueueBytes(1) == 39 * DataPacketBytes(4096));
  CHECK(port->QueueBytes(1) > 5 * kThreshold);
  CHECK(trims == 0);
  CHECK(std::count(classes.begin(), classes.end(), uint8_t(1)) == 40);
  Simulator::Destroy();
}
