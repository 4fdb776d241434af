#include "models/fabric/fabric-port.h"

#include "models/fabric/fabric-channel.h"
#include "models/engine/fabric-parallel-simulator.h"
#include "models/fabric/fabric-pcap-writer.h"
#include "models/engine/fabric-scheduler.h"
#include "models/wire/ipv6-usid-header.h"
#include "models/wire/pfc-pause-header.h"
#include "models/engine/splitmix.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricPort");

/// \brief A port's fallback start event (ArmWake). It lists what the wake will touch, for
/// FabricScheduler to prefetch.
class FabricPort::WakeEvent : public PrefetchingEvent
{
public:
  explicit WakeEvent(FabricPort* port) : m_port(port)
  {
    static_assert(sizeof(WakeEvent) == sizeof(PrefetchingEvent), "WakeEvent outgrows its prefetched lines");
  }
  void Notify() override { m_port->Wake(); }
  FabricPort* m_port;
};

NS_OBJECT_ENSURE_REGISTERED(FabricPort);

TypeId
FabricPort::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::FabricPort")
      .SetParent<NetDevice>()
      .AddConstructor<FabricPort>()
      .AddAttribute("LazyStart",
                    "Start a backlogged port's next frame when something next touches the port "
                    "(its previous frame's arrival at the peer, at the latest), at its exact start "
                    "time (default); off: one start event per frame, and arrivals leave the sender "
                    "alone (for measuring what the lazy start gains; see the file comment).",
                    BooleanValue(true),
                    MakeBooleanAccessor(&FabricPort::m_lazy),
                    MakeBooleanChecker())
      .AddTraceSource("Enqueue",
                      "A packet entered an egress class queue.",
                      MakeBundleTraceAccessor(&FabricPort::m_traces, &Traces::enqueue),
                      "ns3::FabricPort::ClassTracedCallback")
      .AddTraceSource("Dequeue",
                      "A packet left its queue and started onto the wire.",
                      MakeBundleTraceAccessor(&FabricPort::m_traces, &Traces::dequeue),
                      "ns3::FabricPort::ClassTracedCallback")
      .AddTraceSource("Drop",
                      "A packet was dropped at this port, with the cause.",
                      MakeBundleTraceAccessor(&FabricPort::m_traces, &Traces::drop),
                      "ns3::FabricPort::DropTracedCallback")
      .AddTraceSource("EcnMark",
                      "A packet was marked CE.",
                      MakeBundleTraceAccessor(&FabricPort::m_traces, &Traces::ecnMark),
                      "ns3::Packet::TracedCallback")
      .AddTraceSource("Trim",
                      "A packet was trimmed to its headers and sent in the control class.",
                      MakeBundleTraceAccessor(&FabricPort::m_traces, &Traces::trim),
                      "ns3::Packet::TracedCallback")
      .AddTraceSource("Pause",
                      "PFC state of a class changed: (class, paused, sentUpstream). sentUpstream: this port "
                      "sent the PAUSE/RESUME; otherwise it received one and its class stopped/resumed.",
                      MakeBundleTraceAccessor(&FabricPort::m_traces, &Traces::pause),
                      "ns3::FabricPort::PauseTracedCallback");
  return tid;
}

FabricPort::FabricPort() = default;

// The layout StartLines relies on: what a frame's start reads (the wire's state, the class
// queues and their byte counts, the PFC accountant, the counters) lies in the first kHotBytes.
// A member added before them that pushes them out fails here instead of silently slowing
// every hop.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
void
FabricPort::CheckLayout()
{
  static_assert(alignof(FabricPort) == 64, "the hot lines start at the object");
  static_assert(offsetof(FabricPort, m_handler) < 64 && offsetof(FabricPort, m_pcap) < 64,
                "Receive reads only the first line (ReceiveLines)");
  static_assert(offsetof(FabricPort, m_txBytes) + sizeof(uint64_t) <= kHotBytes,
                "a frame's start reads the members up to the counters: they must end within kHotBytes");
  // A fabric has two ports per link (4.2 M in multiplane-131k): a member that adds a line costs
  // 64 bytes each. Rare state goes behind a pointer (m_pauseTimes, m_traces, m_pcap).
  static_assert(sizeof(FabricPort) <= 5 * 64, "a port takes five lines");
}
#pragma GCC diagnostic pop

