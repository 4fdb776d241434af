#include "fabric-fixtures.h"

#include <catch2/catch.hpp>

using namespace mrcsim;

namespace
{

FabricSpec
Parse(const std::string& text)
{
  nlohmann::json j = nlohmann::json::parse(text);
  JsonReader r(j, "spec.json", "");
  return ParseFabricSpec(r);
}

} // namespace

TEST_CASE("a multiplane spec is read with its defaults", "[spec]")
{
  FabricSpec s = Parse(R"({"kind": "multiplane", "planes": 4, "port_rate_gbps": 200, "gpus": 64,
                          "t0_down_ports": 16, "t0_up_ports": 16, "t1_per_plane": 8})");
  CHECK(s.name == "multiplane");
  CHECK(s.multiplane.planes == 4);
  CHECK(s.multiplane.delays.gpuNs == 25); // 5 m of cable to the leaf
  CHECK(s.multiplane.delays.fabricNs == 490); // 100 m of fibre between switches
  CHECK(BuildFabric(s).NumSwitches() == 4 * (4 + 8));
  // Round trip through JSON.
  nlohmann::json j = FabricSpecToJson(s);
  JsonReader r(j, "again.json", "");
  CHECK(FabricSpecToJson(ParseFabricSpec(r)) == j);
}

TEST_CASE("link delays: per class, or link_delay_ns for every link, never both", "[spec]")
{
  const std::string mp = R"("kind": "multiplane", "planes": 2, "port_rate_gbps": 100, "gpus": 32,
                           "t0_down_ports": 16, "t0_up_ports": 16, "t1_per_plane": 8)";
  FabricSpec s = Parse("{" + mp + R"(, "gpu_link_delay_ns": 10, "fabric_link_delay_ns": 700})");
  Fabric f = BuildFabric(s);
  const VertexId g = f.Gpu(0);
  CHECK(f.LinkAt(g, 0).delayNs == 10);
  const VertexId t0 = f.Peer(g, 0).node;
  CHECK(f.LinkAt(t0, static_cast<uint16_t>(f.Degree(t0) - 1)).delayNs == 700);
  s = Parse("{" + mp + R"(, "link_delay_ns": 300})");
  CHECK((s.multiplane.delays.gpuNs == 300 && s.multiplane.delays.fabricNs == 300));
  CHECK_THROWS_WITH(Parse("{" + mp + R"(, "link_delay_ns": 300, "gpu_link_delay_ns": 10})"),
                    Catch::Contains("at /gpu_link_delay_ns") && Catch::Contains("not both"));
}

TEST_CASE("bad specs name the field and what is allowed", "[spec]")
{
  const std::string mp = R"("kind": "multiplane", "port_rate_gbps": 100, "t0_down_ports": 16,
                           "t0_up_ports": 16, "t1_per_plane": 8)";
  CHECK_THROWS_WITH(Parse("{" + mp + R"(, "gpus": 64, "planes": 0})"),
                    Catch::Contains("spec.json: at /planes") && Catch::Contains("[1, 64]"));
  CHECK_THROWS_WITH(Parse("{" + mp + R"(, "gpus": 64, "plane": 8})"),
                    Catch::Contains("/plane: unknown key"));
  CHECK_THROWS_WITH(Parse("{" + mp + R"(, "gpus": 64, "planez": 8})"),
                    Catch::Contains("/planez: unknown key") && Catch::Contains("\"planes\""));
  CHECK_THROWS_WITH(Parse("{" + mp + R"(, "gpus": 64, "planes": 8, "nic_port_planes": [0, 0, 1, 2, 3, 4, 5, 6]})"),
                    Catch::Contains("/nic_port_planes") && Catch::Contains("exactly once"));
  CHECK_THROWS_WITH(Parse("{" + mp + R"(, "gpus": 64, "planes": 8, "switch_ports": 24})"),
                    Catch::Contains("/switch_ports") && Catch::Contains("32 ports"));
  CHECK_THROWS_WITH(Parse(R"({"kind": "fat_tree", "tiers": 3, "radix": 63, "port_rate_gbps": 800, "gpus": 100})"),
                    Catch::Contains("/radix") && Catch::Contains("not divisible by 2"));
  CHECK_THROWS_WITH(Parse(R"({"kind": "fat_tree", "tiers": 5, "radix": 64, "port_rate_gbps": 800, "gpus": 100})"),
                    Catch::Contains("/tiers") && Catch::Contains("[2, 4]"));
  CHECK_THROWS_WITH(Parse(R"({"kind": "torus"})"),
                    Catch::Contains("/kind") && Catch::Contains("\"multiplane\", \"fat_tree\""));
  CHECK_THROWS_WITH(Parse("{" + mp + R"(, "planes": 8, "gpus": "many"})"), Catch::Contains("expected a whole number"));
  CHECK_THROWS_WITH(PresetSpec("nope"), Catch::Contains("unknown preset \"nope\"") &&
                                          Catch::Contains("multiplane-131k"));
}

