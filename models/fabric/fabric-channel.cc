#include "models/fabric/fabric-channel.h"

#include "models/fabric/fabric-channel-handover.h"

#include "models/engine/fabric-parallel-simulator.h"
#include "models/engine/node-message.h"
#include "models/fabric/fabric-port.h"
#include "models/fabric/fabric-switch.h"
#include "models/engine/splitmix.h"

#include "ns3/abort.h"
#include "ns3/channel-list.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"


namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");

NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
  static TypeId tid = TypeId("ns3::FabricChannel")
                        .SetParent<Channel>()
                        .AddConstructor<FabricChannel>()
                        .AddAttribute("Delay",
                                      "One-way propagation delay (also the lookahead of a distributed run).",
                                      TimeValue(MicroSeconds(1)),
                                      MakeTimeAccessor(&FabricChannel::SetDelay, &FabricChannel::GetDelay),
                                      MakeTimeChecker())
                        .AddTraceSource("LinkState",
                                        "The link went up (true) or down (false).",
                                        MakeBundleTraceAccessor(&FabricChannel::m_traces, &Traces::linkState),
                                        "ns3::TracedValueCallback::Bool")
                        .AddTraceSource("Drop",
                                        "A frame lost on the link: link down, or random loss.",
                                        MakeBundleTraceAccessor(&FabricChannel::m_traces, &Traces::drop),
                                        "ns3::FabricChannel::DropTracedCallback");
  return tid;
}

/// \brief A direction's arrival event. It lists what the arrival will touch, for FabricScheduler
/// to prefetch (ListArrivalLines says what): the link, its wire and frames, both ports, and the
/// next switch's egress port.
class FabricChannel::DeliverEvent : public PrefetchingEvent
{
public:
  DeliverEvent(FabricChannel* channel, uint8_t dir) : m_channel(channel), m_dir(dir)
  {
    // FabricScheduler prefetches sizeof(PrefetchingEvent) bytes of a pending event: ours too.
    static_assert(sizeof(DeliverEvent) == sizeof(PrefetchingEvent), "DeliverEvent outgrows its prefetched lines");
  }

  void Notify() override { m_channel->Deliver(m_dir, *this); }

  FabricChannel* m_channel;
  uint8_t m_dir;

  /// Entries ListArrivalLines sets for each frame; the last three name where the frame goes
  /// next: the egress port of the switch it reaches, or the arrival lines of the host it
  /// reaches (FabricPacketHandler::GetArrivalLines), set once when the event is made.
  static constexpr std::size_t kPerFrame = 9;
};

FabricChannel::FabricChannel() = default;

FabricChannel::~FabricChannel() = default;

void
FabricChannel::DoDispose()
{
  m_ports[0] = nullptr;
  m_ports[1] = nullptr;
  m_dirs[0].wire.clear();
  m_dirs[1].wire.clear();
  m_far.reset();
  for (auto& d : m_dirs)
  {
    Ptr<DeliverEvent>& event = d.deliver;
    if (event)
    {
      event->Cancel(); // a pending arrival finds nothing to deliver
      event = nullptr;
    }
  }
  Channel::DoDispose();
}

void
FabricChannel::Drop(const FabricFrame& frame, DropCause cause)
{
  if (m_dropCounters)
  {
    // Shared by all links and ports, which the partitions of a parallel run update at once.
    __atomic_fetch_add(&m_dropCounters[static_cast<size_t>(cause)], 1, __ATOMIC_RELAXED);
  }
  if (m_traces)
    m_traces->drop(ToPacket(frame), cause);
}

void
FabricChannel::Attach(Ptr<FabricPort> a, Ptr<FabricPort> b)
{
  NS_ABORT_MSG_IF(m_ports[0] || m_ports[1], "FabricChannel::Attach: channel already attached");
  m_ports[0] = a;
  m_ports[1] = b;
  a->SetChannel(this);
  b->SetChannel(this);
  RefreshArrivalDelay();
}

void
FabricChannel::SetDelay(Time delay)
{
  m_delay = delay;
  RefreshArrivalDelay();
}

