// Adding a transport from outside the library (docs/EXTENDING.md, "A transport"): a BTH-framed
// transport defined in this test binary only, RDMA Write over an Unreliable Connection (IBTA
// Vol. 1, 9.7.5 and 9.8.4: no acknowledgements, no retransmission; a message that loses a packet
// is dropped by the responder), registered by name with a key of its own, runs a scenario's
// workload through the same runner, metrics and ideals as MRC and RoCEv2.
#include "sim/network/transport-types.h"
#include "sim/run/scenario-run.h"

#include "models/rdma/rdma-connect.h"
#include "models/rdma/rdma-frame.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/psn.h"
#include "models/wire/udp-entropy.h"

#include "ns3/boolean.h"
#include "ns3/simulator.h"

#include <catch2/catch.hpp>

#include <deque>
#include <string>

namespace
{

using namespace ns3;

/// One QP of an Unreliable Connection: sends each message's packets in order out of one NIC
/// port on one ECMP path, completes a send when its last packet leaves, and places a message at
/// the responder only if every packet of it arrived in order.
class UcQueuePair : public RdmaQueuePair
{
public:
  static TypeId GetTypeId()
  {
    static TypeId tid =
      TypeId("ns3::test::UcQueuePair").SetParent<RdmaQueuePair>().AddConstructor<UcQueuePair>();
    return tid;
  }

  void SetPath(uint16_t port, uint16_t entropy)
  {
    m_port = port;
    m_entropy = entropy;
  }

  uint64_t PostWrite(uint64_t bytes) override
  {
    if (m_messages.empty())
    {
      m_nic->JoinTail(this); // nothing was left to send
    }
    m_messages.push_back(Message{ m_nextId++, bytes, 0, Simulator::Now() });
    m_nic->NotifyReady(m_port);
    return m_messages.back().id;
  }

  FramePtr NextPacket(uint16_t port, Time*) override
  {
    if (port != m_port || m_messages.empty())
    {
      return FramePtr();
    }
    Message& m = m_messages.front();
    const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(m_nic->Mtu(), m.bytes - m.sent));
    const bool first = m.sent == 0;
    const bool last = m.sent + payload == m.bytes;
    FabricPacketSpec spec = DataSpec(m_nic->PlaneOfPort(port), m_entropy, m_psn++, first, last);
    spec.payloadBytes = payload;
    FramePtr frame = MakeWriteFrame(spec, first, m.sent, static_cast<uint32_t>(m.bytes));
    m.sent += payload;
    ++m_counters.packetsSent;
    if (last)
    {
      SendComplete(m.id, m.bytes, m.posted); // UC: complete once sent
      m_messages.pop_front();
    }
    return frame;
  }

  bool WantsPort(uint16_t port) const override { return port == m_port; }

  void Receive(const RdmaRxInfo& info) override
  {
    const FabricFrame& f = info.frame;
    if (!RoceBthHeader::IsRdmaWrite(f.opcode))
    {
      return;
    }
    const bool inOrder = f.psn == (m_expectedPsn & kPsnMask);
    m_expectedPsn = f.psn + 1;
    if (RoceBthHeader::HasStandardReth(f.opcode))
    {
      m_placing = true; // a new message starts
      m_rxBytes = 0;
      m_rxStart = Simulator::Now();
    }
    else if (!inOrder)
    {
      m_placing = false; // a packet of this message was lost: the message is dropped
    }
    if (!m_placing)
    {
      return;
    }
    m_rxBytes += f.PayloadReceived();
    if (RoceBthHeader::IsLastOfMessage(f.opcode))
    {
      RecvComplete(m_rxId++, m_rxBytes, m_rxStart);
      m_placing = false;
    }
  }

  RdmaQpCounters Counters() const override { return m_counters; }

private:
  struct Message
  {
    uint64_t id;
    uint64_t bytes;
    uint64_t sent;
    Time posted;
  };

  uint16_t m_port = 0;
  uint16_t m_entropy = 0;
  std::deque<Message> m_messages;
  uint64_t m_nextId = 0;
  uint64_t m_psn = 0;
  RdmaQpCounters m_counters;
  uint32_t m_expectedPsn = 0;
  bool m_placing = false;
  uint64_t m_rxBytes = 0;
  uint64_t m_rxId = 0;
  Time m_rxStart;
};

NS_OBJECT_ENSURE_REGISTERED(UcQueuePair);

/// The transport's own key: the NIC port (plane) every connection uses.
struct UcParams : mrcsim::TypeParams
{
  uint16_t port = 0;
};

void
ParseUc(mrcsim::JsonReader& r, mrcsim::TransportSpec& t)
{
  auto p = std::make_shared<UcParams>();
  p->port = static_cast<uint16_t>(r.Int("nic_port", 0, 7, 0));
  t.params = p;
}

/// A lossless fabric under it, as RoCE needs: PFC on every port class.
void
ConfigureUcFabric(const mrcsim::FabricPolicyContext& c)
{
  for (const Ptr<PortQueueConfig>& cfg :
       { c.net.GetFabricPortConfig(), c.net.GetLastHopPortConfig(), c.net.GetNicPortConfig() })
  {
    if (!c.userSet.count("PfcEnabled"))
    {
      cfg->SetAttribute("PfcEnabled", BooleanValue(true));
    }
  }
}

