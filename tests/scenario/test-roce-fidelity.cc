// RoCEv2 against what lossless Ethernet guarantees: with PFC headroom derived from each port's
// rate and cable (PortQueueConfig::PfcHeadroomOf), no frame is dropped for want of headroom at
// 100, 200, 400 or 800G under a heavy incast next to an all-to-all.
#include "sim/run/transport-run.h"
#include "tests/roce-invariants.h"

#include <catch2/catch.hpp>

using namespace mrcsim;

TEST_CASE("roce fidelity: PFC is lossless at 100, 200, 400 and 800G", "[roce][pfc][fidelity]")
{
  // A 3-tier fat tree of radix 8 (128 GPUs): 64 GPUs incast 256 KiB each into GPU 0 while the
  // other 64 run an all-to-all of 32 KiB. Before: fixed 100 KB headroom, 1,652 headroom drops at
  // 400G and 4,957 at 800G (1.6 and 3.3 ms instead of 0.34 and 0.17 ms).
  for (int rate : { 100, 200, 400, 800 })
  {
    DYNAMIC_SECTION(rate << "G")
    {
      nlohmann::json doc = nlohmann::json::parse(R"({"name": "t", "seed": 1,
        "topology": {"spec": {"kind": "fat_tree", "tiers": 3, "radix": 8, "port_rate_gbps": )" +
                                                 std::to_string(rate) + R"(, "gpus": 128}},
        "transport": [{"type": "rocev2"}],
        "workloads": [{"type": "incast", "name": "incast", "gpus": "all", "receiver": 0, "senders": 64, "bytes": 262144},
                      {"type": "all_to_all", "name": "a2a", "gpus": {"first": 64, "count": 64}, "bytes": 32768}]})");
      const ScenarioSpec spec = ParseScenario(doc, "<test>");
      auto fabric = std::make_shared<const Fabric>(BuildFabric(spec.topology, "<test>"));
      RunOptions options;
      options.progress = false;
      const nlohmann::json r = RunTransport(spec, spec.transports[0], fabric, options).summary;
      INFO("completion " << r["completion_us"] << " us, PFC paused " << r["counters"]["pfc_paused_port_us"] << " port-us");
      REQUIRE_FALSE(r["partial"].get<bool>());
      CHECK(r["counters"]["pfc_paused_port_us"].get<double>() > 0); // PFC was exercised
      for (const auto& [cause, count] : r["counters"]["drops"].items())
      {
        INFO("drop cause " << cause);
        CHECK(count.get<uint64_t>() == 0);
      }
      CHECK(test::RoceTimeoutWithoutDrop(r) == "");
    }
  }
}

TEST_CASE("roce fidelity: DCQCN shortens PFC pauses and spares the victim of an incast", "[roce][dcqcn][fidelity]")
{
  // GPUs 1-7 each send 4 MiB into GPU 0; GPU 1 also sends 4 MiB to GPU 40, which only shares
  // GPU 1's NIC with the incast. Without rate control PFC holds the incast's excess in the fabric
  // and pauses GPU 1's ports, the victim's included; DCQCN's cuts keep the queues below XOFF
  // (Zhu et al., SIGCOMM 2015, Section 2: DCQCN exists to stop PFC's congestion spreading and the
  // unfairness and victim flows it causes).
  // Paper: DCQCN's published parameters; "" : the default profile (Tuned).
  const auto run = [](bool dcqcn, const std::string& profile = "")
  {
    const std::string profileAttribute =
      profile.empty() ? "" : R"(, "ns3::DcqcnRateControl::Profile": ")" + profile + R"(")";
    nlohmann::json doc = nlohmann::json::parse(R"({"name": "t", "seed": 1, "topology": {"preset": "multiplane-64"},
      "transport": [{"type": "rocev2", "qps_per_connection": 8,
                     "attributes": {"ns3::RoceQueuePair::Dcqcn": ")" +
                                               std::string(dcqcn ? "true" : "false") + R"(")" + profileAttribute + R"(}}],
      "workloads": [{"type": "incast", "name": "incast", "gpus": "all", "receiver": 0, "senders": 7, "bytes": 4194304},
                    {"type": "permutation", "name": "victim", "gpus": {"first": 1, "count": 2, "stride": 39},
                     "bytes": 4194304}]})");
    const ScenarioSpec spec = ParseScenario(doc, "<test>");
    auto fabric = std::make_shared<const Fabric>(BuildFabric(spec.topology, "<test>"));
    RunOptions options;
    options.progress = false;
    return RunTransport(spec, spec.transports[0], fabric, options).summary;
  };
  const nlohmann::json on = run(true, "Paper");
  const nlohmann::json off = run(false);
  const nlohmann::json tuned = run(true);
  const auto victim = [](const nlohmann::json& r)
  {
    for (const auto& c : r["collectives"])
      if (c["workload"] == "victim")
        return c["time_us"]["max"].get<double>();
    return 0.0;
  };
  const double pausedOn = on["counters"]["pfc_paused_port_us"].get<double>();
  const double pausedOff = off["counters"]["pfc_paused_port_us"].get<double>();
  INFO("PFC paused " << pausedOn << " vs " << pausedOff << " port-us; victim " << victim(on) << " vs " << victim(off)
                     << " us (DCQCN on vs off)");
  REQUIRE_FALSE(on["partial"].get<bool>());
  REQUIRE_FALSE(off["partial"].get<bool>());
  CHECK(test::RoceTimeoutWithoutDrop(on) == "");
  CHECK(test::RoceTimeoutWithoutDrop(off) == "");
  CHECK(pausedOn < 0.75 * pausedOff);
  CHECK(victim(on) < 0.75 * victim(off));
  // The Tuned profile cuts by at most 5% per CNP: it stops short of the Paper profile's deep cuts,
  // and shortens the pauses and the victim's time less, but it does shorten both.
  const double pausedTuned = tuned["counters"]["pfc_paused_port_us"].get<double>();
  INFO("Tuned: PFC paused " << pausedTuned << " port-us; victim " << victim(tuned) << " us");
  REQUIRE_FALSE(tuned["partial"].get<bool>());
  CHECK(test::RoceTimeoutWithoutDrop(tuned) == "");
  CHECK(pausedTuned < pausedOff);
  CHECK(victim(tuned) < victim(off));
}