void
FabricChannel::RefreshArrivalDelay()
{
  for (uint8_t dir = 0; dir < 2; ++dir)
  {
    const FabricPort* from = PeekPointer(m_ports[dir]);
    const FabricPort* to = PeekPointer(m_ports[1 - dir]);
    m_dirs[dir].arrivalDelay =
      m_delay + (from ? from->GetEgressLatency() : Time(0)) + (to ? to->GetIngressLatency() : Time(0));
    m_dirs[dir].context = to && to->GetNode() ? to->GetNode()->GetId() : 0;
    m_dirs[dir].toSwitch = to ? dynamic_cast<const FabricSwitch*>(PeekPointer(to->GetNode())) : nullptr;
  }
}

std::size_t
FabricChannel::GetNDevices() const
{
  return (m_ports[0] ? 1 : 0) + (m_ports[1] ? 1 : 0);
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
  return m_ports[i];
}

FabricPort*
FabricChannel::Peer(const FabricPort* from) const
{
  return PeekPointer(m_ports[1 - Dir(from)]);
}

void
FabricChannel::SetUp(bool up)
{
  NS_LOG_FUNCTION(this << up);
  NS_ABORT_MSG_IF(FabricParallelSimulatorImpl::InParallelWindow(),
                  "FabricChannel::SetUp inside a partition of a parallel run: it touches both ends; schedule it "
                  "as a global event (no context, before Run)");
  if (up == m_up)
  {
    return;
  }
  m_up = up;
  if (!up)
  {
    // What is on the wire is lost now. A cancelled ns-3 event cannot run again, so a direction
    // whose arrival was pending gets a new event for its next frame.
    for (uint8_t dir = 0; dir < 2; ++dir)
    {
      while (!m_dirs[dir].wire.empty())
      {
        Drop(*PopWire(dir), DropCause::LinkDown);
      }
      if (m_dirs[dir].armed)
      {
        m_dirs[dir].deliver->Cancel();
        m_dirs[dir].deliver = nullptr;
        m_dirs[dir].armed = false;
      }
    }
  }
  if (m_traces)
    m_traces->linkState(up);
  for (const auto& port : m_ports)
  {
    if (port) // a channel not attached to its ports keeps only its state
      port->NotifyLinkState(up);
  }
}

FabricChannel::Gray&
FabricChannel::GetGray()
{
  if (!m_gray)
  {
    m_gray = std::make_unique<Gray>();
    // Seeded from the run's seed and this channel's direction: runs with the same seed lose the
    // same frames, and no RNG object is kept per link.
    for (uint8_t dir = 0; dir < 2; ++dir)
    {
      m_gray->rng[dir] = SplitMixSeed(RngSeedManager::GetSeed(), RngSeedManager::GetRun(), 2 * GetId() + dir);
    }
  }
  return *m_gray;
}

void
FabricChannel::SetLossRate(const FabricPort* from, double p)
{
  NS_LOG_FUNCTION(this << from << p);
  NS_ABORT_MSG_IF(FabricParallelSimulatorImpl::InParallelWindow(),
                  "FabricChannel::SetLossRate inside a partition of a parallel run: it touches both ends; schedule it "
                  "as a global event (no context, before Run)");
  NS_ABORT_MSG_IF(p < 0 || p > 1, "FabricChannel::SetLossRate: probability " << p << " outside [0, 1]");
  if (GetNDevices() == 0)
  {
    return;
  }
  Gray& gray = GetGray();
  gray.loss[Dir(from)] = p;
  m_lossy = gray.loss[0] > 0 || gray.loss[1] > 0;
}

void
FabricChannel::SetRateFactor(const FabricPort* from, double factor)
{
  NS_LOG_FUNCTION(this << from << factor);
  NS_ABORT_MSG_IF(
    FabricParallelSimulatorImpl::InParallelWindow(),
    "FabricChannel::SetRateFactor inside a partition of a parallel run: it touches both ends; schedule it "
    "as a global event (no context, before Run)");
  NS_ABORT_MSG_IF(factor <= 0 || factor > 1, "FabricChannel::SetRateFactor: factor " << factor << " outside (0, 1]");
  if (GetNDevices() == 0)
  {
    return;
  }
  // Frames already due to start keep the rate they had.
  m_ports[Dir(from)]->CatchUp();
  m_ports[Dir(from)]->SetRateFactor(factor);
}