std::array<uintptr_t, 3>
FabricPort::StartLines() const
{
  static_assert(kHotBytes == 4 * 64, "four lines below");
  using E = PrefetchingEvent;
  const QueuedPacket* next = PeekNext();
  return { E::Lines(this, 0b1111), E::Lines(next), E::Lines(next ? next->frame.Get() : nullptr) };
}

uintptr_t
FabricPort::ReceiveLines() const
{
  return PrefetchingEvent::Lines(this);
}

FabricPort::~FabricPort() = default;

void
FabricPort::DoDispose()
{
  m_channel = nullptr;
  m_config = nullptr;
  m_pcap = nullptr;
  if (m_pauseTimes)
  {
    m_pauseTimes->expiry.Cancel();
    m_pauseTimes->refresh.Cancel();
  }
  for (auto& q : m_queues)
  {
    q.Clear();
  }
  m_macControl.Clear();
  if (m_wakePending)
  {
    m_wake->Cancel(); // a pending wake finds nothing to do
    m_wakePending = false;
  }
  m_wake = nullptr;
  NetDevice::DoDispose();
}

void
FabricPort::SetChannel(Ptr<FabricChannel> channel)
{
  m_channel = channel;
  m_linkUp = channel && channel->IsUp();
}

void
FabricPort::SetNode(Ptr<Node> node)
{
  m_node = PeekPointer(node);
  m_context = node ? node->GetId() : 0;
  if (m_channel)
  {
    m_channel->RefreshArrivalDelay(); // the channel names this node as its events' context
  }
}

void
FabricPort::SetIngressLatency(Time latency)
{
  m_ingressLatency = latency;
  if (m_channel)
  {
    m_channel->RefreshArrivalDelay();
  }
}

void
FabricPort::SetEgressLatency(Time latency)
{
  m_egressLatency = latency;
  if (m_channel)
  {
    m_channel->RefreshArrivalDelay();
  }
}

void
FabricPort::SetRateFactor(double factor)
{
  // TxTime divides by the degraded rate in whole bit/s: a factor that leaves less than 1 bit/s
  // (under 1e-11 of 100G) would divide by zero. Refused rather than clamped to 1 bit/s: that
  // would quietly simulate another link than the one asked for, and one whose frames take hours
  // (a 4 KiB frame: 9 h at 1 bit/s) is a dead link, which a link failure models.
  NS_ABORT_MSG_IF(!(double(m_rateBps) * factor >= 1),
                  "FabricPort::SetRateFactor: factor " << factor << " of " << m_rateBps << " bit/s leaves "
                                                       << double(m_rateBps) * factor
                                                       << " bit/s, under 1 bit/s (fail the link instead)");
  m_rateFactor = factor;
  m_txTimeBytes = UINT32_MAX;
}

Ptr<Channel>
FabricPort::GetChannel() const
{
  return m_channel;
}

FabricPort*
FabricPort::GetPeer() const
{
  return m_channel ? m_channel->Peer(this) : nullptr;
}

void
FabricPort::SetAddress(Address address)
{
  // Ports are named by (node, index); a MAC address is derived, never stored.
}

Address
FabricPort::GetAddress() const
{
  uint64_t id = (uint64_t(m_node ? m_node->GetId() : 0) << 16) | m_ifIndex;
  uint8_t mac[6] = { 0x02, uint8_t(id >> 32), uint8_t(id >> 24), uint8_t(id >> 16), uint8_t(id >> 8), uint8_t(id) };
  Mac48Address a;
  a.CopyFrom(mac);
  return a;
}

bool
FabricPort::SetMtu(const uint16_t mtu)
{
  return mtu == 9000;
}

