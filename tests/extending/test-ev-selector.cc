// Adding an EV selector from outside the library (docs/EXTENDING.md, "An EV selector"): a
// selector defined and registered in this test binary only is chosen by its type name, through
// the QP's attribute and through a scenario's transport attributes, and every data packet goes
// on the EV it picked.
#include "models/mrc/ev-selector.h"
#include "models/mrc/mrc-connect.h"
#include "sim/run/scenario-run.h"
#include "tests/models/fabric-test-fixture.h"

#include "ns3/log.h"
#include "ns3/string.h"

#include <catch2/catch.hpp>

#include <set>
#include <utility>
#include <vector>

namespace
{

using namespace ns3;

/// The test's policy: the last GOOD EV among the port's candidates (SKIP ones passed on the way
/// recover, as the contract asks). Every pick is logged, so the test can tell it was used.
class LastGoodEvSelector : public EvSelector
{
public:
  static TypeId GetTypeId()
  {
    static TypeId tid =
      TypeId("ns3::test::LastGoodEvSelector").SetParent<EvSelector>().AddConstructor<LastGoodEvSelector>();
    return tid;
  }

  int Select(MrcEvStates& evs, MrcEvIds candidates, int port) override
  {
    for (auto it = candidates.rbegin(); it != candidates.rend(); ++it)
    {
      if (evs[*it] == EvState::Skip)
      {
        Recover(evs, *it);
      }
      if (evs[*it] == EvState::Good)
      {
        s_picks.emplace_back(port, *it);
        return *it;
      }
    }
    return -1;
  }
  void OnFeedback(uint16_t, EvFeedback) override { ++s_feedback; }
  void SetStream(uint64_t stream) override { s_streams.insert(stream); }

  static inline std::vector<std::pair<int, uint16_t>> s_picks; ///< (port, EV) per Select
  static inline uint64_t s_feedback = 0;
  static inline std::set<uint64_t> s_streams; ///< the QPs that made one
  static void Clear()
  {
    s_picks.clear();
    s_feedback = 0;
    s_streams.clear();
  }
};

NS_OBJECT_ENSURE_REGISTERED(LastGoodEvSelector);

} // namespace

using namespace mrcsim;
using namespace mrcsim::test;

TEST_CASE("extending: a test-only EV selector chosen by name picks the EV of every data packet", "[extending][ev]")
{
  LastGoodEvSelector::Clear();
  ScopedDefault selector("ns3::MrcQueuePair::EvSelector",
                         StringValue("ns3::test::LastGoodEvSelector"),
                         StringValue("ns3::RoundRobinEvSelector"));
  FabricFixture f(TinyMultiplane());
  auto qp = ConnectMrc(*f.net, 0, 5);
  std::vector<std::pair<int, uint16_t>> sent; // (plane, EV) of every data packet
  qp.first->TraceConnectWithoutContext(
    "DataSent",
    MakeBoundCallback(+[](std::vector<std::pair<int, uint16_t>>* s, uint32_t, uint32_t, uint16_t ev, int plane,
                          bool) { s->emplace_back(plane, ev); },
                      &sent));
  uint64_t completed = 0;
  qp.first->TraceConnectWithoutContext(
    "SendComplete",
    MakeBoundCallback(+[](uint64_t* n, uint32_t, uint64_t, uint64_t, Time) { ++*n; }, &completed));
  qp.first->PostWrite(1 << 20);
  Simulator::Run();
  REQUIRE(completed == 1);
  // Each data packet went on the EV the selector picked for it, in order.
  REQUIRE(sent.size() == LastGoodEvSelector::s_picks.size());
  std::set<uint16_t> used;
  for (size_t i = 0; i < sent.size(); ++i)
  {
    CHECK(sent[i].second == LastGoodEvSelector::s_picks[i].second);
    CHECK(sent[i].first == qp.first->PlaneOfPort(static_cast<uint16_t>(LastGoodEvSelector::s_picks[i].first)));
    used.insert(sent[i].second);
  }
  // Its policy, not another's: on an idle fabric every EV stays GOOD, so each port used only the
  // last of its active EVs.
  CHECK(used.size() == 2); // TinyMultiplane: two planes
  for (uint16_t port = 0; port < 2; ++port)
  {
    CHECK(used.count(qp.first->ActiveEvs(port).back()) == 1);
  }
  // The QP gave it its stream id and fed SACK echoes back to it.
  CHECK(LastGoodEvSelector::s_streams.size() == 1);
  CHECK(LastGoodEvSelector::s_feedback > 0);
}

TEST_CASE("extending: a scenario names a test-only EV selector in its transport attributes", "[extending][ev]")
{
  LastGoodEvSelector::Clear();
  const ScenarioSpec spec = ParseScenario(nlohmann::json::parse(R"({
    "name": "extending-ev-selector", "seed": 1, "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc", "attributes": {"ns3::MrcQueuePair::EvSelector": "ns3::test::LastGoodEvSelector"}}],
    "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 4, "stride": 16}, "bytes": 262144}]})"),
                                          "<test>");
  ScenarioRunOptions options;
  options.progress = false;
  options.partitions = 1; // the selector's log is not shared between threads
  const ScenarioResult r = RunScenario(spec, options);
  REQUIRE_FALSE(r.partial);
  const nlohmann::json& run = r.summary["runs"][0];
  CHECK(run["messages"]["completed"].get<uint64_t>() == 4);
  CHECK(run["attributes"]["ns3::MrcQueuePair::EvSelector"] == "ns3::test::LastGoodEvSelector");
  // Every data packet of the run went through it.
  CHECK(LastGoodEvSelector::s_picks.size() == run["counters"]["data_packets_sent"].get<uint64_t>());
  CHECK(LastGoodEvSelector::s_streams.size() == 4); // one per sending QP
}
