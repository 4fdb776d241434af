// How runs end: on completion, when no progress is possible, on their limits and on signals,
// whatever the sampling interval; messages on QPs in error fail; large messages; bounded input;
// results files complete or absent, their numbers written in full.
#include "sim/run/output-file.h"
#include "sim/run/run-watchdog.h"
#include "sim/run/scenario-run.h"
#include "sim/run/transport-run.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace mrcsim;

namespace
{

ScenarioSpec
Scenario(const std::string& body, const std::vector<std::string>& overrides = {})
{
  nlohmann::json doc = nlohmann::json::parse(R"({"name": "t", "seed": 3, "topology": {"preset": "multiplane-64"}, )" +
                                             body + "}");
  return ParseScenario(doc, "limits.json", overrides);
}

ScenarioResult
Run(const ScenarioSpec& spec, const std::string& outDir = "")
{
  ScenarioRunOptions options;
  options.progress = false;
  options.outDir = outDir;
  return RunScenario(spec, options);
}

const nlohmann::json&
FirstRun(const ScenarioResult& r)
{
  return r.summary["runs"][0];
}

/// RoCEv2 all-to-all of GPUs 0, 1 (under T0 0) and 32, 33 (under T0 1), `qps` QPs per
/// connection; plane 0's T0 0 dies at 2 us.
ScenarioSpec
DeadT0(uint32_t qps)
{
  return Scenario(R"("transport": {"type": "rocev2", "qps_per_connection": )" + std::to_string(qps) + R"(},
                     "workloads": [{"type": "all_to_all", "gpus": [0, 1, 32, 33], "bytes": 65536}],
                     "failures": [{"type": "switch_down", "at_us": 2, "plane": 0, "tier": 0, "index": 0}])");
}

} // namespace

TEST_CASE("limits: a RoCEv2 run with a dead T0 ends when no progress is possible, its messages counted", "[limits]")
{
  // One QP per connection, on plane 0 (DeadT0). Pairs across the T0s never finish: their QPs
  // retry 7 times and go into error, and their messages fail; then no event is left.
  const nlohmann::json run = FirstRun(Run(DeadT0(1)));
  CHECK(run["partial"].get<bool>());
  const std::string reason = run["stop_reason"];
  CHECK(reason.rfind("no progress possible: ", 0) == 0);
  const auto& m = run["messages"];
  CHECK(m["failed"].get<uint64_t>() > 0);
  CHECK(m["count"].get<uint64_t>() == 12);
  CHECK(m["completed"].get<uint64_t>() >= 2); // pairs inside one T0
  CHECK(m["completed"].get<uint64_t>() + m["failed"].get<uint64_t>() <= 12);
  CHECK(reason.find(std::to_string(m["failed"].get<uint64_t>()) + " message(s) failed on QPs in error") !=
        std::string::npos);
  CHECK(run["counters"]["qp_errors"].get<uint64_t>() > 0);
  // Retry exhaustion ends it, not the (default) simulated-time limit.
  CHECK(run["stopped_at_us"].get<double>() < StopSpec::kDefaultSimTimeUs / 2);
}

TEST_CASE("limits: a message split over QPs fails once when one of its parts does", "[limits]")
{
  // As above with four QPs per connection: a message is split over them, and where one of its
  // parts is on a QP that goes into error it fails, once, however many of its parts fail; its
  // other parts may still complete. Every message ends, one way or the other, and is counted once.
  const nlohmann::json run = FirstRun(Run(DeadT0(4)));
  const auto& m = run["messages"];
  CHECK(m["count"].get<uint64_t>() == 12);
  CHECK(m["failed"].get<uint64_t>() > 0);
  CHECK(m["completed"].get<uint64_t>() > 0);
  CHECK(m["completed"].get<uint64_t>() + m["failed"].get<uint64_t>() == 12);
}

