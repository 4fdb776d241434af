// Adding a congestion control from outside the library (docs/EXTENDING.md, "A congestion
// control"): a controller defined and registered in this test binary only, which declares no
// Mtu attribute (the QP gives the MTU to Init) and paces (MrcCongestionControl::OnSent and
// SetNotBefore), is chosen by its type name through the QP's attribute and through a scenario;
// the sender honours its pace: consecutive data packets leave at least its gap apart.
#include "models/mrc/mrc-congestion-control.h"
#include "models/mrc/mrc-connect.h"
#include "sim/run/scenario-run.h"
#include "tests/models/fabric-test-fixture.h"

#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <vector>

namespace
{

using namespace ns3;

/// The test's controller: a fixed window of `WindowPackets` MTUs, and one data packet per `Gap`.
class PacedWindowCc : public MrcCongestionControl
{
public:
  static TypeId GetTypeId()
  {
    static TypeId tid = TypeId("ns3::test::PacedWindowCc")
                          .SetParent<MrcCongestionControl>()
                          .AddConstructor<PacedWindowCc>()
                          .AddAttribute("Gap",
                                        "Time between the starts of two data packets.",
                                        TimeValue(MicroSeconds(2)),
                                        MakeTimeAccessor(&PacedWindowCc::m_gap),
                                        MakeTimeChecker(Time(0)))
                          .AddAttribute("WindowPackets",
                                        "Window, in MTUs.",
                                        UintegerValue(64),
                                        MakeUintegerAccessor(&PacedWindowCc::m_packets),
                                        MakeUintegerChecker<uint32_t>(1));
    return tid;
  }
  PacedWindowCc() { EnablePacing(); }

  void Init(const MrcCcPath& path) override
  {
    m_window = uint64_t(m_packets) * path.mtu;
    s_paths.push_back(path);
  }
  uint64_t GetWindow() const override { return m_window; }
  void OnAck(uint64_t bytes, Time rtt, bool ecn) override { s_ackedBytes += bytes; }
  void OnTrim() override {}
  void OnLoss() override {}
  void OnSent(uint32_t bytes, Time now) override
  {
    ++s_sent;
    SetNotBefore(now + m_gap);
  }

  static inline std::vector<MrcCcPath> s_paths; ///< what each instance's Init was given
  static inline uint64_t s_ackedBytes = 0;
  static inline uint64_t s_sent = 0;
  static void Clear()
  {
    s_paths.clear();
    s_ackedBytes = 0;
    s_sent = 0;
  }

private:
  Time m_gap;
  uint32_t m_packets = 0;
  uint64_t m_window = 0;
};

NS_OBJECT_ENSURE_REGISTERED(PacedWindowCc);

/// Send times of a 64-packet message from GPU 0 to GPU 5, paced at `gap`.
std::vector<Time>
SendTimes(Time gap)
{
  using namespace mrcsim::test;
  PacedWindowCc::Clear();
  ScopedDefault cc("ns3::MrcQueuePair::CongestionControl",
                   StringValue("ns3::test::PacedWindowCc"),
                   StringValue("ns3::NsccCongestionControl"));
  ScopedDefault pace("ns3::test::PacedWindowCc::Gap", TimeValue(gap), TimeValue(MicroSeconds(2)));
  FabricFixture f(TinyMultiplane());
  auto qp = ConnectMrc(*f.net, 0, 5);
  std::vector<Time> sent;
  qp.first->TraceConnectWithoutContext(
    "DataSent",
    MakeBoundCallback(+[](std::vector<Time>* s, uint32_t, uint32_t, uint16_t, int, bool)
                      { s->push_back(Simulator::Now()); },
                      &sent));
  uint64_t completed = 0;
  qp.first->TraceConnectWithoutContext(
    "SendComplete",
    MakeBoundCallback(+[](uint64_t* n, uint32_t, uint64_t, uint64_t, Time) { ++*n; }, &completed));
  qp.first->PostWrite(64 * 4096);
  Simulator::Run();
  REQUIRE(completed == 1);
  REQUIRE(DynamicCast<PacedWindowCc>(qp.first->GetCongestionControl()));
  return sent;
}

} // namespace

TEST_CASE("extending: a test-only pacing congestion control spaces the data packets as it asks",
          "[extending][cc]")
{
  const Time gap = MicroSeconds(2);
  const std::vector<Time> paced = SendTimes(gap);
  REQUIRE(paced.size() == 64); // no loss on an idle fabric: every packet once
  for (size_t i = 1; i < paced.size(); ++i)
  {
    INFO("packet " << i);
    CHECK(paced[i] - paced[i - 1] >= gap);
    // Not later than asked either: the NIC comes back at the time the controller named, with
    // both ports idle (the NIC's port visit, not a new event per packet).
    CHECK(paced[i] - paced[i - 1] == gap);
  }
  // Init had what the contract promises: the NIC's MTU, its line rate over both planes, a base RTT.
  REQUIRE(PacedWindowCc::s_paths.size() == 1); // the receiving QP sends nothing and is never set up
  CHECK(PacedWindowCc::s_paths[0].mtu == 4096);
  CHECK(PacedWindowCc::s_paths[0].lineRate.GetBitRate() == 200000000000ULL);
  CHECK(PacedWindowCc::s_paths[0].baseRtt > MicroSeconds(4));
  CHECK(PacedWindowCc::s_sent == 64);
  CHECK(PacedWindowCc::s_ackedBytes > 64 * 4096); // every packet acknowledged, headers counted

  // Without a gap the same window goes at the line rate of the two ports: the spacing was the
  // controller's doing.
  const std::vector<Time> unpaced = SendTimes(Time(0));
  REQUIRE(unpaced.size() == 64);
  CHECK(unpaced.back() - unpaced.front() < (paced.back() - paced.front()) / 4);
}

TEST_CASE("extending: a scenario names a test-only congestion control in its transport attributes",
          "[extending][cc]")
{
  PacedWindowCc::Clear();
  const mrcsim::ScenarioSpec spec = mrcsim::ParseScenario(nlohmann::json::parse(R"({
    "name": "extending-cc", "seed": 1, "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc", "attributes": {"ns3::MrcQueuePair::CongestionControl": "ns3::test::PacedWindowCc",
                                                 "ns3::test::PacedWindowCc::Gap": "1us"}}],
    "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 4, "stride": 16}, "bytes": 131072}]})"),
                                                  "<test>");
  mrcsim::ScenarioRunOptions options;
  options.progress = false;
  options.partitions = 1; // the controller's counters are not shared between threads
  const mrcsim::ScenarioResult r = mrcsim::RunScenario(spec, options);
  REQUIRE_FALSE(r.partial);
  const nlohmann::json& run = r.summary["runs"][0];
  CHECK(run["messages"]["completed"].get<uint64_t>() == 4);
  CHECK(PacedWindowCc::s_paths.size() == 4); // one per sending QP
  CHECK(PacedWindowCc::s_sent == run["counters"]["data_packets_sent"].get<uint64_t>());
  // 32 packets a QP, one per microsecond: no message can end before 31 us.
  CHECK(run["completion_us"].get<double>() > 31.0);
}
