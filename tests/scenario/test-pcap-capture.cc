// Packet captures of a scenario (outputs.pcap, sim/run/pcap-capture.h): both ends of each selected
// link write a file named after its node and port, a port named twice once; a run without an
// output directory, or split into partitions, is refused with the file and key in the message.
// (tests/pcap/test_pcap_captures.py checks what the files hold.)
#include "sim/run/pcap-capture.h"

#include "models/engine/fabric-parallel-simulator.h"

#include "ns3/global-value.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <unistd.h>

using namespace mrcsim;

namespace
{

ScenarioSpec
WithPcap()
{
  return ParseScenario(nlohmann::json::parse(R"({"name": "pcap", "topology": {"preset": "multiplane-64"},
    "transport": {"type": "mrc"}, "workloads": [{"type": "all_to_all", "gpus": "all", "bytes": 4096}],
    "outputs": {"pcap": [{"gpu": 0, "plane": 0}, {"plane": 0, "t0": 0, "up_port": 0}, {"gpu": 0, "plane": 0}]}})"),
                       "pcap.json");
}

} // namespace

TEST_CASE("pcap captures: both ends of each selected link, one file per port", "[scenario][pcap]")
{
  const ScenarioSpec spec = WithPcap();
  auto fabric = std::make_shared<const Fabric>(BuildFabric(spec.topology, spec.file));
  const std::string dir = "/tmp/mrcsim-test-pcap-capture-" + std::to_string(getpid());
  {
    ns3::FabricNetwork net(fabric);
    const std::vector<std::string> files = EnablePcapCaptures(spec, *fabric, net, dir);
    CHECK(files == std::vector<std::string>{ dir + "/pcap/gpu0-port0.pcap",
                                             dir + "/pcap/p0.t0.0-port0.pcap",
                                             dir + "/pcap/p0.t0.0-port16.pcap",
                                             dir + "/pcap/p0.t1.0-port0.pcap" });
    for (const std::string& f : files)
    {
      CHECK(std::filesystem::exists(f));
    }
    ns3::Simulator::Destroy();
  }
  std::filesystem::remove_all(dir);

  ScenarioSpec none = spec;
  none.outputs.pcapLinks.clear();
  ns3::FabricNetwork net(fabric);
  CHECK(EnablePcapCaptures(none, *fabric, net, "").empty());
  CHECK_THROWS_WITH(EnablePcapCaptures(spec, *fabric, net, ""),
                    Catch::StartsWith("pcap.json: at /outputs/pcap: packet captures are written to the run's output "
                                      "directory, and this run has none (mrcsim run --out DIR"));
  ns3::Simulator::Destroy();
}

TEST_CASE("pcap captures: refused in a run of several partitions", "[scenario][pcap]")
{
  const ScenarioSpec spec = WithPcap();
  auto fabric = std::make_shared<const Fabric>(BuildFabric(spec.topology, spec.file));
  ns3::Simulator::Destroy();
  ns3::GlobalValue::Bind("SimulatorImplementationType", ns3::StringValue("ns3::FabricParallelSimulatorImpl"));
  {
    ns3::FabricNetwork net(fabric);
    net.Partition(2);
    const std::string dir = "/tmp/mrcsim-test-pcap-partitions-" + std::to_string(getpid());
    CHECK_THROWS_WITH(EnablePcapCaptures(spec, *fabric, net, dir),
                      Catch::StartsWith("pcap.json: at /outputs/pcap: packet captures need a serial run, and this one "
                                        "has 2 partitions: run with --partitions 1 (the default for a scenario with captures)"));
    CHECK_FALSE(std::filesystem::exists(dir));
    ns3::Simulator::Destroy();
  }
  ns3::GlobalValue::Bind("SimulatorImplementationType", ns3::StringValue("ns3::DefaultSimulatorImpl"));
}
