// MRC's parts against their contracts, driven directly rather than end to end. The parts
// (MrcSender, MrcLossDetector, MrcReceiver) live inside their queue pair, which routes to them
// in one line each (NextPacket, Receive, PortStateChanged), so each case builds one QP pair on a
// small fabric, posts without running the NIC (the test takes the packets itself; they never
// reach the wire) and hands the QP hand-made SACKs, NACKs and data frames, reading what the part
// did from the QP's traces, a recording congestion control and the frames it sends. MrcPathHealth
// is an object of its own and is given losses directly.
#include "fabric-test-fixture.h"

#include "models/mrc/mrc-congestion-control.h"
#include "models/mrc/mrc-connect.h"
#include "models/mrc/mrc-frame.h"
#include "models/mrc/mrc-path-health.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/mrc-nack-header.h"
#include "models/wire/mrc-sack-header.h"

#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

using namespace mrcsim;
using namespace mrcsim::test;
using namespace ns3;

namespace
{

/// A congestion control that records what it is told, with a window (and a pace) the test sets.
class RecordingCc : public MrcCongestionControl
{
public:
  static TypeId GetTypeId()
  {
    static TypeId tid = TypeId("ns3::test::RecordingCc")
                          .SetParent<MrcCongestionControl>()
                          .AddConstructor<RecordingCc>()
                          .AddAttribute("WindowPackets",
                                        "Window, in MTUs.",
                                        UintegerValue(2),
                                        MakeUintegerAccessor(&RecordingCc::m_packets),
                                        MakeUintegerChecker<uint32_t>(0))
                          .AddAttribute("Gap",
                                        "Pace: time between two data packets (0: no pacing).",
                                        TimeValue(Time(0)),
                                        MakeTimeAccessor(&RecordingCc::m_gap),
                                        MakeTimeChecker(Time(0)));
    return tid;
  }
  void Init(const MrcCcPath& path) override
  {
    m_mtu = path.mtu;
    m_window = uint64_t(m_packets) * path.mtu;
    if (m_gap.IsStrictlyPositive())
    {
      EnablePacing();
    }
  }
  uint64_t GetWindow() const override { return m_window; }
  void OnAck(uint64_t, Time, bool) override { ++acks; }
  void OnTrim() override { ++trims; }
  void OnLoss() override { ++losses; }
  void OnSent(uint32_t, Time now) override { SetNotBefore(now + m_gap); }
  void SetWindowPackets(uint32_t packets) { m_window = uint64_t(packets) * m_mtu; }

  uint64_t acks = 0;
  uint64_t trims = 0;
  uint64_t losses = 0;

private:
  uint32_t m_packets = 0;
  uint32_t m_mtu = 0;
  uint64_t m_window = 0;
  Time m_gap;
};

NS_OBJECT_ENSURE_REGISTERED(RecordingCc);

/// A data send as the DataSent trace reports it.
struct Send
{
  uint32_t psn;
  uint16_t ev;
  bool resend;
};

/// Runs `f` at simulated time `t` and stops there (the QP's own events due by then run too).
template <typename F>
void
RunAt(Time t, F f)
{
  Simulator::Schedule(t - Simulator::Now(), f);
  Simulator::Stop(t - Simulator::Now());
  Simulator::Run();
}

/// One MRC QP pair, GPU 0 -> GPU 5 of the tiny two-plane fabric, with a recording congestion
/// control. The test takes the sender's packets (Take); they are dropped, not sent.
struct SenderBench
{
  explicit SenderBench(uint32_t windowPackets, Time gap = Time(0))
    : window("ns3::test::RecordingCc::WindowPackets", UintegerValue(windowPackets), UintegerValue(2)),
      pace("ns3::test::RecordingCc::Gap", TimeValue(gap), TimeValue(Time(0)))
  {
    qp = ConnectMrc(*f.net, 0, 5);
    qp.first->TraceConnectWithoutContext(
      "DataSent",
      MakeBoundCallback(+[](std::vector<Send>* s, uint32_t, uint32_t psn, uint16_t ev, int, bool re)
                        { s->push_back(Send{ psn, ev, re }); },
                        &sent));
  }

