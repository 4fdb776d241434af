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
  CHECK(s.multiplane.linkDelayNs == 1000);
  CHECK(BuildFabric(s).NumSwitches() == 4 * (4 + 8));
  // Round trip through JSON.
  nlohmann::json j = FabricSpecToJson(s);
  JsonReader r(j, "again.json", "");
  CHECK(FabricSpecToJson(ParseFabricSpec(r)) == j);
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
