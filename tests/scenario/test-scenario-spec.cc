// Scenario files: the shipped examples read, every entry of the bad-file catalogue fails with a
// message naming the file, the JSON path and what is allowed, and --set overrides edit the
// document before validation.
#include "sim/scenario/scenario-spec.h"
#include "sim/failures/failure-params.h"
#include "sim/workloads/workload-params.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

using namespace mrcsim;

namespace
{

const std::string kRoot = MRCSIM_SOURCE_DIR;

/// A small valid scenario that tests edit with overrides, so each test states only what it changes.
nlohmann::json
Base()
{
  return nlohmann::json::parse(R"({
    "name": "base",
    "topology": {"preset": "multiplane-64"},
    "transport": {"type": "mrc"},
    "workloads": [{"type": "all_to_all", "bytes": 65536}]
  })");
}

ScenarioSpec
With(const std::vector<std::string>& overrides)
{
  nlohmann::json doc = Base();
  for (const std::string& o : overrides)
  {
    ApplyOverride(doc, o);
  }
  return ParseScenario(doc, "inline.json");
}

/// One bad file (or a good file with a bad override) and a fragment its message must contain.
struct BadCase
{
  std::string file; ///< relative to the repository root
  std::vector<std::string> overrides;
  std::string fragment;
};

const std::vector<BadCase>&
BadCases()
{
  const std::string b = "tests/scenario/bad/";
  static const std::vector<BadCase> cases{
    { b + "unknown-top-level-key.json", {}, "at /workload: unknown key; allowed keys here:" },
    { b + "unknown-workload-key.json", {}, "at /workloads/0/byte: unknown key" },
    { b + "unknown-failure-key.json", {}, "at /failures/0/at: unknown key" },
    { b + "unknown-transport-key.json", {}, "at /transport/1/qps: unknown key" },
    { b + "unknown-stop-key.json", {}, "at /stop/sim_time: unknown key; allowed keys here: \"sim_time_us\"" },
    { b + "unknown-outputs-key.json", {}, "at /outputs/sample_interval: unknown key" },
    { b + "unknown-link-key.json", {}, "at /failures/0/link/uplink: unknown key" },
    { b + "unknown-spec-key.json", {}, "at /topology/spec/planez: unknown key" },
    { b + "missing-name.json", {}, "at /name: required key is missing" },
    { b + "bad-name.json", {}, "at /name: \"my scenario\" is not a valid name; use letters, digits" },
    { b + "string-for-number.json",
      {},
      "at /workloads/0/bytes: expected a whole number in [1, 9007199254740992], got \"256KiB\"" },
    { b + "negative-bytes.json",
      {},
      "at /workloads/0/bytes: expected a whole number in [1, 9007199254740992], got -1" },
    { b + "negative-seed.json", {}, "at /seed: expected a whole number in [0, 9007199254740992], got -1" },
    { b + "unknown-transport-type.json",
      {},
      "at /transport/type: \"tcp\" is not allowed; expected one of \"mrc\", \"rocev2\"" },
    { b + "link-loss-class.json",
      {},
      "at /link_loss/0/link_class: \"t1-t2\" is not allowed; expected one of \"gpu-t0\", \"t0-t1\", \"all\"" },
    { b + "link-loss-rate.json", {}, "at /link_loss/0/rate: a loss probability below 1" },
    { b + "link-loss-twice.json", {}, "at /link_loss/1/link_class: \"gpu-t0\" is given twice" },
    { b + "duplicate-transport-label.json",
      {},
      "at /transport/1/label: label \"mrc\" is already used by /transport/0" },
    { b + "qps-for-mrc.json",
      {},
      "at /transport/qps_per_connection: key 'qps_per_connection' is only allowed for rocev2, not for mrc" },
    { b + "bad-attribute-name.json",
      {},
      "at /transport/attributes/EvCount: \"EvCount\" is not an ns-3 attribute name; attribute names look like" },
    { b + "attribute-not-integer.json",
      {},
      "at /transport/attributes/ns3::MrcQueuePair::EvCount: \"many\": expected a non-negative integer" },
    { b + "attribute-bad-time.json",
      {},
      "at /transport/attributes/ns3::MrcQueuePair::RetransmitTimeout: \"5 apples\": expected a time" },
    { b + "attribute-unknown-selector.json",
      {},
      "at /transport/attributes/ns3::MrcQueuePair::EvSelector: \"ns3::RoundRobin\": expected the name of a type "
      "derived from ns3::EvSelector: one of " },
    { b + "attribute-wrong-base.json",
      {},
      "at /transport/attributes/ns3::MrcQueuePair::CongestionControl: \"ns3::RoundRobinEvSelector\": expected the "
      "name of a type derived from ns3::MrcCongestionControl: one of \"ns3::NsccCongestionControl\"" },
    { b + "attribute-unknown.json",
      {},
      "at /transport/attributes/ns3::MrcQueuePair::EvCountt: type ns3::MrcQueuePair has no attribute \"EvCountt\"" },
    { b + "attribute-out-of-range.json",
      {},
      "at /transport/attributes/ns3::PortQueueConfig::EcnPmax: \"2\" is not a valid value here" },
    { b + "unknown-workload-type.json",
      {},
      "at /workloads/0/type: \"allreduce\" is not allowed; expected one of \"ring_allreduce\", \"ring_allgather\"" },
    { b + "scale-up-not-dividing.json",
      {},
      "at /topology/spec/scale_up/gpus_per_domain: 64 GPUs are not a whole number of domains of 72" },
    { b + "scale-up-unknown-technology.json",
      {},
      "at /topology/spec/scale_up/technology: \"nvlink6\" is not allowed; expected one of \"nvlink4\"" },
    { b + "pxn-without-domains.json", {}, "at /workloads/0/pxn: true on a fabric without scale-up domains" },
    { b + "train-step-sizes.json", {}, "at /workloads/0/dp: tp x ep x dp = 96, but the workload has 64 GPUs" },
    { b + "train-step-tp-beyond-domain.json",
      {},
      "at /workloads/0/tp: 16 does not divide the scale-up domain's 8 GPUs" },
    { b + "no-workloads.json", {}, "at /workloads: expected at least one entry" },
    { b + "duplicate-workload-name.json", {}, "at /workloads/1/name: name \"a2a\" is already used by /workloads/0" },
    { b + "key-for-other-type.json",
      {},
      "at /workloads/0/mode: key 'mode' is only allowed for all_to_all, not for ring_allreduce" },
    { b + "gpu-beyond-fabric.json",
      {},
      "at /workloads/0/gpus/2: GPU 64 does not exist; the fabric has 64 GPUs (0..63)" },
    { b + "gpu-range-beyond-fabric.json",
      {},
      "at /workloads/0/gpus/count: 32 GPUs from GPU 32 with stride 2 end at GPU 94, which does not exist" },
    { b + "hd-group-not-power-of-two.json",
      {},
      "at /workloads/0/group_size: hd_allreduce needs a power-of-two group size, got 12" },
    { b + "group-size-not-dividing.json",
      {},
      "at /workloads/0/group_size: 24 does not divide the 64 GPUs of this workload; use a divisor of 64" },
    { b + "incast-too-many-senders.json",
      {},
      "at /workloads/0/senders: expected 1..7 (the GPUs of 'gpus' other than the receiver), got 8" },
    { b + "random-zero-load.json", {}, "at /workloads/0/load: expected a number in [1e-06, 1], got 0" },
    { b + "link-plane-missing.json",
      {},
      "at /failures/0/link/plane: plane 8 does not exist; the fabric has 8 planes (0..7)" },
    { b + "link-up-port-missing.json",
      {},
      "at /failures/0/link/up_port: up-link 16 does not exist; T0 0 of plane 2 has 16 up-links (0..15)" },
    { b + "link-selector-form.json",
      {},
      "at /failures/0/link: a link is named by exactly one of the forms {\"id\"}, {\"gpu\", \"plane\"}" },
    { b + "pcap-link-id.json", {}, "at /outputs/pcap/0/id: link 1024 does not exist; the fabric has 1024 links" },
    { b + "negative-failure-time.json", {}, "at /failures/0/at_us: expected a number in [0, 1e+12], got -5" },
    { b + "link-flap-missing-period.json", {}, "at /failures/0/period_us: required key is missing" },
    { b + "switch-index-missing.json",
      {},
      "at /failures/0/index: switch 8 does not exist; tier 1 of plane 0 has 8 switches (0..7)" },
    { b + "gray-without-effect.json", {}, "at /failures/0: a gray failure needs \"loss_rate\"" },
    { b + "random-links-until.json", {}, "at /failures/0/until_us: must be after at_us (100), got 50" },
    { b + "unknown-preset.json",
      {},
      "at /topology/preset: unknown preset \"multiplane-65\"; presets: multiplane-131k" },
    { b + "topology-preset-and-spec.json", {}, "at /topology: expected exactly one of \"preset\"" },
    { b + "syntax-error.json", {}, "syntax-error.json: not valid JSON (byte 85)" },
    { b + "sweep-unknown-key.json", {}, "at /sweep/parameter: unknown key; allowed keys here:" },
    { b + "sweep-empty.json", {}, "at /sweep: a sweep needs \"parameters\" (override paths and their values)" },
    { b + "sweep-path-missing.json",
      {},
      "at /sweep/parameters/workloads.3.bytes/0: the value 65536 does not apply: override "
      "\"workloads.3.bytes=65536\": /workloads has 1 entry (0..0); index 3 is out of range" },
    { b + "sweep-bad-value.json",
      {},
      "at /sweep/parameters/workloads.0.bytes/1: the value -1 does not apply: at /workloads/0/bytes: expected a "
      "whole number in [1, 9007199254740992], got -1" },
    { b + "sweep-unknown-key-in-path.json",
      {},
      "at /sweep/parameters/workloads.0.byte/0: the value 65536 does not apply: at /workloads/0/byte: unknown key" },
    { b + "sweep-values-not-list.json",
      {},
      "at /sweep/parameters/workloads.0.bytes: expected a non-empty list of values, got 65536" },
    { b + "sweep-duplicate-value.json",
      {},
      "at /sweep/parameters/workloads.0.bytes/2: the value 65536 is listed twice (also at index 0)" },
    { b + "sweep-seed-parameter.json", {}, "at /sweep/parameters/seed: the seed is swept by \"seeds\"" },
    { b + "sweep-overlapping-paths.json",
      {},
      "at /sweep/parameters/workloads.0.bytes: overlaps the parameter \"workloads.0\"" },
    { b + "sweep-seeds-count.json", {}, "at /sweep/seeds/count: expected a whole number in [1, 1000], got 0" },
    { b + "sweep-duplicate-seed.json", {}, "at /sweep/seeds/2: seed 1 is listed twice" },
    { b + "sweep-too-many-points.json",
      {},
      "at /sweep: 1210 points (11 x 11 values x 10 seeds) is more than the 1000 a sweep may have" },
    { "scenarios/quickstart.json",
      { "workloads.3.bytes=1" },
      "override \"workloads.3.bytes=1\": /workloads has 1 entry (0..0); index 3 is out of range" },
    { "scenarios/quickstart.json",
      { "stop.wall_time.x=100" },
      "at /stop/wall_time: unknown key; allowed keys here:" },
    { "scenarios/quickstart.json",
      { "workloads.0.bytes=-1" },
      "at /workloads/0/bytes: expected a whole number in [1, 9007199254740992], got -1 (after overrides: "
      "workloads.0.bytes=-1)" },
    // Hardening: names that would write outside the results directory, values that froze or
    // divided by zero, text that is not UTF-8, JSON the parser must not recurse into.
    { "scenarios/quickstart.json", { "transport.0.label=.." }, "at /transport/0/label: \"..\" is not a valid name" },
    { "scenarios/quickstart.json", { "transport.0.label=." }, "at /transport/0/label: \".\" is not a valid name" },
    { "scenarios/quickstart.json", { "name=.hidden" }, "at /name: \".hidden\" is not a valid name" },
    { "scenarios/quickstart.json",
      { "outputs={\"sample_interval_us\": 1e-7}" },
      "at /outputs/sample_interval_us: expected a number in [0.1, 1e+06], got 1e-07" },
    { "scenarios/quickstart.json",
      { "failures.0={\"type\": \"gray\", \"at_us\": 1, \"link\": {\"id\": 0}, \"rate_factor\": 1e-12}" },
      "at /failures/0/rate_factor: expected a number in [1e-06, 1], got 1e-12" },
    { "scenarios/quickstart.json",
      { "workloads.0={\"type\": \"random\", \"bytes\": 1, \"load\": 1e-300, \"duration_us\": 10}" },
      "at /workloads/0/load: expected a number in [1e-06, 1], got 1e-300" },
    { "scenarios/quickstart.json",
      { "description=a\xff" },
      "override \"description=a\\xFF\": not valid UTF-8 (byte 14)" },
    { "scenarios/quickstart.json",
      { "description=" + std::string(100000, '[') + std::string(100000, ']') },
      "override \"description=[[[" },
    { "scenarios/quickstart.json",
      { "seed=1e400" },
      "override \"seed=1e400\": the value of seed: at / (byte 5): number 1e400 is out of range" },
  };
  return cases;
}

} // namespace

