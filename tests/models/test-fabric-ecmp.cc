// ECMP on the multiplane-64 preset: a T0 with 16 up-ports spreads many flows (distinct UDP source
// ports) uniformly over them (chi-square), keeps every packet of a flow on one port, and repeats
// the same choices exactly for the same seed and run while a different run re-hashes.
#include "tests/models/fabric-test-fixture.h"

#include <catch2/catch.hpp>

#include <map>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

constexpr int kPlane = 0;
constexpr int kFlows = 3200;
constexpr int kPacketsPerFlow = 2;
constexpr uint32_t kPayload = 64;

struct Spread
{
  std::vector<uint16_t> upPorts;      // the T0's ECMP group toward the far T0
  std::vector<uint64_t> packets;      // packets dequeued per up-port (index in upPorts)
  std::vector<int> portOfFlow;        // up-port index each flow used (-1: none)
  uint64_t flowsSplit = 0;            // flows whose packets took different ports
  uint64_t delivered = 0;
};

// Flows from the 16 GPUs under T0 0 to the 16 under T0 1 of plane 0, source port = flow id.
Spread
RunFlows(uint32_t seed, uint64_t run)
{
  FabricFixture fx(PresetSpec("multiplane-64"), seed, run);
  const FabricRouting& routing = fx.Routing();
  const VertexId t0 = routing.Attach(0, kPlane).leaf;
  REQUIRE(t0 == fx.fabric->Switches(kPlane, 0)[0]);
  REQUIRE(routing.Attach(16, kPlane).leaf == fx.fabric->Switches(kPlane, 0)[1]);

  Spread s;
  PortGroup g = routing.EcmpGroup(t0, 16);
  s.upPorts.assign(g.ports, g.ports + g.size);
  REQUIRE(s.upPorts.size() == 16);
  for (uint32_t dst = 17; dst < 32; ++dst)
  {
    PortGroup h = routing.EcmpGroup(t0, dst);
    REQUIRE(std::vector<uint16_t>(h.ports, h.ports + h.size) == s.upPorts);
  }
  s.packets.assign(s.upPorts.size(), 0);
  s.portOfFlow.assign(kFlows, -1);
  for (size_t i = 0; i < s.upPorts.size(); ++i)
  {
    fx.net->GetPort(t0, s.upPorts[i])
      ->TraceConnectWithoutContext("Dequeue", Callback<void, Ptr<const Packet>, uint8_t>([&s, i](Ptr<const Packet> p, uint8_t) {
                                     ++s.packets[i];
                                     int flow = PeekUdp(p).GetSourcePort() - 0xC000;
                                     if (s.portOfFlow[flow] >= 0 && s.portOfFlow[flow] != int(i))
                                     {
                                       ++s.flowsSplit;
                                     }
                                     s.portOfFlow[flow] = int(i);
                                   }));
  }
  for (uint32_t dst = 16; dst < 32; ++dst)
  {
    fx.net->GetHost(dst)->SetReceiveCallback(
      Callback<void, Ptr<Packet>, uint16_t>([&s](Ptr<Packet>, uint16_t) { ++s.delivered; }));
  }
  for (int k = 0; k < kPacketsPerFlow; ++k)
  {
    for (int flow = 0; flow < kFlows; ++flow)
    {
      uint32_t src = uint32_t(flow % 16);
      uint32_t dst = 16 + uint32_t(flow / 16) % 16;
      fx.net->GetHost(src)->Send(DataPacket(src, dst, kPlane, kPayload, uint16_t(0xC000 + flow), uint32_t(k)),
                                 uint16_t(routing.Attach(src, kPlane).gpuPort));
    }
  }
  Simulator::Run();
  Simulator::Destroy();
  return s;
}

} // namespace

TEST_CASE("fabric: ECMP spreads flows uniformly over a T0's up-ports and pins each flow", "[fabric][ecmp]")
{
  Spread s = RunFlows(1, 1);
  CHECK(s.delivered == uint64_t(kFlows * kPacketsPerFlow));
  CHECK(s.flowsSplit == 0);
  CHECK(std::count(s.portOfFlow.begin(), s.portOfFlow.end(), -1) == 0);

  std::vector<uint64_t> flowsPerPort(s.upPorts.size(), 0);
  for (int p : s.portOfFlow)
  {
    ++flowsPerPort[p];
  }
  const double expected = double(kFlows) / s.upPorts.size();
  double chi2 = 0;
  for (size_t i = 0; i < s.upPorts.size(); ++i)
  {
    INFO("up-port " << s.upPorts[i] << ": " << flowsPerPort[i] << " flows, " << s.packets[i] << " packets");
    CHECK(s.packets[i] == kPacketsPerFlow * flowsPerPort[i]);
    CHECK(flowsPerPort[i] > 0);
    chi2 += (flowsPerPort[i] - expected) * (flowsPerPort[i] - expected) / expected;
  }
  // 16 ports: 15 degrees of freedom; the 0.999 quantile of chi-square(15) is 37.70.
  INFO("chi-square " << chi2);
  CHECK(chi2 < 37.70);
}

TEST_CASE("fabric: ECMP choices repeat for a seed and change with the run number", "[fabric][ecmp]")
{
  Spread a = RunFlows(5, 2);
  Spread b = RunFlows(5, 2);
  Spread c = RunFlows(5, 3);
  CHECK(a.packets == b.packets);
  CHECK(a.portOfFlow == b.portOfFlow);
  CHECK(a.packets != c.packets);
  // A re-hash moves most flows: with 16 ports about 15/16 of them land elsewhere.
  int moved = 0;
  for (int f = 0; f < kFlows; ++f)
  {
    moved += a.portOfFlow[f] != c.portOfFlow[f];
  }
  CHECK(moved > kFlows * 3 / 4);
}