  MrcQueuePair& Tx() { return *qp.first; }
  RecordingCc& Cc() { return *DynamicCast<RecordingCc>(qp.first->GetCongestionControl()); }
  /// The sender's next packet for NIC port `port`, if any; `retry` gets its retry time.
  bool Take(uint16_t port, Time* retry = nullptr)
  {
    Time at = Time::Max();
    FramePtr p = qp.first->NextPacket(port, &at);
    if (retry)
    {
      *retry = at;
    }
    return bool(p);
  }
  /// A SACK of PSN `acked` alone (nothing in order yet).
  void Sack(uint32_t acked)
  {
    MrcSackHeader h;
    h.SetCumulativeAckPsn(0xFFFFFF); // "none": the cumulative PSN + 1 wraps to 0
    h.SetAckedPsn(acked);
    h.SetBitmap(0);
    h.SetEchoedEv(EvOf(acked));
    FabricPacketSpec spec;
    spec.opcode = MrcQueuePair::kOpSack;
    FramePtr frame = MakeControlFrame(spec, h);
    qp.first->Receive(RdmaRxInfo{ *frame, 0 });
  }
  /// A trim NACK of PSN `psn`, echoing the EV it was last sent on.
  void Nack(uint32_t psn)
  {
    MrcNackHeader h;
    h.SetPsn(psn);
    h.SetReason(MrcNackHeader::Trimmed);
    h.SetEchoedEv(EvOf(psn));
    FabricPacketSpec spec;
    spec.opcode = MrcQueuePair::kOpNack;
    FramePtr frame = MakeControlFrame(spec, h);
    qp.first->Receive(RdmaRxInfo{ *frame, 0 });
  }
  /// The EV PSN `psn` was last sent on.
  uint16_t EvOf(uint32_t psn) const
  {
    for (auto it = sent.rbegin(); it != sent.rend(); ++it)
    {
      if (it->psn == psn)
        return it->ev;
    }
    FAIL("PSN " << psn << " was not sent");
    return 0;
  }
  EvState StateOf(uint16_t ev) const { return qp.first->Evs()[ev]; }
  /// Wire bytes of a full data packet.
  uint64_t PacketBytes() const { return DataPacketBytes(4096); }

  ScopedDefault cc{ "ns3::MrcQueuePair::CongestionControl",
                    StringValue("ns3::test::RecordingCc"),
                    StringValue("ns3::NsccCongestionControl") };
  // RACK at any reordering: a packet is lost once one sent after it is acknowledged.
  ScopedDefault reorder{ "ns3::MrcQueuePair::ReorderWindow", TimeValue(Time(0)), TimeValue(MicroSeconds(25)) };
  ScopedDefault window;
  ScopedDefault pace;
  FabricFixture f{ TinyMultiplane() };
  std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>> qp;
  std::vector<Send> sent;
};

} // namespace

// ---- MrcSender ---------------------------------------------------------------------------------

TEST_CASE("MrcSender: no more in flight than the window, shared evenly over the usable ports", "[mrc][parts]")
{
  // A packet goes while what is in flight (wire bytes, headers included) plus one MTU fits in the
  // window, and in the port's share of it: five MTUs over two ports let two packets go on each.
  SenderBench b(5);
  b.Tx().PostWrite(16 * 4096);
  // In PSN order whichever port asks.
  CHECK(b.Take(0));
  CHECK(b.Take(0));
  CHECK_FALSE(b.Take(0));
  CHECK(b.Take(1));
  CHECK(b.Take(1));
  CHECK_FALSE(b.Take(1));
  REQUIRE(b.sent.size() == 4);
  for (uint32_t i = 0; i < 4; ++i)
  {
    CHECK(b.sent[i].psn == i);
    CHECK_FALSE(b.sent[i].resend);
  }
  CHECK(b.Tx().InFlightBytes() == 4 * b.PacketBytes());
  // An acknowledgement opens the window again; the congestion control hears of it.
  b.Sack(2);
  CHECK(b.Cc().acks == 1);
  CHECK(b.Tx().InFlightBytes() == 3 * b.PacketBytes());
  CHECK(b.Take(1));
  CHECK(b.sent.back().psn == 4);
}

