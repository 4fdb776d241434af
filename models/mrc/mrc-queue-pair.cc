// The sending half of an MRC queue pair: set-up of the EV table, spraying, SACK and NACK
// handling. Loss detection (RACK, tail-loss probe, RTO, the send-time log) is in
// mrc-queue-pair-loss.cc, EV health (states, backups, probes, port status, what the NIC's QPs
// learn together) in mrc-queue-pair-health.cc, the receiving half in mrc-queue-pair-receiver.cc.
#include "models/mrc/mrc-queue-pair.h"

#include "models/fabric/fabric-packet.h"
#include "models/wire/mrc-nack-header.h"
#include "models/wire/mrc-probe-header.h"
#include "models/wire/mrc-sack-header.h"
#include "models/mrc/nscc-congestion-control.h"
#include "models/mrc/round-robin-ev-selector.h"
#include "models/wire/ipv6-usid-header.h"
#include "models/wire/psn.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-reth-header.h"
#include "models/wire/roce-udp-header.h"
#include "models/engine/splitmix.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MrcQueuePair);

TypeId
MrcQueuePair::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::MrcQueuePair")
      .SetParent<RdmaQueuePair>()
      .AddConstructor<MrcQueuePair>()
      .AddAttribute("EvCount",
                    "Active EVs per QP, split equally over the NIC's planes (MRC: 128-256).",
                    UintegerValue(128),
                    MakeUintegerAccessor(&MrcQueuePair::m_evCount),
                    MakeUintegerChecker<uint32_t>(1, 8192))
      .AddAttribute("BackupEvsPerPlane",
                    "Backup EVs per plane, replacing EVs assumed bad.",
                    UintegerValue(8),
                    MakeUintegerAccessor(&MrcQueuePair::m_backupsPerPlane),
                    MakeUintegerChecker<uint32_t>(0, 4096))
      .AddAttribute("PathMode",
                    "EVs as SRv6 uSID paths or as UDP entropy for ECMP.",
                    EnumValue(Srv6),
                    MakeEnumAccessor(&MrcQueuePair::m_mode),
                    MakeEnumChecker(Srv6, "srv6", Entropy, "entropy"))
      .AddAttribute("HealthScope",
                    "Who avoids a path after a loss: the QP alone, or every MRC QP of the NIC whose "
                    "SRv6 paths share the suspect links (see MrcPathHealth).",
                    EnumValue(PerNic),
                    MakeEnumAccessor(&MrcQueuePair::m_healthScope),
                    MakeEnumChecker(PerQp, "per-qp", PerNic, "per-nic"))
      .AddAttribute("SackEvery",
                    "The receiver SACKs every N packets, and at once on ECN, trims and message ends.",
                    UintegerValue(4),
                    MakeUintegerAccessor(&MrcQueuePair::m_sackEvery),
                    MakeUintegerChecker<uint32_t>(1, 64))
      .AddAttribute("SackDelay",
                    "Longest time a received packet waits for its SACK while the receiver coalesces "
                    "SACKs (SackEvery); a sender whose window shrank below what it has in flight "
                    "would otherwise wait for its timeout. As an ACK-coalescing timer (QUIC's "
                    "max_ack_delay, Falcon's ACK coalescing).",
                    TimeValue(MicroSeconds(1)),
                    MakeTimeAccessor(&MrcQueuePair::m_sackDelay),
                    MakeTimeChecker(NanoSeconds(1)))
      .AddAttribute("RetransmitTimeout",
                    "Retransmission timeout: 1.024 us x 2^8 (MRC's published example).",
                    TimeValue(NanoSeconds(1024 * 256)),
                    MakeTimeAccessor(&MrcQueuePair::m_rtoBase),
                    MakeTimeChecker(MicroSeconds(1)))
      .AddAttribute("RetryLimit",
                    "Times one PSN may be resent before the QP fails.",
                    UintegerValue(16),
                    MakeUintegerAccessor(&MrcQueuePair::m_retryLimit),
                    MakeUintegerChecker<uint32_t>(1, 255))
      .AddAttribute("ReorderWindow",
                    "A packet is lost (without a trim) once a packet sent this much later was acknowledged.",
                    TimeValue(MicroSeconds(25)),
                    MakeTimeAccessor(&MrcQueuePair::m_reorderWindow),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("LossProbeRtts",
                    "Tail-loss probe: when nothing was sent or newly acknowledged for this many smoothed "
                    "RTTs (plus SackDelay) while packets are outstanding, the oldest is declared lost and "
                    "resent on another EV; its SACK then reveals any other loss (RACK). RACK-TLP "
                    "(RFC 8985) waits 2 SRTTs. 0 turns it off: a tail loss then waits for the "
                    "RetransmitTimeout.",
                    DoubleValue(2.0),
                    MakeDoubleAccessor(&MrcQueuePair::m_lossProbeRtts),
                    MakeDoubleChecker<double>(0))
      .AddAttribute("ProbeInterval",
                    "Period of probes on EVs assumed bad.",
                    TimeValue(MicroSeconds(50)),
                    MakeTimeAccessor(&MrcQueuePair::m_probeInterval),
                    MakeTimeChecker(MicroSeconds(1)))
      .AddAttribute("ProbeIntervalMax",
                    "Probes back off: an EV that no probe brought back is probed twice as long after "
                    "each probe, up to this (in whole ProbeIntervals); paths that stay dead are probed "
                    "at a falling rate instead of a fixed one (our choice).",
                    TimeValue(MicroSeconds(400)),
                    MakeTimeAccessor(&MrcQueuePair::m_probeIntervalMax),
                    MakeTimeChecker(MicroSeconds(1)))
      .AddAttribute("PortStatusDelay",
                    "From a NIC port going down to its peers learning it (port-status message).",
                    TimeValue(Seconds(1)),
                    MakeTimeAccessor(&MrcQueuePair::m_portStatusDelay),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("TrimmedDscp",
                    "DSCP that marks a trimmed packet (as the switches' PortQueueConfig).",
                    UintegerValue(46),
                    MakeUintegerAccessor(&MrcQueuePair::m_trimmedDscp),
                    MakeUintegerChecker<uint8_t>(0, 63))
      .AddAttribute("EvSelector",
                    "Type of the per-packet EV choice policy.",
                    TypeIdValue(RoundRobinEvSelector::GetTypeId()),
                    MakeTypeIdAccessor(&MrcQueuePair::m_selectorType),
                    MakeTypeIdChecker())
      .AddAttribute("CongestionControl",
                    "Type of the window controller.",
                    TypeIdValue(NsccCongestionControl::GetTypeId()),
                    MakeTypeIdAccessor(&MrcQueuePair::m_ccType),
                    MakeTypeIdChecker())
      .AddTraceSource("EvState",
                      "An EV changed state: (qpn, EV, plane, from, to).",
                      MakeTraceSourceAccessor(&MrcQueuePair::m_evStateTrace),
                      "ns3::MrcQueuePair::EvStateTracedCallback")
      .AddTraceSource("DataSent",
                      "A data packet left: (qpn, PSN, EV, plane, retransmission).",
                      MakeTraceSourceAccessor(&MrcQueuePair::m_dataSentTrace),
                      "ns3::MrcQueuePair::DataSentTracedCallback");
  return tid;
}

MrcQueuePair::MrcQueuePair()
{
  // The base class's first line, and the four lines after the base class, where the members
  // NextPacket touches most are kept (listing the first eight lines measured no faster).
  m_hotLineMask = 0b111101;
}

void
MrcQueuePair::DoDispose()
{
  Simulator::Cancel(m_timer);
  Simulator::Cancel(m_probeTimer);
  Simulator::Cancel(m_sackTimer);
  m_selector = nullptr;
  m_cc = nullptr;
  m_health = nullptr;
  m_peer = nullptr;
  RdmaQueuePair::DoDispose();
}

void
MrcQueuePair::SetUp()
{
  m_setUp = true;
  ObjectFactory selector;
  selector.SetTypeId(m_selectorType);
  m_selector = selector.Create<EvSelector>();
  NS_ABORT_MSG_IF(!m_selector,
                  "MrcQueuePair: EvSelector \"" << m_selectorType.GetName() << "\" is not an ns3::EvSelector");
  ObjectFactory cc;
  cc.SetTypeId(m_ccType);
  m_cc = cc.Create<MrcCongestionControl>();
  NS_ABORT_MSG_IF(
    !m_cc, "MrcQueuePair: CongestionControl \"" << m_ccType.GetName() << "\" is not an ns3::MrcCongestionControl");

  const uint16_t ports = m_nic->NumPorts();
  const mrcsim::FabricRouting* routing = m_nic->GetRouting();
  NS_ABORT_MSG_IF(m_mode == Srv6 && !routing, "MrcQueuePair: SRv6 mode needs the NIC's routing (RdmaNic::SetRouting)");
  const uint32_t perPlane = std::max<uint32_t>(1, m_evCount / ports);
  // Consecutive path indices from a per-connection offset: when a plane has more up-ports than a
  // QP has EVs there, different connections cover different up-ports (and T1s).
  uint64_t offsetState = (uint64_t(m_nic->GetGpu()) << 32) ^ m_remoteGpu ^ (uint64_t(m_qpn) << 20);
  const uint64_t pathOffset = SplitMix64(offsetState) >> 16;
  m_active.assign(ports, {});
  m_backups.assign(ports, {});
  for (uint16_t port = 0; port < ports; ++port)
  {
    // Sized once: growing them push by push leaves freed blocks behind, thousands of QPs over.
    m_active[port].reserve(perPlane);
    m_backups[port].reserve(m_backupsPerPlane);
  }
  NS_ABORT_MSG_IF(ports > 64, "MrcQueuePair: a NIC of " << ports << " ports; at most 64");
  m_portUp = ports == 64 ? ~uint64_t(0) : (uint64_t(1) << ports) - 1;
  m_portInflight.assign(ports, 0);
  m_peerPlaneUp = m_portUp;
  m_evsPerPort = perPlane + m_backupsPerPlane;
  m_evs.reserve(size_t(ports) * m_evsPerPort);
  std::vector<UsidList> paths; // by EV id, packed below
  DataRate line(0);
  for (uint16_t port = 0; port < ports; ++port)
  {
    line = DataRate(line.GetBitRate() + m_nic->GetHost()->GetPort(port)->GetDataRate().GetBitRate());
    const int plane = m_nic->PlaneOfPort(port);
    for (uint32_t k = 0; k < perPlane + m_backupsPerPlane; ++k)
    {
      MrcEv ev;
      ev.id = static_cast<uint16_t>(m_evs.size());
      NS_ABORT_MSG_IF(m_evs.size() >= 0x4000, "MrcQueuePair: at most 16384 EVs (14 bits of UDP source port)");
      paths.emplace_back();
      if (m_mode == Srv6)
      {
        // Path index k: at the source T0 it picks up-port k mod (up-ports), so the EVs of a
        // plane cover its T1s evenly.
        auto path = routing->Path(m_nic->GetGpu(), m_remoteGpu, plane, pathOffset + k);
        if (path.empty())
        {
          ev.state = EvState::Denied;
        }
        else
        {
          paths.back() = routing->Usids(path, m_remoteGpu, plane); // aborts if it does not fit
          ev.usidCount = static_cast<uint8_t>(paths.back().size());
        }
      }
      ev.active = k < perPlane && ev.state == EvState::Good;
      if (ev.active)
        m_active[port].push_back(ev.id);
      else if (ev.state == EvState::Good)
        m_backups[port].push_back(ev.id);
      m_evs.push_back(ev);
    }
  }
  // Positions where the paths differ are kept per EV (see m_evUsids); a position a path does
  // not reach counts as uSID 0.
  auto usidAt = [](const UsidList& p, uint32_t k) -> uint16_t { return k < p.size() ? p[k] : 0; };
  m_usidCommon.fill(0);
  m_usidVarMask = 0;
  for (uint32_t k = 0; k < UsidList::kCapacity && !paths.empty(); ++k)
  {
    m_usidCommon[k] = usidAt(paths[0], k);
    for (const auto& p : paths)
    {
      if (usidAt(p, k) != m_usidCommon[k])
      {
        m_usidVarMask |= uint8_t(1u << k);
        break;
      }
    }
  }
  m_usidVarCount = static_cast<uint8_t>(__builtin_popcount(m_usidVarMask));
  m_evUsids.clear();
  m_evUsids.reserve(paths.size() * m_usidVarCount);
  for (const auto& p : paths)
  {
    for (uint32_t k = 0; k < UsidList::kCapacity; ++k)
    {
      if (m_usidVarMask >> k & 1)
        m_evUsids.push_back(usidAt(p, k));
    }
  }
  // Base RTT of an uncongested round trip on EV 0's path: propagation and switch latency both
  // ways, and store-and-forward of a full data packet at each hop.
  Ptr<FabricPort> nicPort = m_nic->GetHost()->GetPort(0);
  Time oneWay;
  if (routing)
  {
    auto path = routing->Path(m_nic->GetGpu(), m_remoteGpu, m_nic->PlaneOfPort(0), 0);
    const mrcsim::Fabric& fabric = routing->GetFabric();
    Time hop = NanoSeconds(fabric.LinkAt(fabric.Gpu(m_nic->GetGpu()), 0).delayNs);
    oneWay =
      (hop + nicPort->TxTime(m_nic->Mtu() + 96)) * int64_t(path.size() + 1) + NanoSeconds(300) * int64_t(path.size());
  }
  else
  {
    oneWay = MicroSeconds(5);
  }
  m_baseRtt = oneWay * 2;
  m_srtt = m_baseRtt;
  if (m_healthScope == PerNic && m_mode == Srv6)
  {
    m_health = m_nic->GetObject<MrcPathHealth>();
    if (!m_health)
    {
      m_health = CreateObject<MrcPathHealth>();
      m_nic->AggregateObject(m_health);
    }
    m_health->Register(this);
  }
  m_cc->SetAttribute("Mtu", UintegerValue(m_nic->Mtu()));
  m_cc->Init(m_baseRtt, line);
  m_rto = m_rtoBase;
}

int
MrcQueuePair::EvPlane(const MrcEv& ev) const
{
  return m_nic->PlaneOfPort(EvPort(ev));
}

uint32_t
MrcQueuePair::PacketBytes(const Message& m, uint64_t seq) const
{
  // As BuildData: IPv6, UDP, BTH and RETH, then the payload.
  constexpr uint32_t kHeaders =
    Ipv6UsidHeader::kSize + RoceUdpHeader::kSize + RoceBthHeader::kSize + RoceRethHeader::kSize;
  return kHeaders + PayloadOf(m, seq);
}

uint32_t
MrcQueuePair::PayloadOf(const Message& m, uint64_t seq) const
{
  const uint64_t mtu = m_nic->Mtu();
  return static_cast<uint32_t>(std::min<uint64_t>(mtu, m.bytes - (seq - m.firstSeq) * mtu));
}

void
MrcQueuePair::AddInflight(uint16_t nicPort, uint32_t bytes, bool add)
{
  uint64_t& port = m_portInflight[nicPort];
  if (add)
  {
    m_inflight += bytes;
    port += bytes;
  }
  else
  {
    m_inflight -= bytes;
    port -= bytes;
  }
}

uint64_t
MrcQueuePair::PortShare() const
{
  // The window is split evenly over the ports that can carry data: the NIC visits ports one
  // after another, and without a share the first port visited after an ACK would take all the
  // window that ACK opened, loading one plane and starving the others.
  uint32_t usable = 0;
  for (uint16_t p = 0; p < m_active.size(); ++p)
  {
    usable += PortUp(p) && PeerPlaneUp(p) && !m_active[p].empty();
  }
  const uint64_t mtu = m_nic->Mtu();
  return std::max<uint64_t>(mtu, m_cc->GetWindow() / std::max<uint32_t>(usable, 1));
}

uint64_t
MrcQueuePair::PostWrite(uint64_t bytes)
{
  NS_ABORT_MSG_IF(bytes == 0, "MrcQueuePair::PostWrite: empty message");
  if (!m_setUp)
  {
    SetUp();
  }
  const uint64_t mtu = m_nic->Mtu();
  if (m_sndNxt == m_totalSeq && NothingToResend())
  {
    m_nic->JoinTail(this); // nothing was left to send
  }
  Message m{ m_nextMessageId++, bytes, m_totalSeq, (bytes + mtu - 1) / mtu, 0, Simulator::Now() };
  m_totalSeq += m.packets;
  m_messages.push_back(m);
  StartProbes(); // probes pause while the QP is idle
  WakeAllPorts();
  return m.id;
}

void
MrcQueuePair::WakeAllPorts()
{
  if (m_error)
  {
    return;
  }
  for (uint16_t p = 0; p < m_nic->NumPorts(); ++p)
  {
    m_nic->NotifyReady(p);
  }
}

MrcQueuePair::Message&
MrcQueuePair::MessageOf(uint64_t seq)
{
  // The last message starting at or before seq (messages are in sequence order).
  uint32_t lo = 0;
  uint32_t hi = m_messages.size();
  while (hi - lo > 1)
  {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (m_messages[mid].firstSeq <= seq)
      lo = mid;
    else
      hi = mid;
  }
  return m_messages[lo];
}

uint64_t
MrcQueuePair::Unwrap(uint32_t psn, uint64_t reference) const
{
  int64_t s = int64_t(reference) + PsnDiff(psn, static_cast<uint32_t>(reference & kPsnMask));
  return s < 0 ? 0 : uint64_t(s);
}

FramePtr
MrcQueuePair::BuildData(const Message& m, uint64_t seq, const MrcEv& ev, int plane, bool ackRequest)
{
  const uint64_t index = seq - m.firstSeq;
  const uint64_t mtu = m_nic->Mtu();
  const uint32_t payload = PayloadOf(m, seq);
  const bool first = index == 0;
  const bool last = index + 1 == m.packets;
  FabricPacketSpec spec;
  spec.srcGpu = m_nic->GetGpu();
  spec.dstGpu = m_remoteGpu;
  spec.plane = plane;
  spec.usids = EvUsids(ev.id);
  spec.entropy = ev.Entropy();
  spec.dscp = m_nic->DataDscp();
  spec.ecn = Ipv6UsidHeader::Ect0;
  spec.destQp = m_remoteQpn;
  spec.psn = static_cast<uint32_t>(seq & kPsnMask);
  spec.opcode = first && last ? RoceBthHeader::kRcWriteOnly
                : first       ? RoceBthHeader::kRcWriteFirst
                : last        ? RoceBthHeader::kRcWriteLast
                              : RoceBthHeader::kRcWriteMiddle;
  spec.ackRequest = last || ackRequest;
  spec.payloadBytes = payload;
  FramePtr f = MakeFrame(spec);
  // Every packet carries its place in the message: offset and the message's length.
  RoceRethHeader reth;
  reth.SetVirtualAddress(index * mtu);
  reth.SetDmaLength(static_cast<uint32_t>(m.bytes));
  WriteInner(*f, reth);
  return f;
}

FramePtr
MrcQueuePair::NextPacket(uint16_t port, Time* retryAt)
{
  if (m_error || !m_setUp || !PortUp(port) || !PeerPlaneUp(port))
  {
    return nullptr;
  }
  const uint64_t mtu = m_nic->Mtu();
  uint64_t seq;
  const bool room = m_inflight + mtu <= m_cc->GetWindow() && m_portInflight[port] + mtu <= PortShare();
  // A trimmed packet waits for window room like new data (else a heavy incast recycles trims at
  // line rate); a packet declared lost (RACK or timeout) goes at once.
  bool resend = !NothingToResend() && (room || !DeclaredLost(*m_losses->retx.begin()).trimmed);
  if (resend)
  {
    seq = *m_losses->retx.begin();
  }
  else if (NothingToResend() && m_sndNxt < m_totalSeq && room)
  {
    seq = m_sndNxt;
  }
  else
  {
    return nullptr;
  }
  int id = m_selector->Select(m_evs, m_active[port], port);
  if (id < 0)
  {
    return nullptr;
  }
  MrcEv& ev = m_evs[id];
  const int plane = m_nic->PlaneOfPort(port); // the EV's: it is one of the port's
  // Ask for a SACK at once when this packet fills the window (or is a resend, or the last that can
  // go now): the receiver otherwise waits for SackEvery packets that the window will not let come.
  const bool fills = m_inflight + 2 * mtu > m_cc->GetWindow() || resend || (NothingToResend() && seq + 1 >= m_totalSeq);
  const Message& m = MessageOf(seq);
  FramePtr p = BuildData(m, seq, ev, plane, fills);
  if (resend)
  {
    m_losses->retx.erase(m_losses->retx.begin());
    ++m_retransmissions;
  }
  else
  {
    m_tx.emplace_back();
    ++m_sndNxt;
  }
  SetSentAt(seq, Simulator::Now()); // a store only: the new slot is usually out of the caches
  TxState& t = Tx(seq);
  t.ev = ev.id;
  t.lost = false;
  Again* again = nullptr;
  if (resend)
  {
    again = &DeclaredLost(seq);
    again->trimmed = false;
    again->resent = true;
    ++again->sends;
  }
  const uint32_t bytes = PacketBytes(m, seq);
  NS_ABORT_MSG_IF(bytes != p->Size(), "MrcQueuePair: PacketBytes " << bytes << " for a packet of " << p->Size());
  AddInflight(port, bytes, true);
  if (resend)
  {
    m_resends.push_back(ResendRecord{ seq, m_sndNxt, again->sends });
  }
  ++m_packetsSent;
  m_lastProgress = Simulator::Now();
  m_dataSentTrace(m_qpn, static_cast<uint32_t>(seq & kPsnMask), ev.id, plane, resend);
  if (!m_timer.IsRunning())
  {
    ArmTimer();
  }
  return p;
}

void
MrcQueuePair::Receive(const RdmaRxInfo& info)
{
  const uint8_t op = info.frame.opcode;
  if (op == kOpSack)
    HandleSack(info);
  else if (op == kOpNack)
    HandleNack(info);
  else if (op == kOpProbe)
    HandleProbe(info);
  else if (RoceBthHeader::IsRdmaWrite(op))
    HandleData(info);
}

// ---- sender -----------------------------------------------------------------------------------

void
MrcQueuePair::Ack(uint64_t seq, uint64_t& newlyAcked)
{
  if (!Tracked(seq))
  {
    return;
  }
  TxState& t = Tx(seq);
  if (t.acked)
  {
    return;
  }
  t.acked = true;
  Message& m = MessageOf(seq);
  const uint32_t bytes = PacketBytes(m, seq);
  if (t.lost)
  {
    m_losses->retx.erase(seq); // it arrived after all
  }
  else
  {
    AddInflight(TxPort(t), bytes, false);
  }
  newlyAcked += bytes;
  ++m.acked;
}

void
MrcQueuePair::HandleSack(const RdmaRxInfo& info)
{
  MrcSackHeader sack;
  ReadInner(info.frame, sack);
  const Time now = Simulator::Now();
  const uint64_t ackedSeq = Unwrap(sack.GetAckedPsn(), m_base);
  Time rtt;
  Time ackedSentAt;
  bool fresh = false;
  if (Tracked(ackedSeq))
  {
    ackedSentAt = SentAt(ackedSeq);
    fresh = !Resent(ackedSeq);
    rtt = now - ackedSentAt;
  }
  uint64_t newly = 0;
  // All below `cum` acknowledged (unwrapped from cumulative PSN + 1, which is 0 when the
  // receiver has nothing in order yet).
  const uint64_t cum = Unwrap((sack.GetCumulativeAckPsn() + 1) & kPsnMask, m_base);
  for (uint64_t s = m_base; s < std::min(cum, m_sndNxt); ++s)
  {
    Ack(s, newly);
  }
  const uint64_t bitmapBase = cum - 1 + sack.GetSackBaseOffset();
  uint64_t bits = sack.GetBitmap();
  for (uint32_t i = 0; bits; ++i, bits >>= 1)
  {
    if (bits & 1)
    {
      Ack(bitmapBase + i, newly);
    }
  }
  Ack(ackedSeq, newly);

  const uint16_t evId = sack.GetEchoedEv();
  if (evId < m_evs.size())
  {
    MrcEv& ev = m_evs[evId];
    if (sack.GetEcnEcho())
    {
      if (ev.state == EvState::Good)
        SetState(ev, EvState::Skip);
      m_selector->OnFeedback(ev, EvFeedback::Ecn);
    }
    else
    {
      m_selector->OnFeedback(ev, EvFeedback::Acked);
    }
  }
  if (newly > 0)
  {
    m_cc->OnAck(newly, fresh ? rtt : m_baseRtt, sack.GetEcnEcho());
    m_rto = m_rtoBase;
    m_lastProgress = now;
    if (fresh)
    {
      SampleRtt(rtt);
    }
  }
  // Loss without trim: what is still outstanding although it was sent a reordering window
  // before a packet now acknowledged (RACK). Sends are in time order, so only the front counts.
  if (!ackedSentAt.IsZero())
  {
    while (!m_error && PruneSendOrder() && SentAt(FrontSeq()) + m_reorderWindow < ackedSentAt)
    {
      const uint64_t s = FrontSeq();
      PopFront();
      DeclareLost(s, true);
    }
  }
  while (!m_tx.empty() && m_tx.front().acked)
  {
    if (m_losses && !m_losses->again.empty())
    {
      m_losses->again.erase(m_base); // kept until here: a late SACK may still name it (Resent)
    }
    ForgetFarSend(m_base);
    m_tx.pop_front();
    ++m_base;
  }
  if (m_tx.empty())
  {
    Simulator::Cancel(m_timer); // nothing outstanding: no deadline to watch
  }
  while (!m_messages.empty() && m_messages.front().acked == m_messages.front().packets)
  {
    const Message& m = m_messages.front();
    m_sendComplete(m_qpn, m.id, m.bytes, m.posted);
    m_messages.pop_front();
  }
  if (m_error)
  {
    return;
  }
  WakeAllPorts();
}

void
MrcQueuePair::HandleNack(const RdmaRxInfo& info)
{
  MrcNackHeader nack;
  ReadInner(info.frame, nack);
  ++m_nacksReceived;
  const uint64_t seq = Unwrap(nack.GetPsn(), m_base);
  const uint16_t evId = nack.GetEchoedEv();
  if (evId < m_evs.size())
  {
    MrcEv& ev = m_evs[evId];
    if (ev.state == EvState::Good)
      SetState(ev, EvState::Skip);
    m_selector->OnFeedback(ev, EvFeedback::Trim);
  }
  if (Tracked(seq) && !Tx(seq).acked && !Tx(seq).lost)
  {
    TxState& t = Tx(seq);
    t.lost = true;
    AgainOf(seq).trimmed = true;
    AddInflight(TxPort(t), PacketBytes(seq), false);
    m_losses->retx.insert(seq); // resent as soon as the window allows: no timeout
    m_cc->OnTrim();
    WakeAllPorts();
  }
}

} // namespace ns3