bool
FabricPort::IsLinkUp() const
{
  return m_linkUp;
}

bool
FabricPort::IsBusy() const
{
  return Simulator::Now() < m_busyUntil;
}

Time
FabricPort::TxTime(uint32_t bytes) const
{
  // Integer picoseconds: no floating point on the per-frame path, exact for whole-ps frames. The
  // last size's time is kept: a port mostly sends frames of one or two sizes.
  if (bytes == m_txTimeBytes)
  {
    return m_txTime;
  }
  const uint64_t bits = uint64_t(bytes + m_config->FramingBytes()) * 8;
  uint64_t rate = m_rateBps;
  if (m_rateFactor != 1.0)
  {
    rate = static_cast<uint64_t>(double(rate) * m_rateFactor);
  }
  // SetRateFactor refuses factors that round the rate to 0; this also catches a port without a
  // rate, or one slowed by SetDataRate after its factor was set.
  NS_ABORT_MSG_IF(rate == 0, "FabricPort::TxTime: port " << m_ifIndex << " of node " << (m_node ? m_node->GetId() : 0)
                                                         << " sends at 0 bit/s (rate " << m_rateBps << " bit/s, factor "
                                                         << m_rateFactor << ")");
  m_txTimeBytes = bytes;
  m_txTime =
    PicoSeconds(static_cast<int64_t>((static_cast<unsigned __int128>(bits) * 1000000000000ull + rate / 2) / rate));
  return m_txTime;
}

bool
FabricPort::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
  NS_ABORT_MSG_IF(protocolNumber != kIpv6, "FabricPort::Send: only IPv6 (0x86DD) is sent this way");
  FramePtr frame = FromPacket(packet, protocolNumber);
  const uint8_t cls = m_config->ClassOfDscp(frame->Dscp());
  return Enqueue(std::move(frame), cls, nullptr);
}

bool
FabricPort::SendFrom(Ptr<Packet> packet, const Address& source, const Address& dest, uint16_t protocolNumber)
{
  return Send(packet, dest, protocolNumber);
}

void
FabricPort::Drop(const FabricFrame& frame, DropCause cause)
{
  NS_LOG_LOGIC("port " << m_ifIndex << " drops a frame to QP " << frame.destQp << ": " << DropCauseName(cause));
  if (m_dropCounters)
  {
    // Shared by all links and ports, which the partitions of a parallel run update at once.
    __atomic_fetch_add(&m_dropCounters[static_cast<size_t>(cause)], 1, __ATOMIC_RELAXED);
  }
  if (m_traces)
    m_traces->drop(ToPacket(frame), cause);
}

double
FabricPort::NextUniform()
{
  return SplitMixUniform(m_rng);
}

bool
FabricPort::MarkEcn(FabricFrame& frame)
{
  if (frame.Ecn() == Ipv6UsidHeader::Ect0 || frame.Ecn() == Ipv6UsidHeader::Ect1)
  {
    frame.SetEcn(Ipv6UsidHeader::Ce);
    return true;
  }
  return false;
}

void
FabricPort::MarkRed(FabricFrame& frame, uint8_t cls, double scale)
{
  const double p = m_config->MarkProbability(static_cast<uint32_t>(m_bytes[cls] / scale));
  if (p > 0 && (p >= 1 || NextUniform() < p) && MarkEcn(frame))
  {
    ++m_ecnMarked;
    if (m_traces)
      m_traces->ecnMark(ToPacket(frame));
  }
}

void
FabricPort::Trim(FabricFrame& frame)
{
  const uint32_t keep = m_config->TrimmedSize() - Ipv6UsidHeader::kSize;
  if (frame.ipPayloadLength > keep)
  {
    frame.ipPayloadLength = static_cast<uint16_t>(keep);
  }
  frame.SetDscp(m_config->TrimmedDscp());
}

