#include "fabric-fixtures.h"
#include "topologies/fabric-routing.h"
#include "topologies/routing-check.h"

#include <catch2/catch.hpp>

using namespace mrcsim;

namespace
{

/// The link joining port `port` of T0 `t0` in `plane` to a T1 (ports 0-3 face GPUs, 4-7 T1s).
uint32_t
UpLink(const Fabric& f, int plane, uint32_t t0, uint16_t port)
{
  return f.LinkAt(f.Switches(plane, 0)[t0], port).id;
}

} // namespace

TEST_CASE("every uSID path is a valid walk to the right GPU, in every plane", "[routing]")
{
  for (const FabricSpec& spec : {test::TinyMultiplane(), PresetSpec("multiplane-64"), test::SmallFatTree(3, 4, 16),
                                 test::SmallFatTree(4, 4, 32), test::SmallFatTree(2, 8, 16, 4)})
  {
    Fabric f = BuildFabric(spec);
    FabricRouting r(f);
    RoutingCheckResult check = CheckRouting(r, 0, 1, 64, 8);
    INFO(spec.kind << " " << f.NumGpus() << " GPUs: " << check.firstError);
    CHECK(check.Ok());
    CHECK(check.pathsWalked == uint64_t(f.NumGpus()) * (f.NumGpus() - 1) * f.NumPlanes() * 8);
    CHECK(check.reachability.unreachableInAllPlanes == 0);
    for (uint64_t u : check.reachability.unreachablePerPlane)
      CHECK(u == 0);
  }
}

TEST_CASE("uSID path follows the chosen plane and T1", "[routing]")
{
  Fabric f = BuildFabric(test::TinyMultiplane());
  FabricRouting r(f);
  for (uint64_t choice = 0; choice < 4; ++choice)
  {
    std::vector<PathHop> path = r.Path(0, 5, 1, choice);
    REQUIRE(path.size() == 3);
    CHECK(path[0].node == f.Switches(1, 0)[0]);
    CHECK(path[0].egressPort == 4 + choice);           // up-port `choice` of the source T0
    CHECK(path[1].node == f.Switches(1, 1)[choice % 2]); // ... which leads to T1 choice mod 2
    CHECK(path[2].node == f.Switches(1, 0)[1]);
    CHECK(path[2].egressPort == 1);                     // GPU 5 is the second GPU of T0 1
    std::vector<uint16_t> usids = r.Usids(path, 5, 1);
    REQUIRE(usids.size() == 4);
    CHECK(usids[0] == FabricRouting::PortUsid(path[0].egressPort));
    CHECK(usids[2] == 2);
    CHECK(usids[3] == FabricRouting::PortUsid(1)); // NIC port 1 = plane 1
    CHECK(r.CheckPath(path, 0, 5, 1).empty());
  }
  CHECK(FabricRouting::Locator(3) == 0xfc000003u);
  // Same T0: one switch.
  CHECK(r.Path(0, 3, 0, 0).size() == 1);
  CHECK(r.CountPaths(0, 3, 0) == 1);
}

TEST_CASE("after link failures, groups and paths avoid the removed links", "[routing]")
{
  Fabric f = BuildFabric(test::TinyMultiplane());
  FabricRouting r(f);
  const uint32_t dead = UpLink(f, 0, 0, 4); // T0 0 -> T1 0, one of two parallel links
  r.SetLinkUp(dead, false);
  r.Update();
  CHECK(r.CheckGroupsAvoidDownLinks().empty());
  CHECK(r.CountPaths(0, 4, 0) == 6); // via T1 0: 1 up x 2 down; via T1 1: 2 x 2
  CHECK(r.CountPaths(4, 0, 0) == 6); // via T1 0: 2 up x 1 down; via T1 1: 2 x 2
  CHECK(r.CountPaths(0, 4, 1) == 8); // the other plane is untouched
  PortGroup g = r.EcmpGroup(f.Switches(0, 0)[0], 4);
  CHECK(g.size == 3);
  for (uint32_t i = 0; i < g.size; ++i)
    CHECK(f.LinkAt(f.Switches(0, 0)[0], g[i]).id != dead);
  RoutingCheckResult check = CheckRouting(r, 0, 1, 64, 16);
  CHECK(check.Ok());
  CHECK(check.reachability.unreachablePerPlane == std::vector<uint64_t>{0, 0});

  SECTION("a T0 cut off from every T1 is unreachable in that plane only")
  {
    for (uint16_t port = 5; port < 8; ++port)
      r.SetLinkUp(UpLink(f, 0, 0, port), false);
    r.Update();
    ReachabilityReport rep = r.Reachability();
    CHECK(rep.unreachablePerPlane == std::vector<uint64_t>{32, 0}); // 4 x 4 GPUs, both directions
    CHECK(rep.unreachableInAllPlanes == 0);
    CHECK_FALSE(r.Reachable(0, 4, 0));
    CHECK(r.Reachable(0, 1, 0)); // same T0 still works
    CHECK(r.Path(0, 4, 0, 0).empty());
    CHECK(r.Path(0, 4, 1, 0).size() == 3);
    CHECK(CheckRouting(r, 0, 1, 64, 4).Ok());

    SECTION("and comes back when the links are repaired")
    {
      for (uint16_t port = 4; port < 8; ++port)
        r.SetLinkUp(UpLink(f, 0, 0, port), true);
      r.Update();
      CHECK(r.CountPaths(0, 4, 0) == 8);
      CHECK(r.Reachability().unreachablePerPlane == std::vector<uint64_t>{0, 0});
    }
  }
  SECTION("a GPU's down NIC link detaches it from that plane")
  {
    r.SetLinkUp(f.LinkAt(f.Gpu(0), 1).id, false);
    r.Update();
    ReachabilityReport rep = r.Reachability();
    CHECK(rep.detachedPerPlane == std::vector<uint64_t>{0, 1});
    CHECK(rep.unreachablePerPlane == std::vector<uint64_t>{0, 14});
    CHECK(r.EcmpGroup(f.Switches(1, 1)[0], 0).empty());
    CHECK(r.Path(3, 0, 1, 0).empty());
    CHECK(r.Path(3, 0, 0, 0).size() == 1);
  }
}