TEST_CASE("scenario spec: quickstart reads with its defaults", "[scenario]")
{
  ScenarioSpec s = ReadScenarioFile(kRoot + "/scenarios/quickstart.json");
  CHECK(s.name == "quickstart");
  CHECK(s.seed == 1);
  CHECK(s.topology.kind == "multiplane");
  CHECK(s.topology.multiplane.gpus == 64);
  CHECK(s.topology.multiplane.planes == 8);
  REQUIRE(s.transports.size() == 2);
  CHECK(s.transports[0].type == "mrc");
  CHECK(s.transports[0].qpsPerConnection == 1);
  CHECK(s.transports[1].label == "rocev2");
  CHECK(s.transports[1].qpsPerConnection == 8);
  REQUIRE(s.workloads.size() == 1);
  const WorkloadSpec& w = s.workloads[0];
  CHECK(w.type == "all_to_all");
  CHECK(w.gpus.gpus.size() == 64);
  CHECK(w.gpus.gpus.back() == 63);
  CHECK(w.bytes == 262144);
  const AllToAllParams& a2a = ParamsOf<AllToAllParams>(w.params, w.type);
  CHECK(a2a.mode == "all_at_once");
  CHECK(a2a.groupSize == 0);
  CHECK(a2a.iterations == 1);
  REQUIRE(s.failures.size() == 1);
  const FailureSpec& f = s.failures[0];
  CHECK(f.type == "link_down");
  CHECK(f.atUs == 100);
  const LinkSelector& link = ParamsOf<LinkParams>(f.params, f.type).link;
  CHECK(link.plane == 2);
  CHECK(link.t0 == 0u);
  CHECK(link.upPort == 0u);
  CHECK(link.where == "/failures/0/link");
  CHECK(s.outputs.sampleIntervalUs == 10);
  // Every run has limits, set or not.
  CHECK(s.stop.simTimeUs == StopSpec::kDefaultSimTimeUs);
  CHECK(s.stop.wallTimeS == StopSpec::kDefaultWallTimeS);
  CHECK(s.document.at("name") == "quickstart");
}