bool
FabricPort::Enqueue(FramePtr frame, uint8_t cls, FabricPort* ingress)
{
  NS_ABORT_MSG_IF(cls >= m_config->NumClasses(),
                  "FabricPort::Enqueue: class " << int(cls) << " of " << int(m_config->NumClasses()));
  CatchUp();
  if (!IsLinkUp())
  {
    Drop(*frame, DropCause::LinkDown);
    return false;
  }
  uint32_t size = frame->Size();
  const bool data = cls != PortQueueConfig::kControlClass;
  const double scale = m_config->ThresholdScale(m_rateBps);
  if (data && m_config->TrimEnabled() && m_bytes[cls] + size > m_config->TrimThreshold() * scale &&
      size > m_config->TrimmedSize())
  {
    Trim(*frame);
    ++m_trimmed;
    if (m_traces)
      m_traces->trim(ToPacket(*frame));
    cls = PortQueueConfig::kControlClass;
    size = frame->Size();
  }
  // Lossless classes are accounted at the switch's PFC accountant, by the port they came in on.
  const bool lossless = ingress && ingress->QueueConfig()->PfcEnabled(cls);
  if (lossless)
  {
    if (!m_pfc->Admits(*ingress, cls, size))
    {
      Drop(*frame, DropCause::PfcHeadroom);
      return false;
    }
  }
  else if (m_bytes[cls] + size > m_config->ClassLimit(cls))
  {
    Drop(*frame, DropCause::QueueFull);
    return false;
  }
  // Marked only once it is certain to be queued (a trimmed packet is not marked: it is a signal
  // of its own).
  if (cls != PortQueueConfig::kControlClass && m_config->EcnEnabled() &&
      m_config->EcnMarkPoint() == PortQueueConfig::ENQUEUE)
  {
    MarkRed(*frame, cls, scale);
  }
  // Only lossless classes account ingress bytes (for PFC), so only their packets name the port
  // they came in on.
  if (lossless)
  {
    m_pfc->Charge(*ingress, cls, size);
  }
  m_bytes[cls] += size;
  if (m_traces)
    m_traces->enqueue(ToPacket(*frame), cls);
  m_losslessQueued += lossless;
  m_queues[cls].Push(QueuedPacket{ std::move(frame), lossless ? ingress->GetIfIndex() + 1 : 0 });
  Kick();
  return true;
}

int
FabricPort::NextClass() const
{
  if (!m_macControl.Empty())
  {
    return PortQueueConfig::kMaxClasses;
  }
  // Classes past the configured ones are always empty (Enqueue refuses them): all are looked
  // at, which spares reading the configuration.
  for (uint8_t cls = 0; cls < PortQueueConfig::kMaxClasses; ++cls)
  {
    if (!m_queues[cls].Empty() && !IsPaused(cls))
    {
      return cls;
    }
  }
  return -1;
}

bool
FabricPort::StartOne(Time start)
{
  int cls = NextClass();
  if (cls < 0)
  {
    return false;
  }
  QueuedPacket item;
  if (cls == PortQueueConfig::kMaxClasses)
  {
    item = m_macControl.Pop();
  }
  else
  {
    item = m_queues[cls].Pop();
    uint32_t size = item.frame->Size();
    m_bytes[cls] -= size;
    if (item.ingress)
    {
      --m_losslessQueued;
      m_pfc->Release(static_cast<uint16_t>(item.ingress - 1), cls, size);
    }
    if (m_config->EcnEnabled() && m_config->EcnMarkPoint() == PortQueueConfig::DEQUEUE &&
        cls != PortQueueConfig::kControlClass)
    {
      MarkRed(*item.frame, static_cast<uint8_t>(cls), m_config->ThresholdScale(m_rateBps));
    }
    if (m_traces)
      m_traces->dequeue(ToPacket(*item.frame), cls);
  }
  uint32_t size = item.frame->Size();
  m_busyUntil = start + TxTime(size);
  ++m_txPackets;
  m_txBytes += size;
  if (m_pcap)
  {
    WritePcap(*item.frame, true, start);
  }
  const FabricChannel::Sent sent = m_channel->Transmit(std::move(item.frame), this, m_busyUntil);
  m_arrivalPending = sent == FabricChannel::Sent::Arrives;
  return true;
}