double
FabricChannel::GetRateFactor(const FabricPort* from) const
{
  return m_ports[Dir(from)]->GetRateFactor(); // the sending port keeps it: it times its frames
}

bool
FabricChannel::DrawLoss(uint8_t dir)
{
  Gray& g = GetGray();
  return SplitMixUniform(g.rng[dir]) < g.loss[dir];
}

FabricChannel::Sent
FabricChannel::Transmit(FramePtr frame, const FabricPort* from, Time txEnd)
{
  uint8_t dir = Dir(from);
  if (!m_up)
  {
    Drop(*frame, DropCause::LinkDown);
    return Sent::Dropped;
  }
  if (m_lossy && m_gray->loss[dir] > 0 && DrawLoss(dir))
  {
    Drop(*frame, DropCause::RandomLoss);
    return Sent::Dropped;
  }
  if (m_handover)
  {
    // The receiving end runs on another thread: the frame waits for the window's end.
    if (m_handover->Hold(dir, std::move(frame), txEnd + m_dirs[dir].arrivalDelay))
    {
      FabricParallelSimulatorImpl::DeferToBarrier(&FabricChannel::HandOver, this, dir);
    }
    return Sent::Held;
  }
  PushWire(dir, std::move(frame), txEnd + m_dirs[dir].arrivalDelay);
  if (!m_dirs[dir].armed)
  {
    Arm(dir, DeliverEventOf(dir));
  }
  return Sent::Arrives;
}

void
FabricChannel::SetHandover(bool handover)
{
  NS_LOG_FUNCTION(this << handover);
  NS_ABORT_MSG_IF(!m_dirs[0].wire.empty() || !m_dirs[1].wire.empty(), "FabricChannel::SetHandover: frames on the wire");
  if (handover && !m_handover)
  {
    m_handover = std::make_unique<Handover>();
  }
  else if (!handover)
  {
    m_handover = nullptr;
  }
}

void
FabricChannel::HandOver(void* channel, uint32_t dir)
{
  auto* self = static_cast<FabricChannel*>(channel);
  const bool remote = !FabricParallelSimulatorImpl::RunsHere(self->m_dirs[dir].context);
  self->m_handover->Release(static_cast<uint8_t>(dir),
                            [self, dir, remote](FramePtr frame, Time arrival)
                            {
                              // Its loss was drawn when it was sent (Transmit). A link changes
                              // state only between windows, after the hand-overs: a defence.
                              if (!self->m_up)
                              {
                                self->Drop(*frame, DropCause::LinkDown);
                              }
                              else if (remote)
                              {
                                self->SendAcross(static_cast<uint8_t>(dir), *frame, arrival);
                              }
                              else
                              {
                                self->PushWire(static_cast<uint8_t>(dir), std::move(frame), arrival);
                              }
                            });
  if (!self->m_dirs[dir].armed && !self->m_dirs[dir].wire.empty())
  {
    self->Arm(static_cast<uint8_t>(dir), self->DeliverEventOf(static_cast<uint8_t>(dir)));
  }
}

void
FabricChannel::DeferCatchUp(uint8_t dir)
{
  // No arrival here catches the sender up, but a catch-up before the window's end is just as
  // exact: the frames started then keep their start times, all that reads the port catches it
  // up first, and what is sent in a window reaches the other side at its end. One deferred
  // catch-up per window replaces a wake per frame.
  bool& pending = m_handover->CatchUpPending(dir);
  if (!pending)
  {
    pending = true;
    // In the sender's partition (its node is the one the other direction reaches). From a global
    // event (the partitions stopped), the end of that partition's next window: the same catch-up,
    // and no event, as when the partition asks itself.
    FabricParallelSimulatorImpl::DeferToWindowEndOf(m_dirs[1 - dir].context, &FabricChannel::CatchUpSender, this, dir);
  }
}