TEST_CASE("scenario spec: every shipped scenario reads", "[scenario]")
{
  size_t read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRoot + "/scenarios"))
  {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || name.find(".schema.") != std::string::npos)
    {
      continue;
    }
    INFO(name);
    CHECK_NOTHROW(ReadScenarioFile(entry.path().string()));
    ++read;
  }
  CHECK(read >= 1);
}

TEST_CASE("scenario spec: bad files name the file and path and what is allowed", "[scenario]")
{
  for (const BadCase& c : BadCases())
  {
    INFO(c.file << " " << c.fragment);
    const std::string file = kRoot + "/" + c.file;
    // Override errors name the override, not the file: the file was fine.
    if (c.fragment.rfind("override ", 0) == 0)
    {
      CHECK_THROWS_WITH(ReadScenarioFile(file, c.overrides), Catch::StartsWith(c.fragment));
    }
    else
    {
      CHECK_THROWS_WITH(ReadScenarioFile(file, c.overrides),
                        Catch::StartsWith(file + ": ") && Catch::Contains(c.fragment));
    }
    CHECK_THROWS_AS(ReadScenarioFile(file, c.overrides), SpecError);
  }
}

TEST_CASE("scenario spec: the bad-file catalogue and its table agree", "[scenario]")
{
  std::set<std::string> listed;
  std::set<std::string> fragments;
  for (const BadCase& c : BadCases())
  {
    listed.insert(c.file);
    CHECK(fragments.insert(c.fragment).second);
  }
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRoot + "/tests/scenario/bad"))
  {
    INFO(entry.path().filename().string());
    CHECK(listed.count("tests/scenario/bad/" + entry.path().filename().string()) == 1);
    ++files;
  }
  CHECK(files >= 15);
}