void
FabricPort::CatchUp()
{
  const Time now = Simulator::Now();
  while (m_busyUntil <= now && StartOne(m_busyUntil))
  {
  }
  // The last frame started may have been lost: then nothing else would wake the frames behind.
  if (!m_arrivalPending)
  {
    ArmWake();
  }
}

void
FabricPort::Kick()
{
  // Something became eligible now. The caller caught up before changing state, so frames due
  // earlier have started; an idle wire is free from now on, not from when it went idle.
  const Time now = Simulator::Now();
  if (m_busyUntil < now)
  {
    m_busyUntil = now;
  }
  CatchUp();
  ArmWake();
}

void
FabricPort::ArmWake()
{
  if (m_wakePending)
  {
    return;
  }
  int cls = NextClass();
  if (cls < 0)
  {
    return;
  }
  // The previous frame's arrival will catch this port up, unless it will not arrive or a frame of
  // a lossless class is queued: each departure of one releases PFC credit whose timing matters,
  // and an arrival's catch-up comes a link delay late, by when several frames may have been due.
  // So while one is queued, every start is a wake of its own, whoever would otherwise catch the
  // port up (an arrival, or a window's end of a parallel run).
  const bool lossless = m_losslessQueued > 0;
  bool exact = !m_lazy || !m_arrivalPending || lossless;
  // A link that crosses partitions delivers nothing on this side, but catches the port up at
  // its window's end instead.
  if (exact && m_lazy && !lossless && m_channel && m_channel->CatchUpLater(this))
  {
    return;
  }
  if (exact)
  {
    m_wakePending = true;
    if (!m_wake)
    {
      m_wake = Create<WakeEvent>(this);
    }
    // The wake starts the next frame: it reads the port, the queue entry and frame it starts, and
    // the link it puts the frame on.
    const std::array<uintptr_t, 3> start = StartLines();
    m_wake->SetPrefetch({ start[0], start[1], start[2], m_channel ? m_channel->TransmitLines(this) : 0 });
    FabricScheduler::ExpectPrefetching(PeekPointer(m_wake));
    // With the node's context: a wake armed by a global event (a link failure, say) belongs to the
    // node's partition in a parallel run, not to the global events.
    if (m_node)
    {
      // The simulator takes over a reference, released after the event runs; ours keeps the
      // event alive.
      m_wake->Ref();
      // Keyed by the port: whether a wake, an arrival or a window's end starts a frame, the
      // wake's order among simultaneous events is the same.
      using Sim = FabricParallelSimulatorImpl;
      Sim::ScheduleKeyed(m_context,
                         m_busyUntil - Simulator::Now(),
                         PeekPointer(m_wake),
                         Sim::KeySpace::PortWake,
                         m_context,
                         m_ifIndex);
    }
    else
    {
      // Schedule(Time, Ptr<EventImpl>) takes the simulator's reference itself: another Ref would
      // keep the wake alive for ever.
      Simulator::Schedule(m_busyUntil - Simulator::Now(), m_wake);
    }
  }
}

void
FabricPort::CatchUpBacklog()
{
  // Up to a window's worth of frames start here at once: fetch their frames together, rather
  // than miss on each in turn.
  const int cls = NextClass();
  if (cls >= 0 && cls < PortQueueConfig::kMaxClasses)
  {
    const PacketFifo& q = m_queues[cls];
    for (uint32_t i = 0, n = std::min<uint32_t>(q.Size(), 16); i < n; ++i)
    {
      __builtin_prefetch(q.At(i).frame.Get());
    }
  }
  CatchUp();
}

void
FabricPort::Wake()
{
  m_wakePending = false;
  CatchUp();
  ArmWake();
}