TEST_CASE("twin-class distances equal a plain BFS after irregular failures", "[routing]")
{
  // Knock out a scattered set of links in a larger fabric; every walk must still be shortest
  // (CheckPath compares with the distance) and every reachable pair must have a path.
  Fabric f = BuildFabric(PresetSpec("multiplane-64"));
  FabricRouting r(f);
  uint32_t n = 0;
  for (uint32_t id = 0; id < f.NumLinks(); id += 37)
  {
    r.SetLinkUp(id, false);
    ++n;
  }
  r.Update();
  REQUIRE(n > 20);
  RoutingCheckResult check = CheckRouting(r, 0, 1, 64, 4);
  INFO(check.firstError);
  CHECK(check.Ok());
  CHECK(check.pathsWalked > 0);
}

TEST_CASE("routing is deterministic", "[routing]")
{
  Fabric a = BuildFabric(PresetSpec("multiplane-512"));
  Fabric b = BuildFabric(PresetSpec("multiplane-512"));
  FabricRouting ra(a);
  FabricRouting rb(b);
  for (uint32_t s = 0; s < 512; s += 31)
  {
    for (uint32_t d = 0; d < 512; d += 17)
    {
      if (s == d)
        continue;
      auto pa = ra.Path(s, d, static_cast<int>(s % 8), s * 1000003ull + d);
      auto pb = rb.Path(s, d, static_cast<int>(s % 8), s * 1000003ull + d);
      REQUIRE(pa.size() == pb.size());
      for (size_t i = 0; i < pa.size(); ++i)
      {
        CHECK(pa[i].node == pb[i].node);
        CHECK(pa[i].egressPort == pb[i].egressPort);
      }
    }
  }
}

TEST_CASE("the routing check fails when GPUs cannot reach each other with every link up", "[routing]")
{
  // One plane, two leaves, one spine; leaf 1 has no up-link: GPUs 0 and 1 (leaf 0) cannot reach
  // GPUs 2 and 3 (leaf 1). The structure is valid; the fabric is not usable.
  Fabric f;
  VertexId leaf0 = f.AddSwitch(0, 0);
  VertexId leaf1 = f.AddSwitch(0, 0);
  VertexId spine = f.AddSwitch(0, 1);
  for (VertexId leaf : { leaf0, leaf0, leaf1, leaf1 })
    f.AddLink(f.AddGpu(), leaf, 100000000000, 1000);
  const uint32_t up = f.AddLink(leaf0, spine, 100000000000, 1000);
  {
    FabricRouting r(f);
    RoutingCheckResult check = CheckRouting(r, 0, 1, 64, 4);
    CHECK_THAT(check.firstError, Catch::Contains("plane 0: gpu0 cannot reach gpu2") && Catch::Contains("8 GPU pairs"));
  }
  // Wired up, it passes; a link taken down on purpose may leave pairs unreachable.
  f.AddLink(leaf1, spine, 100000000000, 1000);
  FabricRouting r(f);
  CHECK(CheckRouting(r, 0, 1, 64, 4).Ok());
  r.SetLinkUp(up, false);
  r.Update();
  RoutingCheckResult down = CheckRouting(r, 0, 1, 64, 4);
  INFO(down.firstError);
  CHECK(down.Ok());
  CHECK(down.reachability.unreachablePerPlane[0] == 8);
}