TEST_CASE("scenario spec: overrides edit the document before validation", "[scenario]")
{
  nlohmann::json doc = Base();
  ApplyOverride(doc, "workloads.0.bytes=1048576");
  ApplyOverride(doc, "seed=7");
  ApplyOverride(doc, "name=renamed");
  ApplyOverride(doc, "transport.attributes={}");
  ApplyOverride(doc, "transport.attributes.ns3::FabricControlPlane::ReconvergenceDelay=1s");
  ApplyOverride(doc, "transport.attributes.ns3::MrcQueuePair::EvCount=64");
  ApplyOverride(doc, R"(stop={"sim_time_us": 500})");
  CHECK(doc["workloads"][0]["bytes"] == 1048576);
  CHECK(doc["seed"] == 7);
  // Not JSON, so taken as a string.
  CHECK(doc["name"] == "renamed");
  CHECK(doc["transport"]["attributes"]["ns3::FabricControlPlane::ReconvergenceDelay"] == "1s");

  ScenarioSpec s = ParseScenario(doc, "inline.json");
  CHECK(s.seed == 7);
  CHECK(s.workloads[0].bytes == 1048576);
  CHECK(s.transports[0].attributes.at("ns3::MrcQueuePair::EvCount") == "64");
  CHECK(s.stop.simTimeUs == 500);
  CHECK(s.document == doc);

  // A new key is accepted here and rejected by validation, like a misspelt key in the file.
  ApplyOverride(doc, "workloads.0.byte=5");
  CHECK_THROWS_WITH(ParseScenario(doc, "inline.json"), Catch::Contains("at /workloads/0/byte: unknown key"));

  CHECK_THROWS_WITH(ApplyOverride(doc, "seed"), Catch::Contains("expected path=value"));
  CHECK_THROWS_WITH(ApplyOverride(doc, "=3"), Catch::Contains("expected path=value"));
  CHECK_THROWS_WITH(ApplyOverride(doc, "workloads..bytes=3"), Catch::Contains("empty key"));
  CHECK_THROWS_WITH(ApplyOverride(doc, "workloads.first.bytes=3"),
                    Catch::Contains("/workloads is a list; expected an index, got \"first\""));
  CHECK_THROWS_WITH(ApplyOverride(doc, "workloads.1=3"), Catch::Contains("index 1 is out of range"));
  CHECK_THROWS_WITH(ApplyOverride(doc, "seed.low=3"), Catch::Contains("/seed is a number, not an object or a list"));
  CHECK_THROWS_WITH(ApplyOverride(doc, "outputs.pcap.0.gpu=1"), Catch::Contains("/outputs/pcap does not exist"));
}

TEST_CASE("scenario spec: a sweep block is the product of its values and seeds", "[scenario]")
{
  CHECK_FALSE(With({}).sweep.has_value());
  // null: no sweep (each point of a sweep runs so, and the block is not checked again).
  CHECK_FALSE(With({ "sweep=null" }).sweep.has_value());

  ScenarioSpec s = With({ R"(transport.attributes={})",
                          R"(sweep={"parameters": {"workloads.0.bytes": [4096, 65536, 1048576],
                                     "transport.attributes.ns3::MrcQueuePair::EvCount": [32, "64"]},
                                     "seeds": [3, 1]})" });
  REQUIRE(s.sweep.has_value());
  REQUIRE(s.sweep->parameters.size() == 2);
  // By path (the document's object order), whatever the file's order.
  CHECK(s.sweep->parameters[0].path == "transport.attributes.ns3::MrcQueuePair::EvCount");
  CHECK(s.sweep->parameters[0].values == std::vector<nlohmann::json>{ 32, "64" });
  CHECK(s.sweep->parameters[1].path == "workloads.0.bytes");
  CHECK(s.sweep->parameters[1].values.size() == 3);
  CHECK(s.sweep->seeds == std::vector<uint64_t>{ 3, 1 });
  CHECK(s.sweep->Points() == 12);
  // The base scenario is untouched by its sweep.
  CHECK(s.workloads[0].bytes == 65536);
  CHECK(s.seed == 1);

  s = With({ "seed=7", R"(sweep={"seeds": {"count": 4}})" });
  CHECK(s.sweep->parameters.empty());
  CHECK(s.sweep->seeds == std::vector<uint64_t>{ 7, 8, 9, 10 });
  CHECK(s.sweep->Points() == 4);
  s = With({ R"(sweep={"parameters": {"workloads.0.mode": ["pairwise"]}})" });
  CHECK(s.sweep->seeds == std::vector<uint64_t>{ 1 });
  CHECK(s.sweep->Points() == 1);

  // Each value is checked against the whole scenario, references included.
  CHECK_THROWS_WITH(With({ R"(sweep={"parameters": {"workloads.0.gpus": [[0, 1], [0, 64]]}})" }),
                    Catch::StartsWith("inline.json: at /sweep/parameters/workloads.0.gpus/1: the value [0,64] does "
                                      "not apply: at /workloads/0/gpus/1: GPU 64 does not exist"));
  CHECK_THROWS_WITH(With({ R"(sweep={"parameters": {"transport.attribs.ns3::MrcQueuePair::EvCount": [32]}})" }),
                    Catch::Contains("at /transport/attribs: unknown key"));
  CHECK_THROWS_WITH(With({ R"(sweep={"parameters": {"sweep.seeds": [[1]]}})" }),
                    Catch::Contains("at /sweep/parameters/sweep.seeds: a sweep cannot change the sweep block"));
  CHECK_THROWS_WITH(With({ R"(sweep={"parameters": {"a=b": [1]}})" }), Catch::Contains("is not an override path"));
  CHECK_THROWS_WITH(With({ R"(sweep={"parameters": {}})" }),
                    Catch::Contains("at /sweep/parameters: expected an object of override paths"));
  CHECK_THROWS_WITH(With({ R"(sweep={"seeds": []})" }), Catch::Contains("at /sweep/seeds: expected at least one seed"));
  CHECK_THROWS_WITH(With({ R"(sweep={"seeds": [1.5]})" }),
                    Catch::Contains("at /sweep/seeds/0: expected a whole number"));
  CHECK_THROWS_WITH(With({ R"(sweep={"seeds": 3})" }), Catch::Contains(R"(expected a list of seeds or {"count": N})"));
  CHECK_THROWS_WITH(With({ "seed=9007199254740990", R"(sweep={"seeds": {"count": 5}})" }),
                    Catch::Contains("at /sweep/seeds/count: 5 seeds from the scenario's seed"));
  CHECK_THROWS_WITH(With({ "sweep=[]" }), Catch::Contains("at /sweep: expected an object"));
  // 1000 points are allowed, more are not.
  nlohmann::json values = nlohmann::json::array();
  nlohmann::json seeds = nlohmann::json::array();
  for (int i = 1; i <= 100; ++i)
  {
    values.push_back(i);
    seeds.push_back(i);
  }
  values.erase(values.begin() + 10, values.end());
  nlohmann::json doc = Base();
  doc["sweep"] = { { "parameters", { { "workloads.0.bytes", values } } }, { "seeds", seeds } };
  CHECK(ParseScenario(doc, "inline.json").sweep->Points() == 1000);
  doc["sweep"]["parameters"]["workloads.0.bytes"].push_back(11);
  CHECK_THROWS_WITH(ParseScenario(doc, "inline.json"), Catch::Contains("1100 points (11 values x 100 seeds)"));
}