uint64_t
FabricPort::PfcHeadroom() const
{
  // The cable's one-way time as the headroom sees it: the peer's receive and transmit
  // pipelines (a NIC's) lengthen the PAUSE's way there and the frames' way back alike.
  Time cable;
  if (m_channel)
  {
    const FabricPort* peer = m_channel->Peer(this);
    cable = m_channel->GetDelay() + (peer->GetIngressLatency() + peer->GetEgressLatency()) / 2;
  }
  return m_config->PfcHeadroomOf(m_rateBps, cable);
}

void
FabricPort::SendPfc(uint8_t cls, bool pause)
{
  NS_LOG_FUNCTION(this << int(cls) << pause);
  PfcPauseHeader pfc;
  const uint16_t quanta = pause ? m_config->PfcPauseQuanta() : 0;
  pfc.SetPause(cls, quanta);
  if (pause)
  {
    // Held for as long as the buffer stays above XON: sent again before the peer's pause runs out.
    if (!m_pauseTimes)
      m_pauseTimes = std::make_unique<PauseTimes>();
    if (!m_pauseTimes->refresh.IsRunning())
      m_pauseTimes->refresh = Simulator::Schedule(QuantaTime(quanta) / 2, &FabricPort::RefreshPauses, this);
  }
  FramePtr frame = FramePtr::Make(FrameInnerOf<PfcPauseHeader>::kBig);
  WriteInner(*frame, pfc);
  if (pause)
    m_pauseSentMask |= uint8_t(1u << cls);
  else
    m_pauseSentMask &= uint8_t(~(1u << cls));
  if (m_traces)
    m_traces->pause(cls, pause, true);
  if (!IsLinkUp())
  {
    return;
  }
  CatchUp();
  m_macControl.Push(QueuedPacket{ std::move(frame), 0 });
  Kick();
}

void
FabricPort::ReceivePfc(const FabricFrame& frame)
{
  CatchUp();
  PfcPauseHeader pfc;
  ReadInner(frame, pfc);
  for (uint8_t cls = 1; cls < m_config->NumClasses(); ++cls)
  {
    if (!pfc.IsClassEnabled(cls))
    {
      continue;
    }
    // A PAUSE (re)starts the class's pause for its quanta; quanta 0 (XON) ends it.
    const uint16_t quanta = pfc.GetQuanta(cls);
    const bool pause = quanta > 0;
    if (pause)
    {
      if (!m_pauseTimes)
        m_pauseTimes = std::make_unique<PauseTimes>();
      m_pauseTimes->until[cls] = Simulator::Now() + QuantaTime(quanta);
    }
    if (pause != IsPaused(cls))
    {
      SetPaused(cls, pause);
      if (m_traces)
        m_traces->pause(cls, pause, false);
    }
  }
  ExpirePauses();
  Kick();
}

Time
FabricPort::QuantaTime(uint16_t quanta) const
{
  // 512 bit times per quantum, at the port's line rate.
  return PicoSeconds(static_cast<int64_t>(std::ceil(double(quanta) * 512 * 1e12 / double(m_rateBps))));
}

void
FabricPort::ExpirePauses()
{
  if (!m_pauseTimes)
    return;
  const Time now = Simulator::Now();
  Time next = Time::Max();
  bool resumed = false;
  for (uint8_t cls = 1; cls < m_config->NumClasses(); ++cls)
  {
    if (!IsPaused(cls))
      continue;
    if (m_pauseTimes->until[cls] <= now)
    {
      CatchUp();
      SetPaused(cls, false);
      if (m_traces)
        m_traces->pause(cls, false, false);
      resumed = true;
    }
    else
    {
      next = std::min(next, m_pauseTimes->until[cls]);
    }
  }
  m_pauseTimes->expiry.Cancel();
  if (next != Time::Max())
    m_pauseTimes->expiry = Simulator::Schedule(next - now, &FabricPort::ExpirePauses, this);
  if (resumed)
    Kick();
}

void
FabricPort::RefreshPauses()
{
  for (uint8_t cls = 1; cls < m_config->NumClasses(); ++cls)
  {
    if ((m_pauseSentMask >> cls) & 1)
      SendPfc(cls, true);
  }
}