TEST_CASE("MrcSender: a pacing congestion control holds the next packet and says until when", "[mrc][parts]")
{
  SenderBench paced(8, MicroSeconds(3));
  paced.Tx().PostWrite(8 * 4096);
  CHECK(paced.Take(0));
  Time retry;
  CHECK_FALSE(paced.Take(0, &retry));
  CHECK(retry == MicroSeconds(3));
  CHECK_FALSE(paced.Take(1, &retry)); // the pace is the QP's, over all its ports
  CHECK(retry == MicroSeconds(3));
  CHECK(paced.sent.size() == 1);
}

TEST_CASE("MrcSender: without pacing a closed window gives no retry time (an ACK wakes the ports)",
          "[mrc][parts]")
{
  SenderBench unpaced(1);
  unpaced.Tx().PostWrite(8 * 4096);
  CHECK(unpaced.Take(0));
  Time retry;
  CHECK_FALSE(unpaced.Take(0, &retry));
  CHECK(retry == Time::Max());
  CHECK_FALSE(unpaced.Cc().Paces());
}

// ---- MrcLossDetector: one routine declares a packet lost -------------------------------------------

TEST_CASE("MrcLossDetector: a trim NACK declares the packet lost once; the congestion control hears OnTrim; "
          "the resend waits for window room",
          "[mrc][parts][loss]")
{
  SenderBench b(3); // one packet on each port
  b.Tx().PostWrite(8 * 4096);
  REQUIRE(b.Take(0));
  REQUIRE(b.Take(1));
  CHECK_FALSE(b.Take(0));
  const uint16_t ev0 = b.EvOf(0);
  b.Nack(0);
  CHECK(b.Cc().trims == 1);
  CHECK(b.Cc().losses == 0);
  CHECK(b.Tx().InFlightBytes() == b.PacketBytes());
  CHECK(b.StateOf(ev0) == EvState::Skip); // the NACK's echo, as an ECN echo
  CHECK(b.StateOf(ev0) != EvState::AssumedBad); // a trim proves the path works
  // A second NACK of the same packet: it is already lost; nothing more is told.
  b.Nack(0);
  CHECK(b.Cc().trims == 1);
  // A trimmed packet waits for window room like new data.
  b.Cc().SetWindowPackets(1);
  CHECK_FALSE(b.Take(0));
  b.Cc().SetWindowPackets(3);
  REQUIRE(b.Take(0));
  CHECK(b.sent.back().psn == 0);
  CHECK(b.sent.back().resend);
  CHECK(b.Tx().Retransmissions() == 1);
}

TEST_CASE("MrcLossDetector: RACK declares lost what was sent before a packet now acknowledged; the "
          "congestion control hears OnLoss, its EV is assumed bad, it goes again at once",
          "[mrc][parts][loss]")
{
  SenderBench b(8);
  b.Tx().PostWrite(4096);
  REQUIRE(b.Take(0)); // PSN 0 at 0 us
  RunAt(MicroSeconds(1),
        [&]
        {
          b.Tx().PostWrite(4096);
          REQUIRE(b.Take(1)); // PSN 1 at 1 us
        });
  const uint16_t ev0 = b.EvOf(0);
  RunAt(MicroSeconds(2),
        [&]
        {
          b.Sack(1);
          CHECK(b.Cc().losses == 1);
          CHECK(b.Cc().trims == 0);
          CHECK(b.StateOf(ev0) == EvState::AssumedBad);
          CHECK(b.Tx().InFlightBytes() == 0);
          // Declared lost (not trimmed): it goes at once, whatever the window.
          b.Cc().SetWindowPackets(0);
          REQUIRE(b.Take(0));
          CHECK(b.sent.back().psn == 0);
          CHECK(b.sent.back().resend);
          CHECK(b.sent.back().ev != ev0); // not on the EV assumed bad
        });
}