TEST_CASE("scenario spec: defaults and the single-transport form", "[scenario]")
{
  ScenarioSpec s = With({});
  CHECK(s.seed == 1);
  CHECK(s.description.empty());
  REQUIRE(s.transports.size() == 1);
  CHECK(s.transports[0].label == "mrc");
  CHECK(s.workloads[0].name == "all_to_all-0");
  CHECK(ParamsOf<AllToAllParams>(s.workloads[0].params, "all_to_all").placement == "contiguous");
  CHECK(s.failures.empty());
  CHECK(s.outputs.pcapLinks.empty());

  s = With({ R"(workloads=[{"type": "ring_allreduce", "bytes": 1}, {"type": "permutation", "bytes": 1}])" });
  CHECK(s.workloads[0].name == "ring_allreduce-0");
  CHECK(s.workloads[1].name == "permutation-1");
}

TEST_CASE("scenario spec: GPU sets resolve to explicit lists", "[scenario]")
{
  CHECK(With({ "workloads.0.gpus=\"all\"" }).workloads[0].gpus.gpus.size() == 64);
  CHECK(With({ "workloads.0.gpus=[5, 3, 9]" }).workloads[0].gpus.gpus == std::vector<uint32_t>{ 5, 3, 9 });
  CHECK(With({ R"(workloads.0.gpus={"first": 1, "count": 4, "stride": 16})" }).workloads[0].gpus.gpus ==
        std::vector<uint32_t>{ 1, 17, 33, 49 });
  CHECK(With({ R"(workloads.0.gpus={"first": 60, "count": 4})" }).workloads[0].gpus.gpus ==
        std::vector<uint32_t>{ 60, 61, 62, 63 });

  CHECK_THROWS_WITH(With({ "workloads.0.gpus=[1, 2, 1]" }),
                    Catch::Contains("/workloads/0/gpus/2: GPU 1 is listed twice"));
  CHECK_THROWS_WITH(With({ "workloads.0.gpus=[]" }), Catch::Contains("/workloads/0/gpus: expected at least one GPU"));
  CHECK_THROWS_WITH(With({ "workloads.0.gpus=some" }), Catch::Contains(R"(expected "all", a list of GPU indices)"));
  CHECK_THROWS_WITH(With({ "workloads.0.gpus=[-1]" }), Catch::Contains("GPU -1 does not exist"));
  CHECK_THROWS_WITH(With({ "workloads.0.gpus=[1.5]" }), Catch::Contains("expected a GPU index, got 1.5"));
  CHECK_THROWS_WITH(With({ R"(workloads.0.gpus={"first": 0, "length": 4})" }),
                    Catch::Contains("/workloads/0/gpus/length: unknown key"));
  CHECK_THROWS_WITH(With({ "workloads.0.gpus=[7]" }), Catch::Contains("all_to_all needs at least 2 GPUs, got 1"));
}

TEST_CASE("scenario spec: workload keys follow the workload type", "[scenario]")
{
  WorkloadSpec w = With({ R"(workloads.0={"type": "hd_allreduce", "bytes": 4096, "group_size": 16,
                                          "placement": "strided", "iterations": 3, "compute_us": 20,
                                          "start_us": 5})" })
                     .workloads[0];
  const HalvingDoublingParams& hd = ParamsOf<HalvingDoublingParams>(w.params, w.type);
  CHECK(hd.groupSize == 16);
  CHECK(hd.placement == "strided");
  CHECK(hd.iterations == 3);
  CHECK(hd.computeUs == 20);
  CHECK(w.startUs == 5);

  w = With({ R"(workloads.0={"type": "incast", "bytes": 4096, "gpus": [3, 4, 5], "receiver": 4, "senders": 2})" })
        .workloads[0];
  CHECK(ParamsOf<IncastParams>(w.params, w.type).receiver == 4);
  CHECK(ParamsOf<IncastParams>(w.params, w.type).senders == 2);
  // A receiver outside `gpus` leaves every listed GPU free to send.
  w = With({ R"(workloads.0={"type": "incast", "bytes": 1, "gpus": [3, 5], "receiver": 0, "senders": 2})" })
        .workloads[0];
  CHECK(ParamsOf<IncastParams>(w.params, w.type).senders == 2);

  w = With({ R"(workloads.0={"type": "random", "bytes": 4096, "load": 0.5, "duration_us": 100})" }).workloads[0];
  CHECK(ParamsOf<RandomParams>(w.params, w.type).load == 0.5);
  CHECK(ParamsOf<RandomParams>(w.params, w.type).durationUs == 100);

  CHECK_THROWS_WITH(With({ R"(workloads.0={"type": "incast", "bytes": 1, "senders": 2})" }),
                    Catch::Contains("/workloads/0/receiver: required key is missing"));
  CHECK_THROWS_WITH(With({ R"(workloads.0={"type": "random", "bytes": 1, "load": 1.5, "duration_us": 1})" }),
                    Catch::Contains("/workloads/0/load: expected a number in [1e-06, 1], got 1.5"));
  CHECK_THROWS_WITH(With({ R"(workloads.0={"type": "permutation", "bytes": 1, "group_size": 2})" }),
                    Catch::Contains("key 'group_size' is only allowed for ring_allreduce, ring_allgather, "
                                    "ring_reducescatter, hd_allreduce, all_to_all"));
  CHECK_THROWS_WITH(With({ R"(workloads.0={"type": "incast", "bytes": 1, "iterations": 2})" }),
                    Catch::Contains("key 'iterations' is only allowed for"));
  CHECK_THROWS_WITH(With({ R"(workloads.0={"type": "hd_allreduce", "bytes": 1, "gpus": [0, 1, 2]})" }),
                    Catch::Contains("/workloads/0/gpus: hd_allreduce needs a power-of-two group size, got 3"));
  CHECK_THROWS_WITH(With({ "workloads.0.iterations=0" }), Catch::Contains("/workloads/0/iterations"));
  CHECK_THROWS_WITH(With({ "workloads.0.mode=ring" }),
                    Catch::Contains("expected one of \"all_at_once\", \"pairwise\""));
}

