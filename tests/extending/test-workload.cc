// Adding a workload type from outside the library (docs/EXTENDING.md, "A workload"): a type
// defined and registered in this test binary only, with keys of its own, is named by a scenario,
// its keys are checked like the built-in types', and it runs on both transports.
#include "sim/run/scenario-run.h"
#include "sim/workloads/workload-types.h"

#include "ns3/simulator.h"

#include <catch2/catch.hpp>

#include <string>

namespace
{

using namespace mrcsim;

/// The test's settings: what `"bytes_each"` and `"rounds"` say.
struct PingPongParams : TypeParams
{
  uint64_t bytes = 0;
  uint32_t rounds = 0;
};

/// Two GPUs send a message back and forth: the next one leaves when the last one arrived. Each
/// message's ideal is its own (IdealModel::MessageTime), so the sum is the exchange's lower bound.
class PingPongWorkload : public Workload
{
public:
  PingPongWorkload(const WorkloadSpec& spec, const PingPongParams& p, const IdealModel& ideal)
    : Workload(spec.name)
    , m_a(spec.gpus.gpus[0])
    , m_b(spec.gpus.gpus[1])
    , m_bytes(p.bytes)
    , m_rounds(p.rounds)
    , m_start(MicrosecondsToTime(spec.startUs))
    , m_ideal(ideal)
  {
  }

  void Start(MessageService& service) override
  {
    m_service = &service;
    ns3::Simulator::Schedule(m_start, &PingPongWorkload::Post, this);
  }
  bool Done() const override { return m_done == 2 * m_rounds; }
  uint64_t BytesPosted() const override { return m_posted * m_bytes; }
  uint64_t BytesTotal() const override { return 2 * uint64_t(m_rounds) * m_bytes; }

private:
  void Post()
  {
    const bool there = m_posted % 2 == 0;
    const uint32_t src = there ? m_a : m_b;
    const uint32_t dst = there ? m_b : m_a;
    const std::size_t record = RecordMessage(src, dst, m_bytes, m_ideal.MessageTime(src, dst, m_bytes));
    ++m_posted;
    m_service->Send(src,
                    dst,
                    m_bytes,
                    [this, record]()
                    {
                      m_messages[record].done = ns3::Simulator::Now();
                      if (++m_done < 2 * m_rounds)
                      {
                        Post();
                      }
                    });
  }

  uint32_t m_a;
  uint32_t m_b;
  uint64_t m_bytes;
  uint32_t m_rounds;
  ns3::Time m_start;
  IdealModel m_ideal;
  MessageService* m_service = nullptr;
  uint64_t m_posted = 0;
  uint32_t m_done = 0;
};

void
ParsePingPong(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  if (w.gpus.gpus.size() != 2)
  {
    r.Fail("gpus", "ping_pong needs exactly 2 GPUs, got " + std::to_string(w.gpus.gpus.size()));
  }
  auto p = std::make_shared<PingPongParams>();
  p->bytes = static_cast<uint64_t>(r.Int("bytes_each", 1, int64_t(1) << 40));
  p->rounds = static_cast<uint32_t>(r.Int("rounds", 1, 1000, 1));
  w.params = p;
}

std::unique_ptr<Workload>
MakePingPong(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  return std::make_unique<PingPongWorkload>(spec, ParamsOf<PingPongParams>(spec.params, spec.type), ideal);
}

/// Registered once, before the first scenario of the binary is read.
void
RegisterPingPong()
{
  static const bool once = []
  {
    WorkloadType type;
    type.name = "ping_pong";
    type.description = "two GPUs send a message back and forth (test only)";
    type.keys = { { "bytes_each", KeyUse::Required }, { "rounds" } };
    type.parse = &ParsePingPong;
    type.make = &MakePingPong;
    type.minGpus = 2;
    RegisterWorkloadType(type);
    return true;
  }();
  (void)once;
}

std::string
Scenario(const std::string& workload)
{
  return R"({"name": "extending-workload", "seed": 1, "topology": {"preset": "multiplane-64"},
             "transport": [{"type": "mrc"}, {"type": "rocev2"}],
             "workloads": [)" +
         workload + "]}";
}

ScenarioResult
Run(const std::string& workload)
{
  const ScenarioSpec spec = ParseScenario(nlohmann::json::parse(Scenario(workload)), "<test>");
  ScenarioRunOptions options;
  options.progress = false;
  return RunScenario(spec, options);
}

} // namespace

TEST_CASE("extending: a test-only workload type runs on both transports by its name", "[extending][workload]")
{
  RegisterPingPong();
  const ScenarioResult r =
    Run(R"({"type": "ping_pong", "gpus": [0, 40], "bytes_each": 65536, "rounds": 3, "start_us": 5})");
  REQUIRE_FALSE(r.partial);
  REQUIRE(r.summary["runs"].size() == 2);
  for (const nlohmann::json& run : r.summary["runs"])
  {
    INFO(run["transport"].dump());
    const nlohmann::json& messages = run["messages"];
    CHECK(messages["count"].get<uint64_t>() == 6);
    CHECK(messages["completed"].get<uint64_t>() == 6);
    CHECK(run["traffic"]["fabric"]["bytes"].get<uint64_t>() == 6 * 65536);
    // One message at a time, each posted as the last one arrives: the exchange ends six message
    // times after its start, and no message beats its ideal.
    CHECK(run["completion_us"].get<double>() - 5 ==
          Approx(6 * messages["time_us"]["mean"].get<double>()).epsilon(1e-9));
    CHECK(messages["slowdown"]["mean"].get<double>() >= 1.0);
  }
}

TEST_CASE("extending: a test-only workload type's keys are checked like the built-in types'",
          "[extending][workload]")
{
  RegisterPingPong();
  auto error = [](const std::string& workload)
  {
    try
    {
      ParseScenario(nlohmann::json::parse(Scenario(workload)), "<test>");
    }
    catch (const SpecError& e)
    {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error(R"({"type": "ping_pong", "gpus": [0, 40]})"), Catch::Contains("bytes_each"));
  CHECK_THAT(error(R"({"type": "ping_pong", "gpus": [0, 40, 50], "bytes_each": 1})"),
             Catch::Contains("exactly 2 GPUs"));
  // Its keys belong to it; a built-in type's keys do not.
  CHECK_THAT(error(R"({"type": "permutation", "bytes": 1, "rounds": 2})"),
             Catch::Contains("only allowed for ping_pong"));
  CHECK_THAT(error(R"({"type": "ping_pong", "gpus": [0, 40], "bytes_each": 1, "receiver": 0})"),
             Catch::Contains("not for ping_pong"));
  CHECK_THAT(error(R"({"type": "ping_pog", "gpus": [0, 40], "bytes_each": 1})"), Catch::Contains("ping_pong"));
}
