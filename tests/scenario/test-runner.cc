// Scenario runner: workloads on an idle fabric against their analytical times, determinism,
// failures at their times, --set overrides reaching the models.
#include "sim/run/transport-run.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mrcsim;

namespace
{

/// A scenario on multiplane-64 with the given transports and workloads (JSON text).
ScenarioSpec
Scenario(const std::string& transports,
         const std::string& workloads,
         const std::string& failures = "[]",
         const std::vector<std::string>& overrides = {})
{
  nlohmann::json doc = nlohmann::json::parse(R"({"name": "t", "seed": 5, "topology": {"preset": "multiplane-64"},
    "transport": )" + transports + R"(, "workloads": )" +
                                             workloads + R"(, "failures": )" + failures + "}");
  for (const auto& o : overrides)
    ApplyOverride(doc, o);
  return ParseScenario(doc, "<test>");
}

nlohmann::json
Run(const ScenarioSpec& spec, size_t transport = 0, const std::string& outDir = "")
{
  auto fabric = std::make_shared<const Fabric>(BuildFabric(spec.topology, "<test>"));
  RunOptions options;
  options.progress = false;
  options.outDir = outDir;
  return RunTransport(spec, spec.transports[transport], fabric, options).summary;
}

} // namespace

TEST_CASE("runner: on an idle fabric each workload completes in its analytical time", "[runner]")
{
  // Each workload alone; GPUs spread over the T0s. The ideal is a lower bound (the fewest header
  // bytes of either transport, each pair's own path, NIC pipelines included): no run may beat it.
  // RoCEv2 (8 QPs, one per plane) stays within 3% of it: ECMP may hash two of a NIC's flows onto
  // one up-link (the all-at-once all-to-all, 2.6% above). MRC within 5%: a RETH on every packet
  // (0.4%), and its SACKs share each NIC's egress with the data it sends (the pipelined ring,
  // where every NIC sends and acknowledges at full rate, 4.1% above).
  const std::vector<std::string> workloads{
    R"({"type": "ring_allreduce", "gpus": {"first": 0, "count": 4, "stride": 16}, "bytes": 16777216})",
    R"({"type": "hd_allreduce", "gpus": {"first": 0, "count": 4, "stride": 16}, "bytes": 16777216})",
    R"({"type": "all_to_all", "gpus": {"first": 2, "count": 4, "stride": 16}, "bytes": 4194304, "mode": "pairwise"})",
    R"({"type": "all_to_all", "gpus": {"first": 2, "count": 4, "stride": 16}, "bytes": 4194304})",
    R"({"type": "permutation", "gpus": {"first": 3, "count": 2, "stride": 16}, "bytes": 8388608})",
  };
  for (const auto& w : workloads)
  {
    for (const auto& [transport, tolerance] : std::vector<std::pair<std::string, double>>{
           { R"([{"type": "rocev2", "qps_per_connection": 8}])", 0.03 }, { R"([{"type": "mrc"}])", 0.05 } })
    {
      DYNAMIC_SECTION(w << " on " << transport)
      {
        nlohmann::json r = Run(Scenario(transport, "[" + w + "]"));
        REQUIRE_FALSE(r["partial"].get<bool>());
        const auto& c = r["collectives"][0];
        const double t = c["time_us"]["mean"].get<double>();
        const double ideal = c["ideal_us"].get<double>();
        INFO("time " << t << " us, ideal " << ideal << " us");
        CHECK(t <= ideal * (1 + tolerance));
        // The ideal is a lower bound: no run beats it.
        CHECK(t >= ideal);
        CHECK(r["counters"]["retransmissions"].get<uint64_t>() == 0);
      }
    }
  }
}

TEST_CASE("runner: same scenario and seed give the same summary", "[runner]")
{
  const std::string w = R"([{"type": "all_to_all", "gpus": {"first": 0, "count": 16, "stride": 4}, "bytes": 65536},
                            {"type": "random", "gpus": "all", "bytes": 32768, "load": 0.2, "duration_us": 40}])";
  const std::string f = R"([{"type": "link_down", "at_us": 10, "link": {"plane": 1, "t0": 0, "up_port": 0}}])";
  for (size_t t = 0; t < 2; ++t)
  {
    ScenarioSpec spec = Scenario(R"([{"type": "mrc"}, {"type": "rocev2", "qps_per_connection": 2}])", w, f);
    nlohmann::json a = Run(spec, t);
    nlohmann::json b = Run(spec, t);
    CHECK(a.dump() == b.dump());
    CHECK(a["messages"]["completed"].get<uint64_t>() > 240);
    // A different seed changes the random traffic.
    spec.seed = 6;
    CHECK(Run(spec, t)["messages"].dump() != a["messages"].dump());
  }
}