TEST_CASE("scenario spec: transport attributes are kept as text", "[scenario]")
{
  ScenarioSpec s = With({ R"(transport=[{"type": "mrc", "attributes": {"ns3::MrcQueuePair::EvCount": 64,
                                   "ns3::MrcQueuePair::SackEvery": 2.0, "ns3::PortQueueConfig::EcnPmax": 0.125,
                                   "ns3::PortQueueConfig::TrimEnabled": true,
                                   "ns3::MrcQueuePair::RetransmitTimeout": "262us"}},
                                  {"type": "rocev2", "label": "roce-8", "qps_per_connection": 8}])" });
  const auto& a = s.transports[0].attributes;
  CHECK(a.at("ns3::MrcQueuePair::EvCount") == "64");
  CHECK(a.at("ns3::MrcQueuePair::SackEvery") == "2");
  CHECK(a.at("ns3::PortQueueConfig::EcnPmax") == "0.125");
  CHECK(a.at("ns3::PortQueueConfig::TrimEnabled") == "true");
  CHECK(a.at("ns3::MrcQueuePair::RetransmitTimeout") == "262us");
  // Nested namespaces have the right shape; the type must still exist.
  CHECK_THROWS_WITH(With({ R"(transport.attributes={"ns3::dot11s::PeerLink::MaxRetries": 4})" }),
                    Catch::Contains("no ns-3 type \"ns3::dot11s::PeerLink\""));
  CHECK(s.transports[1].label == "roce-8");
  CHECK(s.transports[1].qpsPerConnection == 8);

  CHECK_THROWS_WITH(With({ R"(transport.attributes={"ns3::A::B": [1]})" }),
                    Catch::Contains("/transport/attributes/ns3::A::B: expected a number, true/false or a string"));
  CHECK_THROWS_WITH(With({ R"(transport.attributes={"ns3::OnlyType": 1})" }),
                    Catch::Contains("is not an ns-3 attribute name"));
  CHECK_THROWS_WITH(With({ R"(transport={"type": "rocev2", "qps_per_connection": 65})" }),
                    Catch::Contains("/transport/qps_per_connection: expected a whole number in [1, 64]"));
  CHECK_THROWS_WITH(With({ "transport=[]" }), Catch::Contains("/transport: expected a transport object"));
}

TEST_CASE("scenario spec: the range model refuses what cannot run and accepts its bounds", "[scenario]")
{
  const auto attr = [](const std::string& name, const std::string& value)
  { return R"(transport={"type": "mrc", "attributes": {")" + name + "\": " + value + "}}"; };
  const auto roce = [](const std::string& name, const std::string& value)
  { return R"(transport={"type": "rocev2", "attributes": {")" + name + "\": " + value + "}}"; };
  // Times within the clock (2^63 ps, 9.2e6 s), with margin: 1e6 s at most; larger ones wrapped.
  CHECK_NOTHROW(With({ attr("ns3::MrcQueuePair::RetransmitTimeout", R"("1e6s")") }));
  CHECK_NOTHROW(With({ attr("ns3::RdmaNic::PostLatency", R"("1000000000us")") }));
  for (const char* t : { R"("1000001s")", R"("1e30s")", R"("18446744073.709551616s")", R"("1y")" })
  {
    INFO(t);
    CHECK_THROWS_WITH(With({ attr("ns3::RdmaNic::PostLatency", t) }),
                      Catch::Contains("/transport/attributes/ns3::RdmaNic::PostLatency") &&
                        Catch::Contains("expected a time of at most 1e+06s"));
  }
  // DCQCN's periods: 0 stands for the profile's (documented), so it is accepted; negative times
  // are refused by the attribute's own checker.
  CHECK_NOTHROW(With({ roce("ns3::DcqcnRateControl::AlphaUpdatePeriod", R"("0s")") }));
  CHECK_NOTHROW(With({ roce("ns3::DcqcnRateControl::RateIncreasePeriod", R"("0ns")") }));
  CHECK_NOTHROW(With({ roce("ns3::DcqcnRateControl::RateIncreasePeriod", R"("1ps")") }));
  CHECK_THROWS_WITH(With({ roce("ns3::DcqcnRateControl::RateIncreasePeriod", R"("-1us")") }),
                    Catch::Contains("ns3::DcqcnRateControl::RateIncreasePeriod"));
  // Tail-loss probes: at most 1000 RTTs (1e308 wrapped to an early probe).
  CHECK_NOTHROW(With({ attr("ns3::MrcQueuePair::LossProbeRtts", "1000") }));
  CHECK_THROWS_WITH(With({ attr("ns3::MrcQueuePair::LossProbeRtts", "1e308") }), Catch::Contains("at most 1000"));
  // Queue limits and the trimming threshold: one frame of the Mtu (4096 + 256 header bytes).
  CHECK_NOTHROW(With({ attr("ns3::PortQueueConfig::DataLimit", "4352") }));
  CHECK_THROWS_WITH(With({ attr("ns3::PortQueueConfig::DataLimit", "4351") }),
                    Catch::Contains("/transport/attributes/ns3::PortQueueConfig::DataLimit") &&
                      Catch::Contains("at least one full data frame, 4352 bytes"));
  CHECK_THROWS_WITH(With({ attr("ns3::PortQueueConfig::TrimThreshold", "0") }), Catch::Contains("4352 bytes"));
  CHECK_THROWS_WITH(With({ R"(transport={"type": "mrc", "attributes": {"ns3::RdmaNic::Mtu": 9000,
                           "ns3::PortQueueConfig::ControlLimit": 9000}})" }),
                    Catch::Contains("ns3::PortQueueConfig::ControlLimit") && Catch::Contains("9256 bytes"));
  // MRC's EVs: 8 planes x (16 + backups) within 16384.
  CHECK_NOTHROW(With({ attr("ns3::MrcQueuePair::BackupEvsPerPlane", "2032") }));
  CHECK_THROWS_WITH(With({ attr("ns3::MrcQueuePair::BackupEvsPerPlane", "2033") }),
                    Catch::Contains("ns3::MrcQueuePair::BackupEvsPerPlane") && Catch::Contains("16392 EVs per QP"));
  // A reference rate of 0 turns scaling off; a positive one is a real link rate.
  CHECK_NOTHROW(With({ attr("ns3::PortQueueConfig::ReferenceRate", R"("0bps")") }));
  CHECK_THROWS_WITH(With({ attr("ns3::PortQueueConfig::ReferenceRate", R"("1Mbps")") }),
                    Catch::Contains("at least 1Gbps"));
  // Channel delays come from the fabric; a default would be ignored.
  CHECK_THROWS_WITH(With({ attr("ns3::FabricChannel::Delay", R"("100us")") }), Catch::Contains("from the topology"));

  // Scenario times: from 1 ps to 1e12 us, the last flap included; workloads start before the stop.
  CHECK_THROWS_WITH(With({ "stop.sim_time_us=1e-7" }), Catch::Contains("at /stop/sim_time_us: expected a time in"));
  CHECK_NOTHROW(With({ "stop.sim_time_us=1e-6" }));
  CHECK_THROWS_WITH(
    With({ R"(failures=[{"type": "link_flap", "at_us": 0, "link": {"id": 0}, "period_us": 1e12, "count": 2}])" }),
    Catch::Contains("at /failures/0/period_us: 2 flaps"));
  CHECK_NOTHROW(
    With({ R"(failures=[{"type": "link_flap", "at_us": 0, "link": {"id": 0}, "period_us": 5e11, "count": 2}])" }));
  CHECK_THROWS_WITH(With({ "workloads.0.start_us=1e7" }),
                    Catch::Contains("at /workloads/0/start_us: workload \"all_to_all-0\" starts at ") &&
                      Catch::Contains("not before the stop"));
  CHECK_NOTHROW(With({ "workloads.0.start_us=1e7", "stop.sim_time_us=1.1e7" }));
  // Labels are directories beside summary.json; list indices have one spelling.
  CHECK_THROWS_WITH(With({ R"(transport={"type": "mrc", "label": "summary.json"})" }),
                    Catch::Contains("at /transport/label"));
  CHECK_THROWS_WITH(With({ "workloads.00.bytes=4096" }), Catch::Contains("expected an index"));
}

