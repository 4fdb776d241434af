#include "fabric-fixtures.h"
#include "topologies/fabric-figures.h"

#include <catch2/catch.hpp>

using namespace mrcsim;

namespace
{

FabricFigures
Figures(const FabricSpec& spec)
{
  Fabric f = BuildFabric(spec);
  FabricRouting r(f, false);
  return ComputeFigures(f, r, spec.kind, spec.power);
}

} // namespace

TEST_CASE("tiny multiplane fabric matches hand-computed figures", "[topology]")
{
  FabricFigures f = Figures(test::TinyMultiplane());
  CHECK(f.gpus == 8);
  CHECK(f.planes == 2);
  CHECK(f.tiers == 2);
  CHECK(f.switches == 8);                                  // 2 planes x (2 T0 + 2 T1)
  CHECK(f.switchesPerPlaneTier[1] == std::vector<uint64_t>{2, 2});
  CHECK(f.links == 32);                                    // 8 GPUs x 2 ports + 2 planes x 2 T0 x 4 up
  CHECK(f.linksPerLevel == std::vector<uint64_t>{16, 16});
  CHECK(f.transceivers == 64);
  CHECK(f.transceivers800g == Approx(8.0));                // 64 ends x 100G / 800G
  CHECK(f.maxSwitchHops == 3);
  CHECK(f.pathPairDst == 4);                               // first GPU under the other T0
  CHECK(f.pathsPerPlane == std::vector<uint64_t>{8, 8});   // 4 up-ports x 2 parallel links down
  CHECK(f.pathsTotal == 16);
  CHECK(f.gpuBandwidthGbps == Approx(200));
  CHECK(f.bisectionTbps == Approx(0.8));                   // half of 16 x 100G
  // 8 switches x 750 W + 64 link ends x 2 W per 100G
  CHECK(f.powerTotalKw == Approx(6.0 + 0.128));
}

TEST_CASE("the 131,072-GPU preset has the published shape", "[topology][large]")
{
  FabricFigures f = Figures(PresetSpec("multiplane-131k"));
  CHECK(f.gpus == 131072);
  CHECK(f.planes == 8);
  CHECK(f.tiers == 2);
  for (int p = 0; p < 8; ++p)
  {
    CHECK(f.switchesPerPlaneTier[p] == std::vector<uint64_t>{512, 256});
  }
  CHECK(f.switches == 6144);
  CHECK(f.links == 2097152);                     // per plane 131,072 GPU links + 512 x 256 up
  CHECK(f.linksPerLevel == std::vector<uint64_t>{1048576, 1048576});
  CHECK(f.transceivers800g == Approx(524288));   // 4,194,304 ends x 100G / 800G
  CHECK(f.maxSwitchHops == 3);
  CHECK(f.pathsPerPlane.size() == 8);
  CHECK(f.pathsPerPlane[0] == 256);              // one link to each of 256 T1s
  CHECK(f.pathsTotal == 2048);
  CHECK(f.gpuBandwidthGbps == Approx(800));
  CHECK(f.bisectionTbps == Approx(131072 * 0.8 / 2));
}

TEST_CASE("fat trees of 2, 3 and 4 tiers have k-ary n-tree counts", "[topology]")
{
  SECTION("2 tiers, radix 4, 8 GPUs")
  {
    FabricFigures f = Figures(test::SmallFatTree(2, 4, 8));
    CHECK(f.switchesPerTier == std::vector<uint64_t>{4, 2});
    CHECK(f.links == 16);
    CHECK(f.maxSwitchHops == 3);
    CHECK(f.pathsTotal == 2);
  }
  SECTION("3 tiers, radix 4, 16 GPUs: the classic 20-switch k=4 fat tree")
  {
    FabricFigures f = Figures(test::SmallFatTree(3, 4, 16));
    CHECK(f.switchesPerTier == std::vector<uint64_t>{8, 8, 4});
    CHECK(f.links == 48);
    CHECK(f.maxSwitchHops == 5);
    CHECK(f.pathsTotal == 4); // (k/2)^2 between pods
    CHECK(f.bisectionTbps == Approx(16 * 0.8 / 2));
  }
  SECTION("4 tiers, radix 4, 32 GPUs")
  {
    FabricFigures f = Figures(test::SmallFatTree(4, 4, 32));
    CHECK(f.switchesPerTier == std::vector<uint64_t>{16, 16, 16, 8});
    CHECK(f.links == 128);
    CHECK(f.maxSwitchHops == 7);
    CHECK(f.pathsTotal == 8); // (k/2)^3
  }
  SECTION("3 tiers, radix 64, 131,072 GPUs does not fit")
  {
    CHECK_THROWS_WITH(BuildFabric(test::SmallFatTree(3, 64, 131072)),
                      Catch::Contains("/gpus") && Catch::Contains("at most 65536"));
  }
}

TEST_CASE("rail-optimised fat tree puts GPU r of each server on rail r", "[topology]")
{
  // radix 8 (4 GPUs per leaf), servers of 4 GPUs, 4 servers
  Fabric f = BuildFabric(test::SmallFatTree(2, 8, 16, 4));
  FabricRouting r(f);
  CHECK(f.Switches(0, 0).size() == 4);
  for (uint32_t server = 0; server < 4; ++server)
  {
    for (uint32_t rail = 0; rail < 4; ++rail)
    {
      CHECK(r.Attach(server * 4 + rail, 0).leafIndex == rail);
    }
  }
  CHECK(r.Path(0, 4, 0, 0).size() == 1);  // GPU 0 of servers 0 and 1: same rail leaf
  CHECK(r.Path(0, 1, 0, 0).size() == 3);  // different rails: up and down
}

TEST_CASE("NIC port to plane mapping is honoured", "[topology]")
{
  FabricSpec s = test::TinyMultiplane();
  s.multiplane.nicPortPlanes = {1, 0};
  Fabric f = BuildFabric(s);
  FabricRouting r(f);
  CHECK(r.Attach(0, 1).gpuPort == 0);
  CHECK(r.Attach(0, 0).gpuPort == 1);
  CHECK(f.Node(f.Peer(f.Gpu(3), 0).node).plane == 1);
}

TEST_CASE("a copied fabric answers link lookups from its own graph", "[topology]")
{
  Fabric original = BuildFabric(test::TinyMultiplane());
  Fabric copy = original;
  original = BuildFabric(test::SmallFatTree(2, 4, 8)); // the copy must not see this
  REQUIRE(copy.NumLinks() == 32);
  for (uint32_t id = 0; id < copy.NumLinks(); ++id)
  {
    auto [a, b] = copy.Ends(id);
    CHECK(copy.Link(id).id == id);
    CHECK(copy.Peer(a, copy.Link(id).portA).node == b);
    CHECK(copy.Link(id).rateBps == 100000000000ull);
  }
  CHECK_NOTHROW(copy.Validate());
}