TEST_CASE("MrcLossDetector: a port going down declares its packets in flight lost without telling the "
          "congestion control; they go again on the other port",
          "[mrc][parts][loss]")
{
  SenderBench b(5); // two packets on each port
  b.Tx().PostWrite(8 * 4096);
  REQUIRE(b.Take(0)); // PSN 0
  REQUIRE(b.Take(0)); // PSN 1
  REQUIRE(b.Take(1)); // PSN 2
  b.Tx().PortStateChanged(0, false);
  CHECK(b.Cc().losses == 0);
  CHECK(b.Cc().trims == 0);
  CHECK(b.Tx().InFlightBytes() == b.PacketBytes());
  CHECK_FALSE(b.Take(0)); // the port is down
  REQUIRE(b.Take(1));
  CHECK(b.sent.back().psn == 0); // oldest first
  CHECK(b.sent.back().resend);
  CHECK(b.Tx().Retransmissions() == 1);
}

TEST_CASE("MrcLossDetector: the retry limit counts losses found by RACK or the timer, not trims",
          "[mrc][parts][loss]")
{
  ScopedDefault limit("ns3::MrcQueuePair::RetryLimit", UintegerValue(1), UintegerValue(16));
  SenderBench b(8);
  b.Tx().PostWrite(4096);
  REQUIRE(b.Take(0));
  for (int k = 0; k < 3; ++k)
  {
    b.Nack(0); // trimmed three times, resent three times
    REQUIRE(b.Take(0));
  }
  CHECK(b.Cc().trims == 3);
  CHECK_FALSE(b.Tx().IsInError());
  // Lost by RACK once: within the limit of one.
  RunAt(MicroSeconds(1),
        [&]
        {
          b.Tx().PostWrite(4096);
          REQUIRE(b.Take(1)); // PSN 1
        });
  RunAt(MicroSeconds(2),
        [&]
        {
          b.Sack(1);
          REQUIRE(b.Take(0)); // PSN 0 again
        });
  CHECK_FALSE(b.Tx().IsInError());
  // Twice: the QP fails.
  RunAt(MicroSeconds(3),
        [&]
        {
          b.Tx().PostWrite(4096);
          REQUIRE(b.Take(1)); // PSN 2
        });
  RunAt(MicroSeconds(4), [&] { b.Sack(2); });
  CHECK(b.Cc().losses == 2);
  CHECK(b.Tx().IsInError());
}

// ---- MrcReceiver -------------------------------------------------------------------------------