TEST_CASE("scenario spec: link selectors name the links the generator wires", "[scenario]")
{
  Fabric fabric = BuildFabric(PresetSpec("multiplane-64"));
  LinkSelector s;
  s.where = "/x";

  // GPU 17's NIC link into plane 3 ends at T0 1 of plane 3 (16 GPUs per T0).
  s.gpu = 17;
  s.plane = 3;
  const FabricLink& nic = fabric.Link(ResolveLink(fabric, s, "f.json"));
  auto [a, b] = fabric.Ends(nic.id);
  CHECK(fabric.Node(a).index == 17);
  CHECK(fabric.Node(b).plane == 3);
  CHECK(fabric.Node(b).tier == 0);
  CHECK(fabric.Node(b).index == 1);

  // Up-port u of a T0 goes to T1 u mod 8; up_port 9 is the second link to T1 1.
  s = LinkSelector{};
  s.where = "/x";
  s.plane = 2;
  s.t0 = 3;
  s.upPort = 9;
  uint32_t up = ResolveLink(fabric, s, "f.json");
  CHECK(fabric.Node(fabric.Ends(up).second).tier == 1);
  CHECK(fabric.Node(fabric.Ends(up).second).index == 1);
  s.upPort.reset();
  s.t1 = 1;
  uint32_t first = ResolveLink(fabric, s, "f.json");
  CHECK(first < up);
  CHECK(fabric.Ends(first) == fabric.Ends(up));

  s = LinkSelector{};
  s.where = "/x";
  s.id = 1023;
  CHECK(ResolveLink(fabric, s, "f.json") == 1023);

  s = LinkSelector{};
  s.where = "/x";
  s.plane = 0;
  s.t0 = 4;
  s.t1 = 0;
  CHECK_THROWS_WITH(ResolveLink(fabric, s, "f.json"),
                    Catch::Equals("f.json: at /x/t0: T0 4 does not exist; plane 0 has 4 T0s (0..3)"));

  // Every selector form is accepted in pcap lists and port failures resolve like NIC links.
  ScenarioSpec spec = With({ R"(outputs={"sample_interval_us": 2.5, "pcap": [{"id": 3}, {"gpu": 0, "plane": 7},
                                        {"plane": 1, "t0": 2, "t1": 5}, {"plane": 1, "t0": 2, "up_port": 15}]})",
                             R"(failures=[{"type": "port_down", "at_us": 0, "gpu": 63, "plane": 7}])" });
  CHECK(spec.outputs.sampleIntervalUs == 2.5);
  REQUIRE(spec.outputs.pcapLinks.size() == 4);
  CHECK(spec.outputs.pcapLinks[3].where == "/outputs/pcap/3");
  const LinkSelector& port = ParamsOf<LinkParams>(spec.failures[0].params, "port_down").link;
  CHECK(port.gpu == 63u);
  CHECK(port.plane == 7);
  CHECK(port.where == "/failures/0");
}

