// The fair-share reference (sim/references/fair-share.h): max-min rates by progressive filling, recomputed
// at every arrival and departure, on cases whose answer is known by hand.
#include "sim/references/fair-share.h"

#include <catch2/catch.hpp>

using namespace mrcsim;

namespace
{
std::vector<double>
Finish(FairShareInput in)
{
  auto t = FairShareFinishTimes(in);
  REQUIRE(t);
  return *t;
}
} // namespace

TEST_CASE("fair share: one flow alone runs at its link's rate", "[fair-share]")
{
  FairShareInput in{ { 100e9 }, { { 2e-6, 100e9 * 3e-6, { 0 } } } };
  CHECK(Finish(in)[0] == Approx(5e-6));
}

TEST_CASE("fair share: flows sharing a link split it; a departure speeds the rest up", "[fair-share]")
{
  // A (1 bit) and B (3 bits) on 1 bit/s: both at 1/2 until A leaves at 2 s; B then has 2 bits
  // left at 1 bit/s.
  FairShareInput in{ { 1.0 }, { { 0, 1, { 0 } }, { 0, 3, { 0 } } } };
  const auto t = Finish(in);
  CHECK(t[0] == Approx(2.0));
  CHECK(t[1] == Approx(4.0));
}

TEST_CASE("fair share: max-min, not proportional: a flow bottlenecked elsewhere leaves its share to others",
          "[fair-share]")
{
  // Link 0 (1 bit/s) carries A and B; link 1 (10 bit/s) carries B and C. B is held to 1/2 by
  // link 0, so C gets 9.5 on link 1 (an equal split of link 1 would give it 5).
  FairShareInput in{ { 1.0, 10.0 }, { { 0, 1, { 0 } }, { 0, 1, { 0, 1 } }, { 0, 9.5, { 1 } } } };
  const auto t = Finish(in);
  CHECK(t[2] == Approx(1.0));
  CHECK(t[0] == Approx(2.0));
  CHECK(t[1] == Approx(2.0));
}

TEST_CASE("fair share: an arrival slows the flows already running", "[fair-share]")
{
  // A: 2 bits from 0 s; B: 1/2 bit from 1 s. A runs alone to 1 s (1 bit left), both at 1/2 to
  // 2 s (B done, A 1/2 left), A alone again to 2.5 s.
  FairShareInput in{ { 1.0 }, { { 0, 2, { 0 } }, { 1, 0.5, { 0 } } } };
  const auto t = Finish(in);
  CHECK(t[1] == Approx(2.0));
  CHECK(t[0] == Approx(2.5));
}

TEST_CASE("fair share: flows of no bits or no links finish when they start", "[fair-share]")
{
  FairShareInput in{ { 1.0 }, { { 3, 0, { 0 } }, { 4, 5, {} }, { 0, 1, { 0 } } } };
  const auto t = Finish(in);
  CHECK(t[0] == 3);
  CHECK(t[1] == 4);
  CHECK(t[2] == Approx(1.0));
}

TEST_CASE("fair share: a permutation over shared uplinks, and the same input gives the same times",
          "[fair-share]")
{
  // 16 flows of 1 Mb over 4 uplinks of 1 Gb/s, flow i on uplink i % 4 and its own 1 Gb/s NIC
  // link (4 + i): 4 flows per uplink, each at 250 Mb/s.
  FairShareInput in;
  in.capacityBps.assign(20, 1e9);
  for (uint32_t i = 0; i < 16; ++i)
    in.flows.push_back({ 0, 1e6, { i % 4, 4 + i } });
  const auto t = Finish(in);
  for (double x : t)
    CHECK(x == Approx(4e-3));
  CHECK(Finish(in) == t);
}

TEST_CASE("fair share: past its work limit the reference is not computed", "[fair-share]")
{
  FairShareInput in{ { 1.0 }, { { 0, 1, { 0 } }, { 0, 2, { 0 } } } };
  in.workLimit = 1;
  CHECK_FALSE(FairShareFinishTimes(in));
}

// ---- the reference of a run (sim/references/fair-reference.h) ----------------------------------------------

#include "sim/run/scenario-run.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace
{
nlohmann::json
RunSummary(const std::string& scenario, const std::string& outDir = "")
{
  ScenarioRunOptions options;
  options.progress = false;
  options.outDir = outDir;
  return RunScenario(ParseScenario(nlohmann::json::parse(scenario), "<test>"), options).summary;
}

/// The smallest time_us / fair_us of a messages.csv.
double
MinFairSlowdown(const std::filesystem::path& csv)
{
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "workload,src,dst,bytes,posted_us,done_us,time_us,ideal_us,slowdown,fair_us");
  double least = 1e300;
  while (std::getline(in, line))
  {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');)
      cells.push_back(cell);
    REQUIRE(cells.size() == 10);
    least = std::min(least, std::stod(cells[6]) / std::stod(cells[9]));
  }
  return least;
}
} // namespace

TEST_CASE("fair reference: a message alone on an idle fabric has its ideal time, on either transport",
          "[fair-share]")
{
  // One 1 MiB write: MRC's flow has the whole NIC; RoCEv2's 8 QPs each a plane of it.
  const auto s = RunSummary(R"({"name": "alone", "seed": 1, "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc"}, {"type": "rocev2", "qps_per_connection": 8}],
    "workloads": [{"type": "incast", "gpus": [0, 63], "receiver": 63, "senders": 1, "bytes": 1048576}]})");
  for (const auto& run : s["runs"])
  {
    INFO(run["label"]);
    REQUIRE(run["fair_us"].is_number());
    const double ideal = run["messages"]["time_us"]["max"].get<double>() / run["messages"]["slowdown"]["max"].get<double>();
    CHECK(run["fair_us"].get<double>() == Approx(ideal).epsilon(1e-6));
    CHECK(run["fair_reference"]["flows"] == (run["transport"] == "mrc" ? 1 : 8));
    CHECK(run["fair_reference"]["paths"] == (run["transport"] == "mrc" ? "spray" : "ecmp"));
  }
}

TEST_CASE("fair reference: RoCEv2 flows hashed onto one uplink share it; MRC's spray does not", "[fair-share]")
{
  // GPU i under T0 0 and GPU 16 + i under T0 1 swap 4 MiB (16 pairs), a QP per plane: on each
  // plane 16 flows leave T0 0 over its 16 uplinks, hashed, so some share one (all 16 on distinct
  // uplinks has odds of 16!/16^16, about 1e-6). The RoCEv2 reference is above the ideal, which
  // MRC's spray reaches.
  nlohmann::json workloads = nlohmann::json::array();
  for (int i = 0; i < 16; ++i)
    workloads.push_back({ { "type", "permutation" }, { "name", "swap" + std::to_string(i) },
                          { "gpus", { i, 16 + i } }, { "bytes", 4194304 } });
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "mrcsim-test-fair-reference";
  std::filesystem::remove_all(dir);
  const auto s = RunSummary(R"({"name": "collide", "seed": 1, "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc"}, {"type": "rocev2", "qps_per_connection": 8}], "workloads": )" + workloads.dump() + "}",
                            dir.string());
  const auto& mrc = s["runs"][0];
  const auto& roce = s["runs"][1];
  CHECK(roce["fair_us"].get<double>() > 1.2 * mrc["fair_us"].get<double>());
  CHECK(roce["messages"]["fair_slowdown"]["count"] == roce["messages"]["completed"]);
  // MRC's flows are alone on their NICs: none finishes before its fair (here ideal) time.
  CHECK(MinFairSlowdown(dir / "mrc" / "messages.csv") > 0.999);
  std::filesystem::remove_all(dir);
}