TEST_CASE("limits: completion ends a run at once, whatever the sampling interval", "[limits]")
{
  const ScenarioSpec spec = Scenario(R"("transport": {"type": "mrc"},
    "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 4, "stride": 16}, "bytes": 65536}],
    "outputs": {"sample_interval_us": 1e6})");
  const ScenarioResult r = Run(spec);
  const nlohmann::json& run = FirstRun(r);
  CHECK_FALSE(r.partial);
  CHECK(run["stop_reason"] == "all work done");
  // The run stops with its last message (plus its completion latency), not at the next sample.
  CHECK(run["stopped_at_us"].get<double>() == Approx(run["completion_us"].get<double>()).margin(1e-3));
  // One sample: the partial interval up to the end.
  CHECK(r.transports[0].series.timeUs.size() == 8);
}

TEST_CASE("limits: the wall-time limit and signals stop a run between samples", "[limits]")
{
  const std::string body = R"("transport": {"type": "mrc"},
    "workloads": [{"type": "all_to_all", "gpus": "all", "bytes": 16777216}],
    "outputs": {"sample_interval_us": 1e6})";
  {
    const ScenarioResult r = Run(Scenario(body + R"(, "stop": {"wall_time_s": 0.2})"));
    CHECK(r.partial);
    CHECK(FirstRun(r)["stop_reason"] == "wall_time limit");
    CHECK(FirstRun(r)["stopped_at_us"].get<double>() < 1e6); // long before the first sample
  }
  {
    ClearStopRequest();
    std::thread signal(
      []
      {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        RequestStop();
      });
    const ScenarioResult r = Run(Scenario(body));
    signal.join();
    ClearStopRequest();
    CHECK(r.partial);
    CHECK(FirstRun(r)["stop_reason"] == "interrupted");
    CHECK(FirstRun(r)["stopped_at_us"].get<double>() < 1e6);
  }
}

TEST_CASE("limits: the wall-time limit is the scenario's, all transports together", "[limits]")
{
  const ScenarioResult r = Run(Scenario(R"("transport": [{"type": "mrc"}, {"type": "rocev2"}],
    "workloads": [{"type": "all_to_all", "gpus": "all", "bytes": 16777216}], "stop": {"wall_time_s": 2})"));
  REQUIRE(r.summary["runs"].size() == 2);
  const auto& first = r.summary["wall_clock"][0];
  const auto& second = r.summary["wall_clock"][1];
  CHECK(r.summary["runs"][1]["stop_reason"] == "wall_time limit");
  // The second transport starts past the deadline: it stops at its first check (20 ms) after
  // its set-up, not after a wall-time limit of its own.
  CHECK(first["seconds"].get<double>() >= 2);
  CHECK(second["seconds"].get<double>() < 1.5);
}

TEST_CASE("limits: a message above the largest RDMA write completes in its time", "[limits]")
{
  // 4 GiB + 1 byte: posted as two 2 GiB writes and one of 1 byte (a 32-bit DMA length once made
  // it a 1-byte message, complete in 4 us).
  const ScenarioSpec spec = Scenario(R"("transport": {"type": "mrc"},
    "workloads": [{"type": "incast", "gpus": [0, 16], "receiver": 0, "senders": 1, "bytes": 4294967297}])");
  const nlohmann::json run = FirstRun(Run(spec));
  REQUIRE(run["messages"]["completed"] == 1);
  const double ideal = run["collectives"][0]["ideal_us"];
  CHECK(ideal > 42000); // 4 GiB over 8 x 100G
  CHECK(run["messages"]["time_us"]["max"].get<double>() >= ideal);
  CHECK(run["messages"]["time_us"]["max"].get<double>() < 1.02 * ideal);
}

TEST_CASE("limits: random failures and traffic beyond their bounds are refused before the run", "[limits]")
{
  const std::string workload =
    R"("transport": {"type": "mrc"}, "workloads": [{"type": "permutation", "gpus": [0, 16], "bytes": 4096}])";
  CHECK_THROWS_WITH(
    Run(Scenario(workload +
                 R"(, "failures": [{"type": "random_links", "at_us": 0, "link_class": "t0-t1", "mtbf_us": 1e-3,
                                    "mttr_us": 1, "until_us": 1e6}])")),
    Catch::StartsWith("limits.json: at /failures/0/mtbf_us:") && Catch::Contains("at most 1e7"));
  CHECK_THROWS_WITH(Run(Scenario(R"("transport": {"type": "mrc"}, "workloads": [{"type": "random", "gpus": "all",
                                    "bytes": 1, "load": 1, "duration_us": 1e6}])")),
                    Catch::StartsWith("limits.json: at /workloads/0/load:") && Catch::Contains("at most 5e7"));
}