TEST_CASE("t0 up-ports must spread evenly over the T1s", "[spec]")
{
  CHECK_THROWS_WITH(
    Parse(R"({"kind": "multiplane", "planes": 8, "port_rate_gbps": 100, "gpus": 64, "t0_down_ports": 16,
              "t0_up_ports": 16, "t1_per_plane": 3})"),
    Catch::Contains("/t0_up_ports") && Catch::Contains("multiple of t1_per_plane"));
}

TEST_CASE("spec counts are bounded by what the fabric can name and hold", "[spec]")
{
  const std::string mp = R"("kind": "multiplane", "port_rate_gbps": 100, "t0_up_ports": 16, "t1_per_plane": 8)";
  // 2^24 GPUs, one per T0: 16,777,216 T0s per plane, beyond the 4,096 a uSID index names.
  CHECK_THROWS_WITH(Parse("{" + mp + R"(, "planes": 8, "gpus": 16777216, "t0_down_ports": 1})"),
                    Catch::Contains("spec.json: at /t0_down_ports: ") && Catch::Contains("16777216 T0s") &&
                      Catch::Contains("at most 4096"));
  // 64 planes x 2^24 GPUs: a billion GPU links.
  CHECK_THROWS_WITH(Parse("{" + mp + R"(, "planes": 64, "gpus": 16777216, "t0_down_ports": 4096})"),
                    Catch::Contains("spec.json: at /gpus: ") && Catch::Contains("1073741824 GPU links") &&
                      Catch::Contains("at most 33554432"));
  // 4 tiers of radix 64 hold 2^21 GPUs, but 200,000 GPUs need 6,250 leaves in one tier.
  CHECK_THROWS_WITH(Parse(R"({"kind": "fat_tree", "tiers": 4, "radix": 64, "port_rate_gbps": 800, "gpus": 200000})"),
                    Catch::Contains("spec.json: at /gpus: ") && Catch::Contains("6250 tier-0 switches") &&
                      Catch::Contains("at most 4096"));
}

TEST_CASE("a spec built in code is checked as strictly as a parsed one", "[spec]")
{
  // Zero radix, ports or servers used to divide by zero.
  FabricSpec mp = test::TinyMultiplane();
  mp.multiplane.t0DownPorts = 0;
  CHECK_THROWS_WITH(CheckFabricSpec(mp, "code"), Catch::Contains("code/t0_down_ports: "));
  mp = test::TinyMultiplane();
  mp.multiplane.t1PerPlane = 0;
  CHECK_THROWS_WITH(CheckFabricSpec(mp, "code"), Catch::Contains("code/t1_per_plane: "));
  mp = test::TinyMultiplane();
  mp.multiplane.planes = 65;
  CHECK_THROWS_WITH(CheckFabricSpec(mp, "code"), Catch::Contains("code/planes: ") && Catch::Contains("64"));
  FabricSpec ft = test::SmallFatTree(2, 0, 16);
  CHECK_THROWS_WITH(CheckFabricSpec(ft, "code"), Catch::Contains("code/radix: "));
  ft = test::SmallFatTree(2, 8, 16, 4);
  ft.fatTree.gpusPerServer = 0;
  CHECK_THROWS_WITH(CheckFabricSpec(ft, "code"), Catch::Contains("code/gpus_per_server: "));
  ft = test::SmallFatTree(2, 8, 0);
  CHECK_THROWS_WITH(CheckFabricSpec(ft, "code"), Catch::Contains("code/gpus: "));
}

TEST_CASE("the fat-tree shape the checks bound is the one the generator builds", "[spec]")
{
  for (const FabricSpec& spec : { test::SmallFatTree(2, 8, 16),
                                  test::SmallFatTree(3, 4, 16),
                                  test::SmallFatTree(3, 8, 50),
                                  test::SmallFatTree(4, 4, 32),
                                  test::SmallFatTree(4, 6, 40),
                                  test::SmallFatTree(2, 8, 16, 4),
                                  test::SmallFatTree(3, 8, 56, 8) })
  {
    INFO(spec.fatTree.tiers << " tiers, radix " << spec.fatTree.radix << ", " << spec.fatTree.gpus << " GPUs");
    Fabric f = BuildFabric(spec);
    FatTreeShape shape = FatTreeShapeOf(spec.fatTree);
    REQUIRE(shape.switchesPerTier.size() == static_cast<size_t>(f.NumTiers()));
    for (int t = 0; t < f.NumTiers(); ++t)
      CHECK(shape.switchesPerTier[t] == f.Switches(0, t).size());
    CHECK(shape.links == f.NumLinks());
  }
}