mrcsim::Connector
UcConnector(FabricNetwork& net, const mrcsim::TransportSpec& t)
{
  const UcParams& p = mrcsim::ParamsOf<UcParams>(t.params, t.type);
  return [&net, port = p.port](uint32_t a, uint32_t b)
  {
    GetOrCreateNic(net, a);
    GetOrCreateNic(net, b);
    Ptr<UcQueuePair> x = CreateLight<UcQueuePair>();
    Ptr<UcQueuePair> y = CreateLight<UcQueuePair>();
    const uint16_t entropy = EvEntropy::Encode(static_cast<uint16_t>((a * 31 + b) & EvEntropy::kEvMask));
    x->SetPath(port, entropy);
    y->SetPath(port, entropy);
    ConnectQueuePairs(net, a, b, x, y);
    return std::vector<mrcsim::QpPair>{ { x, y } };
  };
}

void
RegisterUc()
{
  static const bool once = []
  {
    mrcsim::TransportType type;
    type.name = "uc";
    type.description = "RDMA Write over an Unreliable Connection, one plane (test only)";
    type.keys = { { "nic_port" } };
    type.parse = &ParseUc;
    type.configureFabric = &ConfigureUcFabric;
    type.connector = &UcConnector;
    mrcsim::RegisterTransportType(type);
    return true;
  }();
  (void)once;
}

/// "uc-unheld": uc whose connector binds its QPs without adding them to their NICs (a mistake a
/// transport could make): the run must say so rather than wait for QPs no NIC serves.
void
RegisterUnheldUc()
{
  static const bool once = []
  {
    mrcsim::TransportType type;
    type.name = "uc-unheld";
    type.description = "uc, its QPs bound but left off their NICs (test only)";
    type.parse = [](mrcsim::JsonReader&, mrcsim::TransportSpec&) {};
    type.configureFabric = &ConfigureUcFabric;
    type.connector = [](FabricNetwork& net, const mrcsim::TransportSpec&) -> mrcsim::Connector
    {
      return [&net](uint32_t a, uint32_t b)
      {
        Ptr<UcQueuePair> x = CreateLight<UcQueuePair>();
        Ptr<UcQueuePair> y = CreateLight<UcQueuePair>();
        x->Bind(PeekPointer(GetOrCreateNic(net, a)), 1, b, 1);
        y->Bind(PeekPointer(GetOrCreateNic(net, b)), 1, a, 1);
        return std::vector<mrcsim::QpPair>{ { x, y } };
      };
    };
    mrcsim::RegisterTransportType(type);
    return true;
  }();
  (void)once;
}

nlohmann::json
Scenario(const std::string& transports)
{
  return nlohmann::json::parse(R"({"name": "extending-transport", "seed": 1, "topology": {"preset": "multiplane-64"},
    "transport": [)" + transports + R"(],
    "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 4, "stride": 16}, "bytes": 262144,
                   "iterations": 2}]})");
}

} // namespace

TEST_CASE("extending: a test-only transport runs a scenario's workload by its name", "[extending][transport]")
{
  RegisterUc();
  mrcsim::ScenarioRunOptions options;
  options.progress = false;
  const mrcsim::ScenarioResult r =
    mrcsim::RunScenario(mrcsim::ParseScenario(Scenario(R"({"type": "uc", "nic_port": 3}, {"type": "rocev2"})"), "<test>"),
                        options);
  REQUIRE_FALSE(r.partial);
  const nlohmann::json& uc = r.summary["runs"][0];
  const nlohmann::json& roce = r.summary["runs"][1];
  CHECK(uc["transport"] == "uc");
  // 2 iterations x 4 messages of 64 packets, each sent once, all placed: an idle fabric with PFC
  // loses nothing.
  CHECK(uc["messages"]["completed"].get<uint64_t>() == 8);
  CHECK(uc["counters"]["data_packets_sent"].get<uint64_t>() == 8 * 64);
  CHECK(uc["counters"]["retransmissions"].get<uint64_t>() == 0);
  CHECK(uc["messages"]["slowdown"]["mean"].get<double>() >= 1.0);
  // The same single path, without acknowledgements to wait for: no slower than RoCEv2's one QP.
  CHECK(uc["completion_us"].get<double>() <= roce["completion_us"].get<double>());
}

TEST_CASE("extending: a test-only transport's keys are checked like the built-in ones'", "[extending][transport]")
{
  RegisterUc();
  auto error = [](const std::string& transports)
  {
    try
    {
      mrcsim::ParseScenario(Scenario(transports), "<test>");
    }
    catch (const mrcsim::SpecError& e)
    {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error(R"({"type": "uc", "nic_port": 8})"), Catch::Contains("nic_port"));
  CHECK_THAT(error(R"({"type": "rocev2", "nic_port": 1})"), Catch::Contains("only allowed for uc"));
  CHECK_THAT(error(R"({"type": "uc", "qps_per_connection": 2})"), Catch::Contains("not for uc"));
}

TEST_CASE("extending: a connector whose QPs no NIC holds is a named error", "[extending][transport]")
{
  RegisterUnheldUc();
  mrcsim::ScenarioRunOptions options;
  options.progress = false;
  CHECK_THROWS_WITH(mrcsim::RunScenario(mrcsim::ParseScenario(Scenario(R"({"type": "uc-unheld"})"), "<test>"), options),
                    Catch::Contains("transport 'uc-unheld'") && Catch::Contains("that its NIC does not hold"));
}