void
FabricChannel::CatchUpSender(void* channel, uint32_t dir)
{
  auto* self = static_cast<FabricChannel*>(channel);
  self->m_handover->CatchUpPending(static_cast<uint8_t>(dir)) = false;
  self->m_ports[dir]->CatchUpBacklog();
}

namespace
{

using AcrossMessage = BarrierMessage<FabricChannel::AcrossHeader, &FabricChannel::ReceiveAcross>;

} // namespace

void
FabricChannel::SendAcross(uint8_t dir, const FabricFrame& frame, Time arrival)
{
  // The frame crosses as its bytes on the wire (ToPacket), the header as the fields FromPacket
  // needs to make it again.
  Ptr<Packet> packet = ToPacket(frame);
  std::string bytes(packet->GetSerializedSize(), '\0');
  NS_ABORT_MSG_IF(!packet->Serialize(reinterpret_cast<uint8_t*>(bytes.data()), static_cast<uint32_t>(bytes.size())),
                  "FabricChannel: a frame did not serialise");
  const AcrossHeader header{ arrival.GetTimeStep(), GetId(), frame.Protocol(), dir, frame.inner };
  AcrossMessage::Send(m_dirs[dir].context, header, bytes);
}

void
FabricChannel::ReceiveAcross(uint32_t, const AcrossHeader& header, std::string_view frame)
{
  const uint8_t dir = header.dir;
  auto* self = dynamic_cast<FabricChannel*>(PeekPointer(ChannelList::GetChannel(header.channel)));
  NS_ABORT_MSG_IF(!self || dir > 1, "FabricChannel: a frame from another rank for no link (" << header.channel << ")");
  Ptr<Packet> packet =
    Create<Packet>(reinterpret_cast<const uint8_t*>(frame.data()), static_cast<uint32_t>(frame.size()), true);
  self->PushWire(dir, FromPacket(packet, header.protocol, header.inner), TimeStep(header.arrival));
  if (!self->m_dirs[dir].armed)
  {
    self->Arm(dir, self->DeliverEventOf(dir));
  }
}

void
FabricChannel::PushWire(uint8_t dir, FramePtr frame, Time arrival)
{
  Direction& d = m_dirs[dir];
  RingQueue<InFlight>& wire = d.wire;
  const uint32_t gap = NextGap(wire.empty(), d.headArrival, d.tailArrival, arrival);
  if (gap == kFarGap)
  {
    if (!m_far)
    {
      m_far = std::make_unique<RingQueue<Time>[]>(2);
    }
    m_far[dir].push_back(arrival);
  }
  wire.push_back(InFlight{ std::move(frame), gap });
}

FramePtr
FabricChannel::PopWire(uint8_t dir)
{
  RingQueue<InFlight>& wire = m_dirs[dir].wire;
  FramePtr frame = std::move(wire.front().frame);
  wire.pop_front();
  if (!wire.empty())
  {
    const uint32_t gap = wire.front().gap;
    m_dirs[dir].headArrival = gap == kFarGap ? m_far[dir].take_front() : m_dirs[dir].headArrival + TimeStep(gap);
  }
  return frame;
}

FabricChannel::DeliverEvent&
FabricChannel::DeliverEventOf(uint8_t dir)
{
  if (!m_dirs[dir].deliver)
  {
    m_dirs[dir].deliver = Create<DeliverEvent>(this, dir);
    const FabricPacketHandler* to = m_ports[1 - dir]->GetHandler();
    if (to && !m_dirs[dir].toSwitch)
    {
      const FabricPacketHandler::ArrivalLines host = to->GetArrivalLines();
      using E = PrefetchingEvent;
      m_dirs[dir].deliver->SetPrefetchEntries(DeliverEvent::kPerFrame,
                                              { E::Lines(host[0]), E::Lines(host[1]), E::Lines(host[2]) });
    }
  }
  return *m_dirs[dir].deliver;
}

uintptr_t
FabricChannel::TransmitLines(const FabricPort* from) const
{
  return PrefetchingEvent::Lines(this, 1u | 1u << DirLine(Dir(from)));
}