namespace
{

/// What the receiver sent: BTH opcode, and the SACK's or NACK's fields that matter here.
struct Control
{
  uint8_t opcode;
  uint32_t psn;        ///< SACK: the acked PSN; NACK: the NACKed one
  uint32_t cumulative; ///< SACK only
  uint64_t bitmap;     ///< SACK only
  uint16_t ev;         ///< echoed
};

void
OnControl(std::vector<Control>* out, Ptr<const Packet> p, uint8_t)
{
  Ptr<Packet> c = p->Copy();
  Ipv6UsidHeader ip;
  c->RemoveHeader(ip);
  RoceUdpHeader udp;
  c->RemoveHeader(udp);
  RoceBthHeader bth;
  c->RemoveHeader(bth);
  if (bth.GetOpcode() == MrcQueuePair::kOpSack)
  {
    MrcSackHeader s;
    c->PeekHeader(s);
    out->push_back(Control{ bth.GetOpcode(), s.GetAckedPsn(), s.GetCumulativeAckPsn(), s.GetBitmap(), s.GetEchoedEv() });
  }
  else if (bth.GetOpcode() == MrcQueuePair::kOpNack)
  {
    MrcNackHeader n;
    c->PeekHeader(n);
    out->push_back(Control{ bth.GetOpcode(), n.GetPsn(), 0, 0, n.GetEchoedEv() });
  }
}

/// The receiving QP of GPU 0 -> GPU 5, fed hand-made data frames on port 0; what it sends back
/// is read at its NIC port.
struct ReceiverBench
{
  ReceiverBench()
  {
    qp = ConnectMrc(*f.net, 0, 5);
    f.NicPort(5, 0)->TraceConnectWithoutContext("Enqueue", MakeBoundCallback(&OnControl, &sent));
    qp.second->TraceConnectWithoutContext(
      "RecvComplete",
      MakeBoundCallback(+[](std::vector<uint64_t>* d, uint32_t, uint64_t, uint64_t bytes, Time) { d->push_back(bytes); },
                        &completed));
  }
  /// Packet `psn` of a message of `packets` packets starting at PSN `first`, on EV `ev`.
  void Data(uint32_t psn, uint32_t first, uint32_t packets, uint16_t ev = 3, bool trimmed = false)
  {
    FabricPacketSpec spec;
    spec.srcGpu = 0;
    spec.dstGpu = 5;
    spec.plane = 0;
    spec.psn = psn;
    spec.entropy = EvEntropy::Encode(ev);
    spec.payloadBytes = trimmed ? 0 : 4096;
    if (trimmed)
    {
      spec.dscp = 46; // MrcQueuePair::TrimmedDscp's default: only the headers arrived
    }
    FramePtr frame = MakeWriteFrame(spec, true, uint64_t(psn - first) * 4096, packets * 4096);
    qp.second->Receive(RdmaRxInfo{ *frame, 0 });
  }

  FabricFixture f{ TinyMultiplane() };
  std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>> qp;
  std::vector<Control> sent;
  std::vector<uint64_t> completed;
};

} // namespace

TEST_CASE("MrcReceiver: places packets in any order, completes a message once, SACKs reordering and "
          "duplicates at once, NACKs a trimmed packet",
          "[mrc][parts][receiver]")
{
  ReceiverBench b;
  constexpr uint32_t kNone = 0xFFFFFF; // no PSN in order yet
  b.Data(1, 0, 3);
  REQUIRE(b.sent.size() == 1); // out of order: at once
  CHECK(b.sent[0].opcode == MrcQueuePair::kOpSack);
  CHECK(b.sent[0].psn == 1);
  CHECK(b.sent[0].cumulative == kNone);
  CHECK(b.sent[0].bitmap == 0b10); // bit i: PSN (cumulative + 1) + i
  CHECK(b.sent[0].ev == 3);
  b.Data(2, 0, 3);
  REQUIRE(b.sent.size() == 2);
  CHECK(b.sent[1].bitmap == 0b110);
  CHECK(b.completed.empty());
  b.Data(0, 0, 3);
  REQUIRE(b.completed.size() == 1); // the whole message, once
  CHECK(b.completed[0] == 3 * 4096);
  REQUIRE(b.sent.size() == 3); // a message end: at once
  CHECK(b.sent[2].cumulative == 2);
  CHECK(b.sent[2].bitmap == 0);
  b.Data(1, 0, 3); // a duplicate: the sender is told again
  REQUIRE(b.sent.size() == 4);
  CHECK(b.sent[3].cumulative == 2);
  CHECK(b.completed.size() == 1);
  b.Data(3, 3, 2, 7, true); // trimmed: a NACK at once, echoing its EV
  REQUIRE(b.sent.size() == 5);
  CHECK(b.sent[4].opcode == MrcQueuePair::kOpNack);
  CHECK(b.sent[4].psn == 3);
  CHECK(b.sent[4].ev == 7);
  CHECK(b.completed.size() == 1);
}