TEST_CASE("limits: results files are complete or absent, and failed writes are errors", "[limits]")
{
  CHECK_THROWS_WITH(WriteOutputFile("/dev/full", std::string(1 << 20, 'x')), Catch::StartsWith("cannot write /dev/full"));
  const auto dir = std::filesystem::temp_directory_path() / "mrcsim-output-file-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "a-directory");
  CHECK_THROWS_WITH(WriteOutputFile((dir / "a-directory").string(), "x"), Catch::Contains("it is a directory"));
  {
    OutputFile f((dir / "x.csv").string());
    f << "partial";
    // Not committed (the run threw): no file, no temporary left.
  }
  CHECK_FALSE(std::filesystem::exists(dir / "x.csv"));
  CHECK_FALSE(std::filesystem::exists(dir / "x.csv.tmp"));
  WriteOutputFile((dir / "y.json").string(), "{}\n");
  std::ifstream in(dir / "y.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "{}\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("limits: results files carry every digit of a number; an idle stretch keeps its last sample", "[limits]")
{
  const auto dir = std::filesystem::temp_directory_path() / "mrcsim-output-digits-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    OutputFile f((dir / "n.csv").string());
    f << 100002.0704 << "," << 100000.0 << "," << 0.1 << "," << 1e-300 << "," << 1.0 / 3 << "\n";
    f.Commit();
  }
  std::ifstream in(dir / "n.csv");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "100002.0704,100000,0.1,1e-300,0.3333333333333333\n");

  // A message posted 100 ms in: its times in messages.csv are the summary's, to the last digit
  // (six significant digits wrote 100002.0704 as 100002).
  const ScenarioSpec late = Scenario(R"("transport": {"type": "mrc"},
                                        "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 2},
                                                       "bytes": 4096, "start_us": 100000}],
                                        "outputs": {"sample_interval_us": 1000})");
  ScenarioRunOptions options;
  options.progress = false;
  options.outDir = (dir / "three").string();
  options.partitions = 3;
  const nlohmann::json threePartitions = RunScenario(late, options).summary["files"];
  options.partitions = 1;
  options.outDir = dir.string();
  const ScenarioResult r = RunScenario(late, options);
  CHECK(r.summary["files"] == threePartitions); // the same rows, skipped samples included
  const double completion = FirstRun(r)["completion_us"].get<double>();
  CHECK(completion > 100000);
  std::ifstream csv(dir / "mrc" / "messages.csv");
  std::string header, row;
  std::getline(csv, header);
  double latestDone = 0;
  while (std::getline(csv, row))
  {
    std::vector<std::string> cells;
    std::stringstream cellStream(row);
    for (std::string cell; std::getline(cellStream, cell, ',');)
      cells.push_back(cell);
    REQUIRE(cells.size() >= 7);
    CHECK(cells[4] == "100000");                                                     // posted_us
    CHECK(std::stod(cells[5]) - std::stod(cells[4]) == Approx(std::stod(cells[6]))); // done - posted = time
    latestDone = std::max(latestDone, std::stod(cells[5]));
  }
  CHECK(latestDone == completion);

  // Nothing is pending until the workload starts: of that idle stretch the time series keeps the
  // first two samples (the second reads rates of zero) and the last one before the start (which
  // reads what the others would have).
  std::ifstream series(dir / "mrc" / "timeseries.csv");
  std::getline(series, header);
  std::vector<double> idleSamples;
  while (std::getline(series, row))
  {
    const double t = std::stod(row.substr(0, row.find(',')));
    if (t < 100000 && (idleSamples.empty() || idleSamples.back() != t))
      idleSamples.push_back(t);
  }
  CHECK(idleSamples == std::vector<double>{ 1000, 2000, 99000 });
  std::filesystem::remove_all(dir);
}