TEST_CASE("scenario spec: every failure type reads", "[scenario]")
{
  ScenarioSpec s = With({ R"(failures=[
      {"type": "link_down", "at_us": 10, "link": {"id": 5}},
      {"type": "link_up", "at_us": 20, "link": {"id": 5}},
      {"type": "link_flap", "at_us": 30, "link": {"gpu": 1, "plane": 0}, "period_us": 4, "count": 3},
      {"type": "switch_down", "at_us": 40, "plane": 7, "tier": 1, "index": 7},
      {"type": "switch_up", "at_us": 50, "plane": 7, "tier": 0, "index": 3},
      {"type": "plane_down", "at_us": 60, "plane": 4},
      {"type": "plane_up", "at_us": 70, "plane": 4},
      {"type": "port_down", "at_us": 80, "gpu": 2, "plane": 1},
      {"type": "port_up", "at_us": 90, "gpu": 2, "plane": 1},
      {"type": "gray", "at_us": 100, "link": {"plane": 0, "t0": 0, "t1": 0}, "loss_rate": 0.01},
      {"type": "random_links", "at_us": 0, "link_class": "gpu-t0", "mtbf_us": 1e6, "mttr_us": 100,
       "until_us": 5000}])" });
  REQUIRE(s.failures.size() == 11);
  auto params = [&](std::size_t i) { return s.failures[i].params; };
  CHECK(ParamsOf<LinkFlapParams>(params(2), "link_flap").periodUs == 4);
  CHECK(ParamsOf<LinkFlapParams>(params(2), "link_flap").count == 3);
  CHECK(ParamsOf<SwitchParams>(params(3), "switch_down").tier == 1);
  CHECK(ParamsOf<SwitchParams>(params(3), "switch_down").index == 7);
  CHECK(ParamsOf<PlaneParams>(params(5), "plane_down").plane == 4);
  CHECK(ParamsOf<GrayParams>(params(9), "gray").lossRate == 0.01);
  CHECK(ParamsOf<GrayParams>(params(9), "gray").rateFactor == 1);
  CHECK(ParamsOf<RandomLinksParams>(params(10), "random_links").linkClass == "gpu-t0");
  CHECK(ParamsOf<RandomLinksParams>(params(10), "random_links").untilUs == 5000);

  CHECK_THROWS_WITH(With({ R"(failures=[{"type": "plane_down", "at_us": 1, "plane": 2, "tier": 0}])" }),
                    Catch::Contains("/failures/0/tier: key 'tier' is only allowed for switch_down, switch_up"));
  CHECK_THROWS_WITH(With({ R"(failures=[{"type": "switch_down", "at_us": 1, "plane": 0, "tier": 2, "index": 0}])" }),
                    Catch::Contains("/failures/0/tier: tier 2 does not exist; the fabric has 2 tiers (0..1)"));
  CHECK_THROWS_WITH(With({ R"(failures=[{"type": "port_down", "at_us": 1, "gpu": 64, "plane": 0}])" }),
                    Catch::Contains("/failures/0/gpu: GPU 64 does not exist"));
  CHECK_THROWS_WITH(With({ R"(failures=[{"type": "gray", "at_us": 1, "link": {"id": 0}, "rate_factor": 0}])" }),
                    Catch::Contains("/failures/0/rate_factor: expected a number in [1e-06, 1], got 0"));
  CHECK_THROWS_WITH(With({ R"(failures=[{"type": "link_down", "link": {"id": 0}}])" }),
                    Catch::Contains("/failures/0/at_us: required key is missing"));
  CHECK_THROWS_WITH(With({ R"(failures=[{"type": "link_down", "at_us": 1, "link": {"id": 0, "plane": 1}}])" }),
                    Catch::Contains("exactly one of the forms") && Catch::Contains("got {\"id\", \"plane\"}"));
}

TEST_CASE("scenario spec: a fabric spec can replace the preset", "[scenario]")
{
  ScenarioSpec s =
    With({ R"(topology={"spec": {"kind": "fat_tree", "tiers": 2, "radix": 8, "port_rate_gbps": 800,
                                                 "gpus": 32}})",
           R"(failures=[{"type": "link_down", "at_us": 1, "link": {"plane": 0, "t0": 1, "up_port": 3}}])",
           R"(workloads.0.gpus={"first": 0, "count": 32})" });
  CHECK(s.topology.kind == "fat_tree");
  CHECK(s.workloads[0].gpus.gpus.size() == 32);
  CHECK_THROWS_WITH(With({ R"(workloads.0.gpus=[32, 33])", R"(topology={"spec": {"kind": "fat_tree", "tiers": 2,
                                                    "radix": 8, "port_rate_gbps": 800, "gpus": 32}})" }),
                    Catch::Contains("GPU 32 does not exist; the fabric has 32 GPUs (0..31)"));
  CHECK_THROWS_WITH(With({ "topology={}" }), Catch::Contains("at /topology: expected exactly one of"));
  CHECK_THROWS_WITH(With({ "topology=\"multiplane-64\"" }), Catch::Contains("at /topology: expected an object"));
}

namespace
{

/// The quoted names after "expected one of " in a Choice error.
std::vector<std::string>
AllowedIn(const std::string& message)
{
  std::vector<std::string> names;
  size_t at = message.find("expected one of ");
  while (at != std::string::npos)
  {
    size_t open = message.find('"', at);
    size_t close = open == std::string::npos ? open : message.find('"', open + 1);
    if (close == std::string::npos)
    {
      break;
    }
    names.push_back(message.substr(open + 1, close - open - 1));
    at = close + 1;
  }
  return names;
}

std::vector<std::string>
Rejection(const std::vector<std::string>& overrides)
{
  try
  {
    With(overrides);
  }
  catch (const SpecError& e)
  {
    return AllowedIn(e.what());
  }
  return {};
}

} // namespace

TEST_CASE("scenario spec: the schema names the same presets and types as the reader", "[scenario]")
{
  const nlohmann::json schema = ReadJsonFile(kRoot + "/scenarios/scenario.schema.json");
  const nlohmann::json& defs = schema.at("$defs");

  std::vector<std::string> presets;
  for (const Preset& p : Presets())
  {
    presets.push_back(p.name);
  }
  CHECK(defs.at("topology").at("oneOf").at(0).at("properties").at("preset").at("enum") == presets);

  CHECK(defs.at("transport").at("properties").at("type").at("enum") == Rejection({ "transport.type=nope" }));
  CHECK(defs.at("workload").at("properties").at("type").at("enum") == Rejection({ "workloads.0.type=nope" }));
  CHECK(defs.at("failure").at("properties").at("type").at("enum") ==
        Rejection({ R"(failures=[{"type": "nope", "at_us": 0}])" }));
}
