// An MRC queue pair as a thin shell over its parts (mrc-queue-pair.h): the attributes and trace
// sources, set-up at the first message, routing frames to the parts, NIC port status, and what
// the NIC's QPs learn together (MrcPathHealth). The parts are in mrc-ev-table.cc, mrc-sender.cc,
// mrc-loss-detector.cc and mrc-receiver.cc.
#include "models/mrc/mrc-queue-pair.h"

#include "models/engine/fabric-parallel-simulator.h"
#include "models/engine/node-message.h"
#include "models/fabric/fabric-packet.h"
#include "models/fabric/fabric-switch.h"
#include "models/fabric/path-latency.h"
#include "models/mrc/nscc-congestion-control.h"
#include "models/mrc/round-robin-ev-selector.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/roce-bth-header.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcQueuePair");

NS_OBJECT_ENSURE_REGISTERED(MrcQueuePair);

namespace
{

using PortNoticeMessage = NodeMessage<MrcQueuePair::PortNotice, &MrcQueuePair::ReceivePortNotice>;

} // namespace

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
                    MakeSharedConfigAccessor<UintegerValue>(&MrcQueuePair::m_config, &Config::evCount),
                    MakeUintegerChecker<uint32_t>(1, 8192))
      .AddAttribute("BackupEvsPerPlane",
                    "Backup EVs per plane, replacing EVs assumed bad.",
                    UintegerValue(8),
                    MakeSharedConfigAccessor<UintegerValue>(&MrcQueuePair::m_config, &Config::backupsPerPlane),
                    MakeUintegerChecker<uint32_t>(0, 4096))
      .AddAttribute("PathMode",
                    "EVs as SRv6 uSID paths or as UDP entropy for ECMP.",
                    EnumValue(Srv6),
                    MakeSharedConfigAccessor<EnumValue>(&MrcQueuePair::m_config, &Config::mode),
                    MakeEnumChecker(Srv6, "srv6", Entropy, "entropy"))
      .AddAttribute("HealthScope",
                    "Who avoids a path after a loss: the QP alone, or every MRC QP of the NIC whose "
                    "SRv6 paths share the suspect links (see MrcPathHealth).",
                    EnumValue(PerNic),
                    MakeSharedConfigAccessor<EnumValue>(&MrcQueuePair::m_config, &Config::healthScope),
                    MakeEnumChecker(PerQp, "per-qp", PerNic, "per-nic"))
      .AddAttribute("SackEvery",
                    "The receiver SACKs every N packets, and at once on ECN, trims and message ends.",
                    UintegerValue(4),
                    MakeSharedConfigAccessor<UintegerValue>(&MrcQueuePair::m_config, &Config::sackEvery),
                    MakeUintegerChecker<uint32_t>(1, 64))
      .AddAttribute("SackDelay",
                    "Longest time a received packet waits for its SACK while the receiver coalesces "
                    "SACKs (SackEvery); a sender whose window shrank below what it has in flight "
                    "would otherwise wait for its timeout. As an ACK-coalescing timer (QUIC's "
                    "max_ack_delay, Falcon's ACK coalescing).",
                    TimeValue(MicroSeconds(1)),
                    MakeSharedConfigAccessor<TimeValue>(&MrcQueuePair::m_config, &Config::sackDelay),
                    MakeTimeChecker(NanoSeconds(1)))
      .AddAttribute("RetransmitTimeout",
                    "Retransmission timeout: 1.024 us x 2^8 (MRC's published example).",
                    TimeValue(NanoSeconds(1024 * 256)),
                    MakeSharedConfigAccessor<TimeValue>(&MrcQueuePair::m_config, &Config::rtoBase),
                    MakeTimeChecker(MicroSeconds(1)))
      .AddAttribute("SendTimeBits",
                    "Bits of a send time in the TX ring (time steps after a base the QP moves up, 32: "
                    "4.3 ms in picoseconds); an older send is kept apart. Results do not depend on it: "
                    "fewer bits only keep more sends apart (tests exercise that in a short run).",
                    UintegerValue(32),
                    MakeSharedConfigAccessor<UintegerValue>(&MrcQueuePair::m_config, &Config::sendTimeBits),
                    MakeUintegerChecker<uint8_t>(4, 32))
      .AddAttribute("RetryLimit",
                    "Times one PSN may be declared lost by RACK, the tail-loss probe or the timeout before the QP "
                    "fails (trims and failed ports or paths do not count: MrcLossDetector::DeclareLost).",
                    UintegerValue(16),
                    MakeSharedConfigAccessor<UintegerValue>(&MrcQueuePair::m_config, &Config::retryLimit),
                    MakeUintegerChecker<uint32_t>(1, 255))
      .AddAttribute("ReorderWindow",
                    "A packet is lost (without a trim) once a packet sent this much later was acknowledged.",
                    TimeValue(MicroSeconds(25)),
                    MakeSharedConfigAccessor<TimeValue>(&MrcQueuePair::m_config, &Config::reorderWindow),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("LossProbeRtts",
                    "Tail-loss probe: when nothing was sent or newly acknowledged for this many smoothed "
                    "RTTs (plus SackDelay) while packets are outstanding, the oldest is declared lost and "
                    "resent on another EV; its SACK then reveals any other loss (RACK). RACK-TLP "
                    "(RFC 8985) waits 2 SRTTs. 0 turns it off: a tail loss then waits for the "
                    "RetransmitTimeout.",
                    DoubleValue(2.0),
                    MakeSharedConfigAccessor<DoubleValue>(&MrcQueuePair::m_config, &Config::lossProbeRtts),
                    MakeDoubleChecker<double>(0))
      .AddAttribute("ProbeInterval",
                    "Period of probes on EVs assumed bad.",
                    TimeValue(MicroSeconds(50)),
                    MakeSharedConfigAccessor<TimeValue>(&MrcQueuePair::m_config, &Config::probeInterval),
                    MakeTimeChecker(MicroSeconds(1)))
      .AddAttribute("ProbeIntervalMax",
                    "Probes back off: an EV that no probe brought back is probed twice as long after "
                    "each probe, up to this (in whole ProbeIntervals); paths that stay dead are probed "
                    "at a falling rate instead of a fixed one (our choice).",
                    TimeValue(MicroSeconds(400)),
                    MakeSharedConfigAccessor<TimeValue>(&MrcQueuePair::m_config, &Config::probeIntervalMax),
                    MakeTimeChecker(MicroSeconds(1)))
      .AddAttribute("NoPathTimeout",
                    "The QP fails (gives up) when, with work to send and EVs assumed bad under probe, "
                    "nothing came back from the peer (no acknowledgement, NACK or probe answer, on any EV "
                    "of any plane) for this long: no path to it works. Default RetryLimit x "
                    "RetransmitTimeout (16 x 262.144 us), the time MRC's defaults give one packet before "
                    "the QP fails (our choice).",
                    TimeValue(NanoSeconds(1024 * 256 * 16)),
                    MakeSharedConfigAccessor<TimeValue>(&MrcQueuePair::m_config, &Config::noPathTimeout),
                    MakeTimeChecker(MicroSeconds(1)))
      .AddAttribute("PortStatusDelay",
                    "From a NIC port going down to its peers learning it (port-status message).",
                    TimeValue(Seconds(1)),
                    MakeSharedConfigAccessor<TimeValue>(&MrcQueuePair::m_config, &Config::portStatusDelay),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("TrimmedDscp",
                    "DSCP that marks a trimmed packet (as the switches' PortQueueConfig).",
                    UintegerValue(46),
                    MakeSharedConfigAccessor<UintegerValue>(&MrcQueuePair::m_config, &Config::trimmedDscp),
                    MakeUintegerChecker<uint8_t>(0, 63))
      .AddAttribute("EvSelector",
                    "Type of the per-packet EV choice policy.",
                    TypeIdValue(RoundRobinEvSelector::GetTypeId()),
                    MakeSharedConfigAccessor<TypeIdValue>(&MrcQueuePair::m_config, &Config::selectorType),
                    MakeTypeIdChecker())
      .AddAttribute("CongestionControl",
                    "Type of the window controller.",
                    TypeIdValue(NsccCongestionControl::GetTypeId()),
                    MakeSharedConfigAccessor<TypeIdValue>(&MrcQueuePair::m_config, &Config::ccType),
                    MakeTypeIdChecker())
      .AddTraceSource("EvState",
                      "An EV changed state: (qpn, EV, plane, from, to).",
                      MakeBundleTraceAccessor(&MrcQueuePair::MrcTraceBundle, &MrcTraces::evState),
                      "ns3::MrcQueuePair::EvStateTracedCallback")
      .AddTraceSource("DataSent",
                      "A data packet left: (qpn, PSN, EV, plane, retransmission).",
                      MakeBundleTraceAccessor(&MrcQueuePair::MrcTraceBundle, &MrcTraces::dataSent),
                      "ns3::MrcQueuePair::DataSentTracedCallback");
  return tid;
}

// The layout the HotLineMask below relies on (see the class's layout comment): the parts start
// after the base class's two lines, and the loss detector's hot members, the last that NextPacket
// reads, end within line 5. A member added before them that pushes them out fails here instead
// of silently slowing every NIC visit.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
void
MrcQueuePair::CheckLayout()
{
  constexpr std::size_t kLine = 64;
  static_assert(offsetof(MrcQueuePair, m_sender) < kLine, "the parts start in line 0, after the base class");
  static_assert(offsetof(MrcQueuePair, m_loss) + MrcLossDetector::HotEnd() <= 5 * kLine,
                "the sender's and loss detector's hot members must end within line 4");
  static_assert(offsetof(MrcQueuePair, m_evTable) + 2 * sizeof(uint64_t) <= 6 * kLine,
                "the EV table's port status (its first members) must be in line 5");
  static_assert(sizeof(MrcQueuePair) <= 416, "a QP is in tcmalloc's 416-byte class: 8.5 M of them make a large run");
}
#pragma GCC diagnostic pop

MrcQueuePair::MrcQueuePair()
{
  // The base class's line and the five after it, where the members NextPacket touches most are
  // kept (see the layout comment in the class).
  m_hotLineMask = 0b111111;
}

MrcQueuePair::MrcQueuePair(const MrcQueuePair& prototype)
  : RdmaQueuePair(prototype),
    m_config(prototype.m_config)
{
}

Ptr<MrcQueuePair>
MrcQueuePair::CreatePrototype()
{
  Ptr<MrcQueuePair> p = CreateLight<MrcQueuePair>();
  p->m_isPrototype = true;
  Ptr<const MrcCongestionControl> cc = p->NewCongestionControl();
  Ptr<const EvSelector> selector = p->NewSelector();
  p->m_config.Mutable().ccPrototype = cc;
  p->m_config.Mutable().selectorPrototype = selector;
  return p;
}

Ptr<MrcQueuePair>
MrcQueuePair::Copy() const
{
  NS_ABORT_MSG_UNLESS(m_isPrototype, "MrcQueuePair::Copy: only a prototype (CreatePrototype) is copied");
  return Ptr<MrcQueuePair>(new MrcQueuePair(*this), false);
}

namespace
{

/// A copy of `prototype` when it is of type `type` (the QP's type may have been set to another
/// since the prototype was made), else a `T` built from `type`; aborts if `type` is no `T`
/// (`attribute` names the QP's attribute that chose it).
template<typename T>
Ptr<T>
CopyOrBuild(const Ptr<const T>& prototype, TypeId type, const char* attribute)
{
  Ptr<T> made = prototype && prototype->GetInstanceTypeId() == type ? prototype->Copy() : nullptr;
  if (!made)
  {
    made = T::Build(type);
    NS_ABORT_MSG_IF(!made,
                    "MrcQueuePair: " << attribute << " \"" << type.GetName() << "\" is not an " << T::GetTypeId().GetName());
  }
  return made;
}

} // namespace

Ptr<MrcCongestionControl>
MrcQueuePair::NewCongestionControl() const
{
  return CopyOrBuild(m_config->ccPrototype, m_config->ccType, "CongestionControl");
}

Ptr<EvSelector>
MrcQueuePair::NewSelector() const
{
  return CopyOrBuild(m_config->selectorPrototype, m_config->selectorType, "EvSelector");
}

void
MrcQueuePair::DoDispose()
{
  m_loss.Dispose();
  m_evTable.Dispose();
  m_receiver.Dispose();
  m_sender.Dispose();
  RdmaQueuePair::DoDispose();
}

void
MrcQueuePair::SetUp()
{
  NS_LOG_FUNCTION(this << m_qpn);
  m_evTable.SetSelector(NewSelector(), (uint64_t(m_nic->GetGpu()) << 32) | m_qpn);
  m_sender.SetCongestionControl(NewCongestionControl());

  const uint16_t ports = m_nic->NumPorts();
  const mrcsim::FabricRouting* routing = m_nic->GetRouting();
  NS_ABORT_MSG_IF(m_config->mode == Srv6 && !routing, "MrcQueuePair: SRv6 mode needs the NIC's routing (RdmaNic::SetNetwork)");
  const uint32_t perPlane = std::max<uint32_t>(1, m_config->evCount / ports);
  m_evTable.SetUp(perPlane, m_config->backupsPerPlane, m_config->mode == Srv6);
  m_sender.SetUpPorts(ports);
  DataRate line(0);
  for (uint16_t port = 0; port < ports; ++port)
  {
    line = DataRate(line.GetBitRate() + m_nic->GetHost()->GetPort(port)->GetDataRate().GetBitRate());
  }
  // Base RTT: a full data packet (payload of an MTU, IPv6, UDP, BTH, RETH, the port's framing,
  // and the preamble and inter-frame gap a real link carries) over EV 0's path, by the one
  // latency model (models/fabric/path-latency.h), both ways. The return leg is reckoned at the
  // data packet's size rather than a SACK's, and the NICs' pipelines are left out: the window
  // NSCC derives from it (1.5 BDP) then holds what the receiver's SACK coalescing keeps
  // unacknowledged (docs/MODEL.md, "One latency model").
  Time oneWay;
  if (routing)
  {
    const int plane = m_nic->PlaneOfPort(0);
    const auto path = routing->Path(m_nic->GetGpu(), m_remoteGpu, plane, 0);
    const uint32_t wireBytes = m_nic->Mtu() + MrcSender::kDataHeaderBytes +
                               m_nic->GetHost()->GetPort(0)->QueueConfig()->FramingBytes() +
                               kPreambleAndGapBytes;
    oneWay = Seconds(PathOneWayS(PathLinksOf(routing->GetFabric(), m_nic->GetGpu(), 0, path),
                                 wireBytes,
                                 FabricSwitch::DefaultForwardingLatency().GetSeconds()));
  }
  else
  {
    oneWay = MicroSeconds(5); // a QP pair built without routing (model tests): no path to reckon
  }
  const Time baseRtt = oneWay * 2;
  m_sender.SetBaseRtt(baseRtt);
  m_loss.Start(baseRtt);
  if (SharesPathHealth())
  {
    Ptr<MrcPathHealth> health = m_nic->GetObject<MrcPathHealth>();
    if (!health)
    {
      health = CreateObject<MrcPathHealth>();
      m_nic->AggregateObject(health);
    }
    health->Register(this);
  }
  m_sender.GetCongestionControl()->Init(MrcCcPath{ baseRtt, line, m_nic->Mtu() });
  NS_LOG_DEBUG("QP " << m_qpn << ": base RTT " << baseRtt << ", line rate " << line);
}

uint64_t
MrcQueuePair::PostWrite(uint64_t bytes)
{
  NS_ABORT_MSG_IF(bytes == 0, "MrcQueuePair::PostWrite: empty message");
  if (!IsSetUp())
  {
    SetUp();
  }
  const uint64_t id = m_sender.PostWrite(bytes);
  m_evTable.StartProbes(); // probes pause while the QP is idle
  WakeAllPorts();
  return id;
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

FramePtr
MrcQueuePair::NextPacket(uint16_t port, Time* retryAt)
{
  // No port is up before SetUp (the EV table's port status is empty until then).
  if (m_error || !m_evTable.PortUp(port) || !m_evTable.PeerPlaneUp(port))
  {
    return nullptr;
  }
  return m_sender.NextPacket(port, retryAt);
}

void
MrcQueuePair::Receive(const RdmaRxInfo& info)
{
  const uint8_t op = info.frame.opcode;
  if (op == kOpSack)
    m_sender.HandleSack(info);
  else if (op == kOpNack)
    m_sender.HandleNack(info);
  else if (op == kOpProbe)
    m_evTable.HandleProbe(info);
  else if (RoceBthHeader::IsRdmaWrite(op))
    m_receiver.HandleData(info);
}

// ---- port status ------------------------------------------------------------------------------

void
MrcQueuePair::PortStateChanged(uint16_t port, bool up)
{
  if (!IsSetUp())
  {
    return;
  }
  NS_LOG_FUNCTION(this << m_qpn << port << up);
  // Locally at once: the plane's EVs are denied (or restored); peers learn it later.
  m_evTable.SetPortUp(port, up);
  if (!up)
  {
    // What was in flight on that port is lost: resend it elsewhere now.
    m_loss.ResendInFlightOnPort(port);
    WakeAllPorts();
  }
  const uint32_t peerNode = m_nic->NodeOfGpu(m_remoteGpu);
  if (peerNode != RdmaNic::kNoNode)
  {
    // An event of the peer's node, which may run in another partition or on another rank.
    PortNoticeMessage::Send(peerNode,
                            m_config->portStatusDelay,
                            PortNotice{ m_remoteQpn, static_cast<uint32_t>(m_nic->PlaneOfPort(port)), up ? 1u : 0u });
  }
}

void
MrcQueuePair::ReceivePortNotice(uint32_t context, const PortNotice& notice, std::string_view)
{
  Ptr<RdmaNic> nic = RdmaNic::OfNode(context);
  Ptr<MrcQueuePair> qp = nic ? DynamicCast<MrcQueuePair>(nic->GetQueuePair(notice.qpn)) : nullptr;
  NS_ABORT_MSG_IF(!qp, "MrcQueuePair: a port notice for no MRC QP " << notice.qpn << " on node " << context);
  qp->PeerPortStateChanged(static_cast<int>(notice.plane), notice.up != 0);
}

void
MrcQueuePair::PeerPortStateChanged(int plane, bool up)
{
  if (!IsSetUp())
  {
    return;
  }
  NS_LOG_FUNCTION(this << m_qpn << plane << up);
  m_evTable.SetPeerPlaneUp(plane, up);
  WakeAllPorts();
}

// ---- what the NIC's QPs learn together (MrcPathHealth) -----------------------------------------

void
MrcQueuePair::ReportPathLoss(uint64_t seq, bool laterDelivered)
{
  if (m_nic && SharesPathHealth() && IsSetUp()) // set up and not disposed
  {
    const MrcTxState& t = m_sender.Tx(seq);
    const uint16_t port = m_evTable.PortOfEv(t.ev);
    const UsidList path = m_evTable.EvUsids(t.ev);
    MrcPathHealth::Loss loss{ port, path, RemoteLeaf(PlaneOfPort(port)), FirstSwitchAfterLeaf(port, path) };
    loss.laterDelivered = laterDelivered;
    AckedSince(seq, loss);
    // The NIC's, which SetUp registered this QP with: looked up here, as a loss is rare and a
    // pointer in each of millions of QPs is not.
    if (Ptr<MrcPathHealth> health = m_nic->GetObject<MrcPathHealth>())
      health->ReportLoss(this, loss);
  }
}

uint32_t
MrcQueuePair::MarkPathsAssumedBad(uint16_t port, const UsidList& prefix)
{
  if (!IsSetUp() || port >= m_evTable.NumPorts())
  {
    return 0;
  }
  return m_evTable.MarkPathsAssumedBad(port, prefix);
}

void
MrcQueuePair::AckedSince(uint64_t seq, MrcPathHealth::Loss& loss) const
{
  // Rare (once per loss): a pass over the TX ring, which holds every send not yet acknowledged
  // in order.
  const Time lostAt = m_loss.SentAt(seq);
  for (uint64_t s = m_sender.Base(); s < m_sender.SndNxt() && !(loss.portAlive && loss.uplinkAlive); ++s)
  {
    const MrcTxState& t = m_sender.Tx(s);
    if (s == seq || !t.acked || m_evTable.PortOfEv(t.ev) != loss.port || m_loss.SentAt(s) <= lostAt)
    {
      continue;
    }
    loss.portAlive = true;
    loss.uplinkAlive = loss.uplinkAlive || (!loss.path.empty() && m_evTable.EvUsids(t.ev)[0] == loss.path[0]);
  }
}

uint32_t
MrcQueuePair::FirstSwitchAfterLeaf(uint16_t port, const UsidList& path) const
{
  // A uSID names the egress port of its hop plus one (0 ends the carrier).
  const mrcsim::Fabric& fabric = m_nic->GetRouting()->GetFabric();
  const mrcsim::VertexId leaf = fabric.Peer(fabric.Gpu(m_nic->GetGpu()), port).node;
  if (path.empty() || path[0] == 0 || path[0] > fabric.Degree(leaf))
  {
    return UINT32_MAX;
  }
  return static_cast<uint32_t>(fabric.Peer(leaf, static_cast<uint16_t>(path[0] - 1)).node);
}

int
MrcQueuePair::PlaneOfPort(uint16_t port) const
{
  return m_nic->PlaneOfPort(port);
}

uint32_t
MrcQueuePair::RemoteLeaf(int plane) const
{
  const mrcsim::Fabric& fabric = m_nic->GetRouting()->GetFabric();
  const mrcsim::VertexId gpu = fabric.Gpu(m_remoteGpu);
  for (uint16_t p = 0; p < fabric.Degree(gpu); ++p)
  {
    const mrcsim::VertexId leaf = fabric.Peer(gpu, p).node;
    if (fabric.Node(leaf).plane == plane)
    {
      return static_cast<uint32_t>(leaf);
    }
  }
  return UINT32_MAX;
}

} // namespace ns3