unsigned
FabricChannel::DirLine(uint8_t dir) const
{
  return static_cast<unsigned>((reinterpret_cast<uintptr_t>(&m_dirs[dir]) >> 6) -
                               (reinterpret_cast<uintptr_t>(this) >> 6));
}

void
FabricChannel::ListArrivalLines(uint8_t dir, DeliverEvent& event) const
{
  // The arrival catches the sender up (FabricPort::FrameArrived): it starts its next frame,
  // reading what the port's StartLines name. The receiving port's Receive reads its
  // ReceiveLines. A switch then forwards the frame (FabricSwitch::ForwardLines, listed last); a
  // host's arrival lines are listed once (DeliverEventOf). The head frame is in cache here (just
  // sent, or listed by the arrival before this one as the frame behind the head), so reading its
  // uSID costs no miss. With hand-over, the sender runs on another thread: nothing of it is
  // read, or listed.
  const Direction& d = m_dirs[dir];
  const InFlight& head = d.wire.front();
  const std::array<uintptr_t, 3> start =
    m_handover ? std::array<uintptr_t, 3>{} : m_ports[dir]->StartLines();
  // The entry behind the head, which the next Arm reads as its head: in the head's line or the
  // next one, unless the ring wraps between them.
  const InFlight* second = d.wire.size() > 1 ? &d.wire[1] : nullptr;
  const uintptr_t headLine = reinterpret_cast<uintptr_t>(&head) >> 6;
  const uintptr_t secondLine = reinterpret_cast<uintptr_t>(second) >> 6;
  const bool nextLine = second && secondLine == headLine + 1;
  const bool wraps = second && secondLine != headLine && !nextLine;
  static_assert(sizeof(FabricChannel) <= 6 * 64, "a channel's lines fit in one prefetch entry");
  using E = PrefetchingEvent;
  event.SetPrefetchEntries(0,
                           { E::Lines(this, 1u | 1u << DirLine(dir)),
                             E::Lines(&head, nextLine ? 0b11 : 0b1),
                             E::Lines(head.frame.Get()),
                             E::Lines(second ? second->frame.Get() : nullptr),
                             m_ports[1 - dir]->ReceiveLines(),
                             start[0],
                             start[1],
                             start[2],
                             E::Lines(wraps ? second : nullptr) });
  static_assert(DeliverEvent::kPerFrame == 9, "the entries above");
  if (d.toSwitch)
  {
    const std::array<uintptr_t, 2> forward = d.toSwitch->ForwardLines(*head.frame);
    event.SetPrefetchEntries(DeliverEvent::kPerFrame, { forward[0], forward[1], 0 });
  }
}

void
FabricChannel::Arm(uint8_t dir, DeliverEvent& event)
{
  m_dirs[dir].armed = true;
  ListArrivalLines(dir, event);
  // The simulator releases one reference after the event runs; ours keeps the event alive.
  event.Ref();
  FabricScheduler::ExpectPrefetching(&event);
  // Keyed by the link direction: the order of the arrival among simultaneous events does not
  // depend on who armed it (the sender, the receiver, or a window's end of a parallel run).
  using Sim = FabricParallelSimulatorImpl;
  Sim::ScheduleKeyed(m_dirs[dir].context,
                     m_dirs[dir].headArrival - Simulator::Now(),
                     &event,
                     Sim::KeySpace::LinkArrival,
                     GetId(),
                     dir);
}

void
FabricChannel::Deliver(uint8_t dir, DeliverEvent& event)
{
  m_dirs[dir].armed = false;
  FramePtr head = PopWire(dir);
  // The sender's part of the lazy start (FabricPort::FrameArrived), before the frame is received:
  // frames it starts join the wire behind the ones already on it. With hand-over the sender runs
  // elsewhere and wakes itself.
  if (!m_handover)
  {
    m_ports[dir]->FrameArrived();
  }
  m_ports[1 - dir]->Receive(std::move(head));
  if (!m_dirs[dir].armed && !m_dirs[dir].wire.empty())
  {
    Arm(dir, event);
  }
}

} // namespace ns3
