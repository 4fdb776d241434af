// --set overrides into objects the scenario does not write: an allowed key is created (as the
// file could have written it), an unknown one fails naming it, and a missing list is not made up.
#include "sim/scenario/scenario-spec.h"

#include <catch2/catch.hpp>

using namespace mrcsim;

namespace
{

const std::string kQuickstart = std::string(MRCSIM_SOURCE_DIR) + "/scenarios/quickstart.json";

} // namespace

TEST_CASE("override: a path into a missing object creates it where the reader allows the key", "[override]")
{
  // The example of `mrcsim run --help`, on a transport without "attributes".
  const ScenarioSpec spec = ReadScenarioFile(kQuickstart, { "transport.0.attributes.ns3::MrcQueuePair::EvCount=64" });
  REQUIRE(spec.transports.size() == 2);
  CHECK(spec.transports[0].attributes.at("ns3::MrcQueuePair::EvCount") == "64");
  CHECK(spec.transports[1].attributes.empty());

  // Two overrides into the same new object add to it; the second does not replace the first.
  const ScenarioSpec both = ReadScenarioFile(
    kQuickstart, { "transport.1.attributes.ns3::RdmaNic::Mtu=2048", "transport.1.attributes.ns3::RdmaNic::Mtu=1024" });
  CHECK(both.transports[1].attributes.at("ns3::RdmaNic::Mtu") == "1024");
  const ScenarioSpec stop = ReadScenarioFile(kQuickstart, { "stop.sim_time_us=100", "stop.wall_time_s=5" });
  CHECK(stop.stop.simTimeUs == 100);
  CHECK(stop.stop.wallTimeS == 5);
}

TEST_CASE("override: a created object is checked like the file's, unknown keys named", "[override]")
{
  CHECK_THROWS_WITH(ReadScenarioFile(kQuickstart, { "transport.0.colour.red=1" }),
                    Catch::Contains("at /transport/0/colour: unknown key"));
  CHECK_THROWS_WITH(ReadScenarioFile(kQuickstart, { "stop.sim_time.x=1" }),
                    Catch::Contains("at /stop/sim_time: unknown key; allowed keys here: \"sim_time_us\""));
  // A missing key followed by an index would need a list of the right length: not made up.
  CHECK_THROWS_WITH(ReadScenarioFile(kQuickstart, { "outputs.pcap.0.gpu=1" }),
                    Catch::Contains("override \"outputs.pcap.0.gpu=1\": /outputs/pcap does not exist; set the whole list"));
  CHECK_THROWS_WITH(ReadScenarioFile(kQuickstart, { "workloads.0.tags.0=1" }),
                    Catch::Contains("/workloads/0/tags does not exist; set the whole list instead, e.g. "
                                    "workloads.0.tags=[...]"));
  // Through an existing value that is not an object, as before.
  CHECK_THROWS_WITH(ReadScenarioFile(kQuickstart, { "seed.x=1" }), Catch::Contains("/seed is a number"));
}
