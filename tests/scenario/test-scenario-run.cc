// A whole scenario run (RunScenario, shared by the CLI and the Python module): the summary it
// returns is the one it writes, the in-memory time series are timeseries.csv's rows, and without
// an output directory nothing is written.
#include "sim/run/scenario-run.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mrcsim;

namespace
{

ScenarioSpec
TwoTransports()
{
  return ParseScenario(nlohmann::json::parse(R"({"name": "two", "seed": 4, "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc"}, {"type": "rocev2", "qps_per_connection": 8}],
    "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 4, "stride": 16}, "bytes": 262144}],
    "outputs": {"sample_interval_us": 2.5}})"),
                       "<test>");
}

std::vector<std::vector<double>>
ReadCsv(const std::string& file)
{
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line))
  {
    std::istringstream row(line);
    std::string cell;
    rows.emplace_back();
    while (std::getline(row, cell, ','))
      rows.back().push_back(std::stod(cell));
  }
  return rows;
}

} // namespace

TEST_CASE("scenario run: summary and files, time series in memory as in the CSV", "[run]")
{
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "mrcsim-test-scenario-run";
  std::filesystem::remove_all(dir);
  ScenarioRunOptions options;
  options.outDir = dir.string();
  options.progress = false;
  const ScenarioSpec spec = TwoTransports();
  ScenarioResult r = RunScenario(spec, options);
  REQUIRE_FALSE(r.partial);
  REQUIRE(r.transports.size() == 2);
  CHECK(r.summary["runs"].size() == 2);
  CHECK(r.summary["fabric"]["gpus"].get<uint64_t>() == 64);
  CHECK(r.summary["scenario_hash"].get<std::string>() == ScenarioHash(spec.document));
  std::ifstream written(dir / "summary.json");
  CHECK(nlohmann::json::parse(written) == r.summary);

  for (const TransportResult& t : r.transports)
  {
    const TimeSeries& s = t.series;
    const auto rows = ReadCsv((dir / t.summary["label"].get<std::string>() / "timeseries.csv").string());
    REQUIRE(rows.size() == s.timeUs.size());
    REQUIRE(!rows.empty());
    CHECK(s.plane.size() == rows.size());
    CHECK(s.goodputGbps.size() == rows.size());
    CHECK(s.uplinkUtilisation.size() == rows.size());
    double delivered = 0; // bytes delivered to the GPUs: the payload, plus headers and control
    const size_t last = rows.size() / 8 - 1;
    for (size_t i = 0; i < rows.size(); ++i)
    {
      // Samples every 2.5 us, one row per plane, and a last one for the partial interval up to
      // the run's end.
      const size_t sample = i / 8;
      if (sample < last)
        CHECK(s.timeUs[i] == Approx(2.5 * double(sample + 1)));
      else
        CHECK(s.timeUs[i] > 2.5 * double(sample));
      CHECK(s.timeUs[i] <= 2.5 * double(sample + 1));
      CHECK(rows[i][0] == Approx(s.timeUs[i]).epsilon(1e-5));
      CHECK(rows[i][1] == s.plane[i]);
      CHECK(s.plane[i] == int32_t(i % 8));
      CHECK(rows[i][2] == Approx(s.goodputGbps[i]).epsilon(1e-5));
      CHECK(rows[i][3] == Approx(s.uplinkUtilisation[i]).epsilon(1e-5));
      const double dtUs = s.timeUs[i] - 2.5 * double(sample);
      delivered += s.goodputGbps[i] * 1e9 / 8 * dtUs * 1e-6;
    }
    CHECK(s.timeUs.back() * 1e-6 == Approx(t.summary["stopped_at_us"].get<double>() * 1e-6));
    CHECK(delivered >= 4 * 262144.0);
    CHECK(delivered < 1.2 * 4 * 262144.0);
  }
  std::filesystem::remove_all(dir);

  // No output directory: the same results, no files.
  options.outDir.clear();
  ScenarioResult again = RunScenario(spec, options);
  CHECK(r.summary["files"].size() == 3 * 2);
  CHECK(again.summary["files"].empty());
  CHECK(again.summary["run_id"] != r.summary["run_id"]);
  for (auto* s : { &r.summary, &again.summary })
    for (const char* key : { "wall_clock", "run_id", "files" })
      s->erase(key);
  CHECK(again.summary == r.summary);
  CHECK(again.transports[1].series.goodputGbps == r.transports[1].series.goodputGbps);
  CHECK_FALSE(std::filesystem::exists(dir));
}