void
FabricPort::SetPaused(uint8_t cls, bool paused)
{
  // Paused time counts while any class is paused by the peer.
  const uint8_t before = m_pausedMask;
  if (paused)
    m_pausedMask |= uint8_t(1u << cls);
  else
    m_pausedMask &= uint8_t(~(1u << cls));
  if (!m_pauseTimes)
    m_pauseTimes = std::make_unique<PauseTimes>();
  if (before == 0 && m_pausedMask != 0)
    m_pauseTimes->since = Simulator::Now();
  else if (before != 0 && m_pausedMask == 0)
    m_pauseTimes->closed += Simulator::Now() - m_pauseTimes->since;
}

Time
FabricPort::PausedTime() const
{
  if (!m_pauseTimes)
    return Time(0);
  return m_pausedMask ? m_pauseTimes->closed + (Simulator::Now() - m_pauseTimes->since) : m_pauseTimes->closed;
}

void
FabricPort::Receive(FramePtr frame)
{
  if (m_pcap)
  {
    WritePcap(*frame, false, Simulator::Now() - m_ingressLatency);
  }
  if (frame->IsPfc())
  {
    ReceivePfc(*frame);
    return;
  }
  m_handler->HandleFrame(*this, std::move(frame));
}

void
FabricPort::NotifyLinkState(bool up)
{
  NS_LOG_FUNCTION(this << up);
  m_linkUp = up;
  CatchUp();
  if (!up)
  {
    // What waits for a dead link is lost; upstream buffers it held are released.
    for (uint8_t cls = 0; cls < m_config->NumClasses(); ++cls)
    {
      while (!m_queues[cls].Empty())
      {
        QueuedPacket item = m_queues[cls].Pop();
        uint32_t size = item.frame->Size();
        m_bytes[cls] -= size;
        if (item.ingress)
        {
          --m_losslessQueued;
          m_pfc->Release(static_cast<uint16_t>(item.ingress - 1), cls, size);
        }
        Drop(*item.frame, DropCause::LinkDown);
      }
    }
    m_macControl.Clear();
    for (uint8_t cls = 0; cls < 8; ++cls)
    {
      SetPaused(cls, false);
    }
    m_pauseSentMask = 0; // the peer forgets our PAUSE with the link
    m_arrivalPending = false;
    if (m_wakePending)
    {
      m_wake->Cancel();
      m_wake = nullptr;
    }
    m_wakePending = false;
  }
  else
  {
    // A class still above XOFF must be paused again on the new link.
    for (uint8_t cls = 1; cls < m_config->NumClasses(); ++cls)
    {
      if (m_config->PfcEnabled(cls) && IngressBytes(cls) > m_config->PfcXoff())
      {
        SendPfc(cls, true);
      }
    }
  }
  if (m_handler)
  {
    m_handler->HandleLinkState(*this, up);
  }
}

void
FabricPort::EnablePcap(const std::string& file)
{
  m_pcap = std::make_unique<FabricPcapWriter>(file);
}

void
FabricPort::WritePcap(const FabricFrame& frame, bool sent, Time at) const
{
  const FabricPort* peer = GetPeer();
  const Mac48Address self = Mac48Address::ConvertFrom(GetAddress());
  const Mac48Address other = peer ? Mac48Address::ConvertFrom(peer->GetAddress()) : self;
  // A sent frame's first bit reaches the cable after the port's egress latency.
  const Time stamp = sent ? at + m_egressLatency : at;
  // No later record of this port can be stamped before now minus the largest lag: a sent frame
  // is recorded when the port catches up, at the latest when the frame before it reaches the
  // peer's handler (the link delay and the peer's ingress latency after this one's first bit
  // left); a received one an ingress latency after its last bit.
  const Time lag = (m_channel ? m_channel->GetDelay() : Time(0)) + m_ingressLatency + m_egressLatency +
                   (peer ? peer->GetIngressLatency() : Time(0));
  m_pcap->Write(stamp, FrameWireBytes(frame, sent ? self : other, sent ? other : self), Simulator::Now() - lag);
}

} // namespace ns3
