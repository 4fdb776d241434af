// A fabric built for part of its vertices, as an MPI rank builds it (FabricNetwork's `runs`):
// every node and every link's channel is made, in the order of a whole build (channel ids are
// how frames find their link on another rank), the ports and a FabricChannel only for links that
// touch a vertex it runs, a placeholder channel without devices for the others. What walks the whole fabric from a global event (link state, NIC attachment) works
// with the ports left out.
#include "tests/models/fabric-test-fixture.h"

#include "models/engine/fabric-parallel-simulator.h"
#include "models/rdma/rdma-connect.h"
#include "models/rdma/rdma-nic.h"

#include "ns3/channel-list.h"

#include <catch2/catch.hpp>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

/// Each link's channel id in a whole build, from the build's first channel.
std::vector<uint32_t>
ChannelIds(const FabricNetwork& net, const Fabric& f)
{
  uint32_t first = UINT32_MAX;
  for (uint32_t l = 0; l < f.NumLinks(); ++l)
    first = std::min(first, net.GetChannel(l)->GetId());
  std::vector<uint32_t> ids;
  for (uint32_t l = 0; l < f.NumLinks(); ++l)
    ids.push_back(net.GetChannel(l)->GetId() - first);
  return ids;
}

} // namespace

TEST_CASE("fabric: a rank builds every node and channel, and the ports of its own links", "[fabric][scope]")
{
  FabricSpec spec = TinyMultiplane();
  auto fabric = std::make_shared<const Fabric>(BuildFabric(spec));
  const Fabric& f = *fabric;

  std::vector<uint32_t> wholeIds;
  std::vector<int> wholePlanes;
  {
    FabricNetwork whole(fabric);
    CHECK(whole.LinksBuilt() == f.NumLinks());
    wholeIds = ChannelIds(whole, f);
    for (uint32_t g = 0; g < f.NumGpus(); ++g)
      for (uint16_t p = 0; p < whole.GetHost(g)->NumPorts(); ++p)
        wholePlanes.push_back(whole.GetHost(g)->PlaneOfPort(p));
    Simulator::Destroy();
  }

  const uint32_t ranks = 2;
  const std::vector<uint32_t> part = FabricNetwork::VertexPartitions(f, ranks);
  uint64_t builtOverRanks = 0;
  for (uint32_t rank = 0; rank < ranks; ++rank)
  {
    const std::vector<bool> runs = FabricNetwork::RanksVertices(f, ranks, rank, ranks);
    for (VertexId v = 0; v < f.NumVertices(); ++v)
      REQUIRE(runs[v] == (part[v] == rank));
    const uint32_t first = ChannelList::GetNChannels(); // the build's first channel id
    FabricNetwork net(fabric, runs);

    // Ids as in a whole build; ports exactly where a link touches a vertex this rank runs.
    REQUIRE(ChannelList::GetNChannels() - first == f.NumLinks());
    uint32_t built = 0;
    for (uint32_t l = 0; l < f.NumLinks(); ++l)
    {
      const auto [a, b] = f.Ends(l);
      const bool touches = runs[a] || runs[b];
      Ptr<Channel> channel = ChannelList::GetChannel(first + wholeIds[l]);
      CHECK(channel->GetNDevices() == (touches ? 2u : 0u));
      CHECK(bool(net.GetChannel(l)) == touches);
      if (touches)
        CHECK(PeekPointer(net.GetChannel(l)) == PeekPointer(channel));
      CHECK(net.HasPorts(l) == touches);
      CHECK(bool(net.GetPort(a, f.Link(l).portA)) == touches);
      CHECK(bool(net.GetPort(b, f.Link(l).portB)) == touches);
      built += touches;
    }
    CHECK(net.LinksBuilt() == built);
    CHECK(built < f.NumLinks()); // the split leaves links between the other rank's vertices out
    builtOverRanks += built;

    // Nodes keep every port number, and a NIC learns every port's plane, built or not.
    std::size_t i = 0;
    for (uint32_t g = 0; g < f.NumGpus(); ++g)
    {
      Ptr<RdmaNic> nic = GetOrCreateNic(net, g);
      REQUIRE(net.GetHost(g)->NumPorts() == f.Degree(f.Gpus()[g]));
      for (uint16_t p = 0; p < net.GetHost(g)->NumPorts(); ++p)
        CHECK(net.GetHost(g)->PlaneOfPort(p) == wholePlanes[i++]);
    }
    for (VertexId v = 0; v < f.NumVertices(); ++v)
      if (net.GetSwitch(v))
        CHECK(net.GetSwitch(v)->NumPorts() == f.Degree(v));

    // A link's state changes on every link, ports or not (a failure is a global event that
    // every rank runs).
    for (uint32_t l = 0; l < f.NumLinks(); ++l)
    {
      net.SetLinkUp(l, false);
      CHECK_FALSE(net.IsLinkUp(l));
      if (net.HasPorts(l))
        CHECK_FALSE(net.GetChannel(l)->IsUp());
      net.SetLinkUp(l, true);
      CHECK(net.IsLinkUp(l));
      if (net.HasPorts(l))
        CHECK(net.GetChannel(l)->IsUp());
    }
    Simulator::Destroy();
  }
  CHECK(builtOverRanks >= f.NumLinks()); // every link is built by a rank of one of its ends
}
