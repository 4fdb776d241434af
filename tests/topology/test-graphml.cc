#include "fabric-fixtures.h"
#include "topologies/fabric-figures.h"
#include "topologies/graphml-io.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace mrcsim;

namespace
{

nlohmann::json
FiguresOf(const Fabric& f, const std::string& kind)
{
  FabricRouting r(f);
  nlohmann::json j = FiguresToJson(ComputeFigures(f, r, kind, PowerModel{}));
  j.erase("name");
  return j;
}

} // namespace

TEST_CASE("GraphML export and re-import give the same fabric and figures", "[graphml]")
{
  for (const FabricSpec& spec : {test::TinyMultiplane(), PresetSpec("multiplane-64"), test::SmallFatTree(3, 4, 16),
                                 test::SmallFatTree(2, 8, 16, 4)})
  {
    Fabric original = BuildFabric(spec);
    std::stringstream buffer;
    WriteFabricGraphml(original, buffer);
    Fabric copy = ReadFabricGraphml(buffer, "roundtrip.graphml");
    CHECK(FiguresOf(copy, spec.kind) == FiguresOf(original, spec.kind));
    REQUIRE(copy.NumLinks() == original.NumLinks());
    for (uint32_t id = 0; id < original.NumLinks(); ++id)
    {
      CHECK(copy.Ends(id) == original.Ends(id));
      CHECK(copy.Link(id).portA == original.Link(id).portA);
      CHECK(copy.Link(id).portB == original.Link(id).portB);
      CHECK(copy.Link(id).rateBps == original.Link(id).rateBps);
      CHECK(copy.Link(id).delayNs == original.Link(id).delayNs);
    }
  }
}

TEST_CASE("bad GraphML is rejected with the file and element named", "[graphml]")
{
  const std::string head = R"(<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">
<key id="role" for="node" attr.name="role" attr.type="string"/>
<key id="tier" for="node" attr.name="tier" attr.type="int"/>
<key id="plane" for="node" attr.name="plane" attr.type="int"/>
<key id="rate" for="edge" attr.name="rate_bps" attr.type="long"/>
<key id="delay" for="edge" attr.name="delay_ns" attr.type="long"/>
<graph id="G" edgedefault="undirected">)";
  SECTION("unknown role")
  {
    std::stringstream in(head + R"(<node id="n0"><data key="role">router</data></node></graph></graphml>)");
    CHECK_THROWS_WITH(ReadFabricGraphml(in, "mine.graphml"),
                      Catch::Contains("mine.graphml: node \"n0\": attribute role"));
  }
  SECTION("two planes joined by a switch link")
  {
    std::stringstream in(head + R"(
<node id="a"><data key="role">switch</data><data key="tier">0</data><data key="plane">0</data></node>
<node id="b"><data key="role">switch</data><data key="tier">0</data><data key="plane">1</data></node>
<edge source="a" target="b"><data key="rate">100000000000</data><data key="delay">1000</data></edge>
</graph></graphml>)");
    CHECK_THROWS_WITH(ReadFabricGraphml(in, "mine.graphml"), Catch::Contains("planes never forward"));
  }
  SECTION("not XML")
  {
    std::stringstream in("this is not graphml");
    CHECK_THROWS_WITH(ReadFabricGraphml(in, "mine.graphml"), Catch::Contains("mine.graphml: not readable"));
  }
}