TEST_CASE("MrcReceiver: in-order packets are SACKed every SackEvery, the rest within SackDelay",
          "[mrc][parts][receiver]")
{
  ReceiverBench b;
  for (uint32_t psn = 0; psn < 4; ++psn)
  {
    b.Data(psn, 0, 16);
    CHECK(b.sent.size() == (psn < 3 ? 0u : 1u)); // SackEvery 4
  }
  CHECK(b.sent.back().cumulative == 3);
  b.Data(4, 0, 16);
  CHECK(b.sent.size() == 1); // held
  RunAt(NanoSeconds(999), [] {});
  CHECK(b.sent.size() == 1);
  RunAt(MicroSeconds(1), [] {}); // SackDelay (1 us) after it arrived
  REQUIRE(b.sent.size() == 2);
  CHECK(b.sent.back().cumulative == 4);
  CHECK(b.sent.back().psn == 4);
}

// ---- MrcPathHealth -----------------------------------------------------------------------------

namespace
{

/// Four QPs of GPU 0's NIC on multiplane-64 (16 GPUs per T0): two toward the last T0 (GPUs 63
/// and 62), one toward each of two others (GPUs 20 and 40); all set up, none sending (the NIC is
/// not run).
struct HealthBench
{
  HealthBench()
  {
    for (uint32_t dst : { 63u, 62u, 20u, 40u })
    {
      qps.push_back(ConnectMrc(*f.net, 0, dst).first);
      qps.back()->PostWrite(4096);
    }
    health = f.net->GetHost(0)->GetObject<RdmaNic>()->GetObject<MrcPathHealth>();
  }
  /// A loss on `qp`'s EV `ev` (of NIC port 0).
  MrcPathHealth::Loss LossOn(const MrcQueuePair& qp, uint16_t ev, bool rack) const
  {
    MrcPathHealth::Loss l{ 0, qp.EvUsids(ev), qp.RemoteLeaf(qp.PlaneOfPort(0)), 0 };
    l.spine = qp.FirstSwitchAfterLeaf(0, l.path);
    l.laterDelivered = rack;
    return l;
  }
  /// EVs of port 0 of `qp` whose paths start with `prefix`, and how many of them are assumed bad.
  std::pair<int, int> Marked(const MrcQueuePair& qp, const UsidList& prefix) const
  {
    int on = 0, bad = 0;
    for (uint16_t id = 0; id < qp.Evs().size(); ++id)
    {
      const EvState ev = qp.Evs()[id];
      const UsidList path = qp.EvUsids(id);
      if (qp.EvPort(id) != 0 || ev == EvState::Denied || path.size() < prefix.size() ||
          !std::equal(prefix.begin(), prefix.end(), path.begin()))
        continue;
      ++on;
      bad += ev == EvState::AssumedBad;
    }
    return { on, bad };
  }
  /// The first active EV of `qp` on port 0 whose first uSID is `uplink`.
  int ThroughUplink(const MrcQueuePair& qp, uint16_t uplink) const
  {
    for (uint16_t id : qp.ActiveEvs(0))
    {
      if (qp.EvUsids(id)[0] == uplink)
        return id;
    }
    return -1;
  }

  FabricFixture f{ PresetSpec("multiplane-64") };
  std::vector<Ptr<MrcQueuePair>> qps; ///< toward GPUs 63, 62, 20, 40
  Ptr<MrcPathHealth> health;
};

} // namespace

