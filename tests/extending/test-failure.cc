// Adding a failure type from outside the library (docs/EXTENDING.md, "A failure type"): a type
// defined and registered in this test binary only, with keys of its own, is named in a
// scenario's failure timeline, scheduled on each transport's network and logged in the summary.
#include "sim/failures/failure-types.h"
#include "sim/run/scenario-run.h"
#include "sim/workloads/workload.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace
{

using namespace mrcsim;

/// The test's settings: which GPU loses its NIC and for how long.
struct NicOutageParams : TypeParams
{
  uint32_t gpu = 0;
  double forUs = 0;
};

void
ParseNicOutage(JsonReader& r, FailureSpec& f, const Fabric& fabric)
{
  auto p = std::make_shared<NicOutageParams>();
  p->gpu = static_cast<uint32_t>(r.Int("victim", 0, int64_t(fabric.NumGpus()) - 1));
  p->forUs = r.Number("for_us", 0.001, 1e6);
  f.params = p;
}

/// Every port of the GPU's NIC (its links into all planes) goes down at at_us and comes back
/// for_us later, through the network's scheduled link changes as the built-in types do.
FailureLogUpdate
ScheduleNicOutage(const FailureSpec& f, FailureContext& run, nlohmann::json& entry)
{
  const NicOutageParams& p = ParamsOf<NicOutageParams>(f.params, f.type);
  const VertexId gpu = run.fabric.Gpu(p.gpu);
  std::vector<uint32_t> links;
  for (uint16_t port = 0; port < run.fabric.Degree(gpu); ++port)
  {
    links.push_back(run.fabric.LinkAt(gpu, port).id);
  }
  for (uint32_t link : links)
  {
    run.net.ScheduleLinkUp(MicrosecondsToTime(f.atUs), link, false);
    run.net.ScheduleLinkUp(MicrosecondsToTime(f.atUs + p.forUs), link, true);
  }
  entry["links"] = links;
  entry["back_at_us"] = f.atUs + p.forUs;
  return {};
}

void
RegisterNicOutage()
{
  static const bool once = []
  {
    FailureType type;
    type.name = "nic_outage";
    type.description = "every port of one GPU's NIC goes down for a while (test only)";
    type.keys = { { "victim", KeyUse::Required }, { "for_us", KeyUse::Required } };
    type.parse = &ParseNicOutage;
    type.schedule = &ScheduleNicOutage;
    RegisterFailureType(type);
    return true;
  }();
  (void)once;
}

nlohmann::json
Scenario(const std::string& failures)
{
  return nlohmann::json::parse(R"({"name": "extending-failure", "seed": 1, "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc"}],
    "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 4, "stride": 16}, "bytes": 1048576}],
    "failures": [)" + failures + "]}");
}

nlohmann::json
RunMrc(const std::string& failures)
{
  ScenarioRunOptions options;
  options.progress = false;
  const ScenarioResult r = RunScenario(ParseScenario(Scenario(failures), "<test>"), options);
  REQUIRE_FALSE(r.partial);
  return r.summary["runs"][0];
}

} // namespace

TEST_CASE("extending: a test-only failure type is scheduled by its name and logged", "[extending][failure]")
{
  RegisterNicOutage();
  const nlohmann::json healthy = RunMrc("");
  const nlohmann::json outage = RunMrc(R"({"type": "nic_outage", "at_us": 2, "victim": 16, "for_us": 100})");
  // GPU 16 sends and receives in the permutation: with its NIC dark from 2 to 102 us nothing of
  // its messages moves, so the run ends after the NIC is back, and later than without the outage.
  CHECK(healthy["completion_us"].get<double>() < 100);
  CHECK(outage["completion_us"].get<double>() > 102);
  CHECK(outage["messages"]["completed"].get<uint64_t>() == 4);
  REQUIRE(outage["failures"].size() == 1);
  const nlohmann::json& entry = outage["failures"][0];
  CHECK(entry["type"] == "nic_outage");
  CHECK(entry["links"].size() == 8); // multiplane-64: one NIC port per plane
  CHECK(entry["back_at_us"].get<double>() == 102);
}

TEST_CASE("extending: a test-only failure type's keys are checked like the built-in types'", "[extending][failure]")
{
  RegisterNicOutage();
  auto error = [](const std::string& failures)
  {
    try
    {
      ParseScenario(Scenario(failures), "<test>");
    }
    catch (const SpecError& e)
    {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error(R"({"type": "nic_outage", "at_us": 2, "victim": 16})"), Catch::Contains("for_us"));
  CHECK_THAT(error(R"({"type": "nic_outage", "at_us": 2, "victim": 64, "for_us": 1})"), Catch::Contains("victim"));
  CHECK_THAT(error(R"({"type": "link_down", "at_us": 2, "link": {"id": 0}, "victim": 1})"),
             Catch::Contains("only allowed for nic_outage"));
}
