// One writer per results directory (OutputDirectoryLock), unique temporaries (OutputFile) and
// the digest summary.json keeps of each CSV (DigestCsvFile).
#include "sim/run/output-directory-lock.h"
#include "sim/run/output-file.h"
#include "sim/run/scenario-run.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace mrcsim;

namespace
{

std::filesystem::path
FreshDir(const std::string& name)
{
  const auto dir = std::filesystem::temp_directory_path() / ("mrcsim-lock-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

} // namespace

TEST_CASE("results directory lock: one holder at a time, also within a process", "[output]")
{
  const auto dir = FreshDir("hold");
  {
    OutputDirectoryLock first(dir.string());
    CHECK(first.Held());
    CHECK(std::filesystem::exists(dir / OutputDirectoryLock::kFileName));
    CHECK(first.Covers(dir.string() + "/."));
    CHECK_THROWS_AS(OutputDirectoryLock(dir.string()), OutputDirectoryBusy);
    CHECK_THROWS_WITH(OutputDirectoryLock(dir.string()),
                      Catch::Contains("results directory " + dir.string() + " is in use") &&
                        Catch::Contains("another mrcsim run"));
    first.Release();
    CHECK_FALSE(first.Held());
    OutputDirectoryLock second(dir.string());
    CHECK(second.Held());
  }
  OutputDirectoryLock again(dir.string()); // the destructor let it go
  std::filesystem::remove_all(dir);
}

TEST_CASE("run ids differ from run to run", "[output]")
{
  const std::string a = NewRunId();
  const std::string b = NewRunId();
  CHECK(a != b);
  CHECK(a.size() > 20);
}

TEST_CASE("output files: unique temporaries, and the CSV digest", "[output]")
{
  const auto dir = FreshDir("files");
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.csv").string();
  OutputFile one(path);
  OutputFile two(path); // two writers of one name never share a temporary
  one << "a,b\n1,2\n";
  two << "a,b\n";
  size_t temporaries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    temporaries += IsOutputTemporary(entry.path().filename().string());
  CHECK(temporaries == 2);
  two.Commit();
  one.Commit();
  const CsvDigest d = DigestCsvFile(path);
  CHECK(d.rows == 1);
  CHECK(d.bytes == 8);
  CHECK(d.crc32 == 0x0a97077bu); // zlib.crc32(b"a,b\n1,2\n")
  CHECK_FALSE(IsOutputTemporary("t.csv"));
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("scenario run: a second run into a held directory fails before touching it", "[output]")
{
  const auto dir = FreshDir("run");
  const ScenarioSpec spec = ParseScenario(nlohmann::json::parse(R"({"name": "held", "topology": {"preset":
    "multiplane-64"}, "transport": {"type": "mrc"}, "workloads": [{"type": "permutation", "gpus": [0, 1],
    "bytes": 4096}]})"),
                                          "<test>");
  ScenarioRunOptions options;
  options.outDir = dir.string();
  options.progress = false;
  OutputDirectoryLock held(dir.string());
  std::ofstream(dir / "summary.json") << "{}\n";
  CHECK_THROWS_AS(RunScenario(spec, options), OutputDirectoryBusy);
  CHECK(std::filesystem::file_size(dir / "summary.json") == 3); // not removed
  // Under the caller's lock (the Python module's way) the run goes ahead.
  options.lock = &held;
  const ScenarioResult r = RunScenario(spec, options);
  CHECK(r.summary["files"].size() == 3);
  CHECK(r.summary["files"]["mrc/messages.csv"]["rows"] == 2);
  std::filesystem::remove_all(dir);
}