TEST_CASE("MrcPathHealth: a loss marks, for every QP of the NIC, the EVs through the same T1 toward the same T0",
          "[mrc][parts][health]")
{
  HealthBench b;
  REQUIRE(b.health);
  MrcQueuePair& a = *b.qps[0];
  const uint16_t ev = a.ActiveEvs(0).front();
  const MrcPathHealth::Loss loss = b.LossOn(a, ev, false);
  REQUIRE(loss.path.size() >= 3);
  const UsidList downlink(loss.path.begin(), loss.path.begin() + 2); // up-link, then the T1's way down
  b.health->ReportLoss(&a, loss);
  const auto sameT0 = b.Marked(*b.qps[1], downlink);
  CHECK(sameT0.first > 0);
  CHECK(sameT0.second == sameT0.first); // the other QP toward that T0: all of them
  CHECK(b.Marked(a, downlink).second == b.Marked(a, downlink).first);
  CHECK(b.health->SharedMarks() == uint64_t(sameT0.second)); // what one QP learnt, others used
  // The QPs toward other T0s take the same up-link but other ways down: untouched. A timer's
  // guess does not mark the up-link itself.
  const UsidList uplink(loss.path.begin(), loss.path.begin() + 1);
  for (size_t i = 2; i < 4; ++i)
  {
    CHECK(b.Marked(*b.qps[i], uplink).first > 0);
    CHECK(b.Marked(*b.qps[i], uplink).second == 0);
  }
}

TEST_CASE("MrcPathHealth: RACK losses through one up-link toward two T0s mark the up-link for every QP, "
          "unless a later packet through it was acknowledged",
          "[mrc][parts][health]")
{
  for (const bool alive : { false, true })
  {
    DYNAMIC_SECTION((alive ? "up-link seen alive" : "up-link silent"))
    {
      HealthBench b;
      MrcQueuePair& a = *b.qps[0]; // toward the last T0
      MrcQueuePair& c = *b.qps[2]; // toward another
      const uint16_t evA = a.ActiveEvs(0).front();
      const uint16_t uplinkUsid = a.EvUsids(evA)[0];
      const int evC = b.ThroughUplink(c, uplinkUsid);
      REQUIRE(evC >= 0);
      b.health->ReportLoss(&a, b.LossOn(a, evA, true));
      MrcPathHealth::Loss second = b.LossOn(c, static_cast<uint16_t>(evC), true);
      second.uplinkAlive = alive;
      b.health->ReportLoss(&c, second);
      const UsidList uplink(std::vector<uint16_t>{ uplinkUsid });
      for (const Ptr<MrcQueuePair>& qp : b.qps)
      {
        const auto [on, bad] = b.Marked(*qp, uplink);
        INFO("QP toward GPU " << qp->GetRemoteGpu() << ": " << bad << " of " << on << " EVs through the up-link marked");
        CHECK(on > 0);
        if (!alive)
          CHECK(bad == on);
      }
      // The QP toward a third T0 shares only the up-link: its EVs through it are marked when the
      // up-link is blamed, and only then.
      const auto [on, bad] = b.Marked(*b.qps[3], uplink);
      CHECK(bad == (alive ? 0 : on));
    }
  }
}

TEST_CASE("MrcPathHealth: RACK losses toward one T0 through two T1s mark every EV toward that T0",
          "[mrc][parts][health]")
{
  HealthBench b;
  MrcQueuePair& a = *b.qps[0];
  MrcQueuePair& other = *b.qps[1]; // toward the same T0
  const uint16_t ev1 = a.ActiveEvs(0).front();
  const MrcPathHealth::Loss first = b.LossOn(a, ev1, true);
  int ev2 = -1;
  for (uint16_t id : other.ActiveEvs(0))
  {
    if (other.FirstSwitchAfterLeaf(0, other.EvUsids(id)) != first.spine)
    {
      ev2 = id;
      break;
    }
  }
  REQUIRE(ev2 >= 0);
  b.health->ReportLoss(&a, first);
  b.health->ReportLoss(&other, b.LossOn(other, static_cast<uint16_t>(ev2), true));
  const UsidList any;
  for (size_t i = 0; i < 2; ++i)
  {
    const auto [on, bad] = b.Marked(*b.qps[i], any);
    CHECK(bad == on); // every EV of port 0 toward that T0
  }
  for (size_t i = 2; i < 4; ++i)
  {
    CHECK(b.Marked(*b.qps[i], any).second == 0); // QPs toward other T0s keep theirs
  }
}