TEST_CASE("runner: a plane failure stops that plane's traffic at its time", "[runner]")
{
  const std::string dir = (std::filesystem::temp_directory_path() / "mrcsim-test-runner-plane").string();
  std::filesystem::create_directories(dir);
  ScenarioSpec spec = Scenario(R"([{"type": "mrc"}])",
                               R"([{"type": "all_to_all", "gpus": "all", "bytes": 131072}])",
                               R"([{"type": "plane_down", "at_us": 40, "plane": 3}])");
  spec.outputs.sampleIntervalUs = 5;
  nlohmann::json r = Run(spec, 0, dir);
  REQUIRE_FALSE(r["partial"].get<bool>());
  CHECK(r["failures"][0]["links"].get<uint64_t>() == 64 + 4 * 16); // GPU links and T0-T1 links of plane 3
  std::ifstream csv(dir + "/timeseries.csv");
  std::string line;
  std::getline(csv, line);
  double before = 0;
  double after = 0;
  double others = 0;
  while (std::getline(csv, line))
  {
    std::istringstream row(line);
    std::string cell;
    std::vector<double> v;
    while (std::getline(row, cell, ','))
      v.push_back(std::stod(cell));
    if (v[1] == 3 && v[0] <= 40)
      before += v[2];
    else if (v[1] == 3 && v[0] > 40)
      after += v[2];
    else if (v[0] > 40)
      others += v[2];
  }
  CHECK(before > 0);
  CHECK(after == 0);
  CHECK(others > 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("runner: --set overrides reach the model attributes they name", "[runner]")
{
  const std::string w =
    R"([{"type": "permutation", "gpus": {"first": 0, "count": 4, "stride": 16}, "bytes": 1048576}])";
  nlohmann::json base = Run(Scenario(R"([{"type": "mrc"}])", w));
  nlohmann::json half =
    Run(Scenario(R"([{"type": "mrc"}])", w, "[]", { R"(transport.0.attributes={"ns3::RdmaNic::Mtu": 2048})" }));
  CHECK(base["counters"]["data_packets_sent"].get<uint64_t>() == 4 * 256);
  CHECK(half["counters"]["data_packets_sent"].get<uint64_t>() == 4 * 512);
  nlohmann::json slow = Run(Scenario(
    R"([{"type": "mrc"}])", w, "[]", { R"(transport.0.attributes={"ns3::FabricSwitch::ForwardingLatency": "5us"})" }));
  CHECK(slow["ideal_model"]["base_latency_us"].get<double>() >
        base["ideal_model"]["base_latency_us"].get<double>() + 14);
  CHECK(slow["completion_us"].get<double>() > base["completion_us"].get<double>() + 10); // 3 switches x 4.7 us
  // Every data packet's one-way latency is measured; here each crosses three slower switches.
  CHECK(base["packet_latency_us"]["count"].get<uint64_t>() == 4 * 256);
  CHECK(slow["packet_latency_us"]["p50"].get<double>() > base["packet_latency_us"]["p50"].get<double>() + 13);
  CHECK(slow["packet_latency_us"]["max"].get<double>() < base["packet_latency_us"]["max"].get<double>() + 16);
  // The histogram holds every packet, in increasing buckets that end at the max.
  const nlohmann::json& buckets = base["packet_latency_us"]["histogram"];
  REQUIRE(!buckets.empty());
  uint64_t counted = 0;
  double bound = 0;
  for (const auto& b : buckets)
  {
    CHECK(b[0].get<double>() > bound);
    bound = b[0].get<double>();
    counted += b[1].get<uint64_t>();
  }
  CHECK(counted == 4 * 256);
  CHECK(bound == base["packet_latency_us"]["max"].get<double>());
  CHECK(buckets[0][0].get<double>() >= base["packet_latency_us"]["p50"].get<double>() * 0.5);
  // A name that is not an attribute stops the run with an error naming it.
  CHECK_THROWS_WITH(
    Run(
      Scenario(R"([{"type": "mrc"}])", w, "[]", { R"(transport.0.attributes={"ns3::MrcQueuePair::NoSuchThing": 1})" })),
    Catch::Contains("ns3::MrcQueuePair::NoSuchThing"));
}

TEST_CASE("runner: link_loss loses packets on its link class for both transports alike", "[runner]")
{
  // 0.1% on every T0-T1 link of a healthy all-to-all (64 KiB): both transports lose packets there
  // and only there, and both still deliver every message.
  const std::string w = R"([{"type": "all_to_all", "gpus": "all", "bytes": 65536}])";
  for (const std::string transport : { R"([{"type": "mrc"}])", R"([{"type": "rocev2", "qps_per_connection": 8}])" })
  {
    DYNAMIC_SECTION(transport)
    {
      ScenarioSpec spec = Scenario(transport, w, "[]", { R"(link_loss=[{"link_class": "t0-t1", "rate": 0.001}])" });
      nlohmann::json r = Run(spec);
      REQUIRE_FALSE(r["partial"].get<bool>());
      CHECK(r["messages"]["completed"] == r["messages"]["count"]);
      CHECK(r["counters"]["drops"]["random_loss"].get<uint64_t>() > 0);
      CHECK(r["counters"]["retransmissions"].get<uint64_t>() > 0);
      CHECK(r["link_loss"][0]["links"].get<uint64_t>() == 512);
      const nlohmann::json clean = Run(Scenario(transport, w));
      CHECK(clean["counters"]["drops"]["random_loss"].get<uint64_t>() == 0);
    }
  }
}

TEST_CASE("runner: outputs.ports samples queue depth and utilisation at both ends of a link", "[runner]")
{
  // 15-to-1 incast into GPU 0 with RoCEv2: the T0 port facing GPU 0 in plane 0 is busy and
  // queues; GPU 0's NIC port on that link sends only acknowledgements.
  const std::string dir = (std::filesystem::temp_directory_path() / "mrcsim-test-runner-ports").string();
  std::filesystem::create_directories(dir);
  ScenarioSpec spec = Scenario(R"([{"type": "rocev2", "qps_per_connection": 8}])",
                               R"([{"type": "incast", "gpus": "all", "receiver": 0, "senders": 15, "bytes": 1048576}])");
  spec.outputs.sampleIntervalUs = 5;
  LinkSelector link;
  link.gpu = 0;
  link.plane = 0;
  spec.outputs.portLinks.push_back(link);
  nlohmann::json r = Run(spec, 0, dir);
  REQUIRE_FALSE(r["partial"].get<bool>());
  std::ifstream csv(dir + "/ports.csv");
  std::string line;
  std::getline(csv, line);
  CHECK(line == "time_us,link,node,port,queue_bytes,utilisation");
  uint64_t maxQueue[2] = { 0, 0 };
  double maxUtil[2] = { 0, 0 };
  int rows = 0;
  while (std::getline(csv, line))
  {
    std::stringstream ss(line);
    std::string time, id, node, port, queue, util;
    std::getline(ss, time, ',');
    std::getline(ss, id, ',');
    std::getline(ss, node, ',');
    std::getline(ss, port, ',');
    std::getline(ss, queue, ',');
    std::getline(ss, util, ',');
    const int end = node.rfind("gpu", 0) == 0 ? 0 : 1; // 0: GPU 0's NIC port, 1: the T0's
    maxQueue[end] = std::max<uint64_t>(maxQueue[end], std::stoull(queue));
    maxUtil[end] = std::max(maxUtil[end], std::stod(util));
    ++rows;
  }
  CHECK(rows % 2 == 0);
  CHECK(rows >= 2 * 10);
  INFO("T0 port: queue " << maxQueue[1] << " B, utilisation " << maxUtil[1] << "; NIC port: queue " << maxQueue[0]
                         << " B, utilisation " << maxUtil[0]);
  CHECK(maxQueue[1] > 100000);  // the incast queues at the last hop
  CHECK(maxUtil[1] > 0.95);     // which sends at line rate
  CHECK(maxUtil[1] <= 1.0 + 1e-9);
  CHECK(maxUtil[0] < 0.1);      // acknowledgements only
}
