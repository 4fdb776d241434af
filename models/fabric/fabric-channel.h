// A full-duplex point-to-point link between two FabricPorts: propagation delay (the lookahead of
// a distributed run), up/down state, and gray failures per direction (random loss, degraded rate).
// A link going down loses what is in flight on it and what is sent to it; both ends are told.
// Leaves out: bit errors by position, FEC, and link-level retransmission.
#ifndef MRCSIM_MODELS_FABRIC_CHANNEL_H
#define MRCSIM_MODELS_FABRIC_CHANNEL_H

#include "models/fabric/drop-cause.h"
#include "models/fabric/fabric-frame.h"
#include "models/engine/fabric-scheduler.h"
#include "models/engine/ring-queue.h"
#include "models/engine/trace-bundle.h"

#include "ns3/channel.h"
#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <array>
#include <memory>
#include <string_view>
#include <vector>

namespace ns3
{

class FabricPort;
class FabricSwitch;

/// \brief Full-duplex link with one scheduled event per direction: the arrival of the frame at the
/// head of that direction's wire.
class alignas(64) FabricChannel : public Channel
{
public:
  /// \brief What crosses with a frame to another rank, before its bytes (SendAcross).
  struct AcrossHeader
  {
    int64_t arrival;   ///< time step of the frame's arrival at the far end
    uint32_t channel;  ///< the link's channel id (the same on every rank)
    uint16_t protocol; ///< the frame's L3 protocol
    uint8_t dir;       ///< the direction it travels
    /// The kind of inner header, which the receiving NIC knows from its QP's transport (MRC's
    /// RETH on every packet, say) and the bytes alone do not tell.
    uint8_t inner;
  };
  /// \brief SendAcross's frame on the receiving rank (at its barrier): onto the link's wire. Run
  /// by the engine (BarrierMessage), not called by models.
  static void ReceiveAcross(uint32_t context, const AcrossHeader& header, std::string_view frame);

  static TypeId GetTypeId();
  FabricChannel();
  ~FabricChannel() override;

  /// \brief Joins two ports; each learns the channel.
  void Attach(Ptr<FabricPort> a, Ptr<FabricPort> b);

  std::size_t GetNDevices() const override;
  Ptr<NetDevice> GetDevice(std::size_t i) const override;

  Time GetDelay() const { return m_delay; }
  void SetDelay(Time delay);
  /// \brief Recomputes the delay from a frame's serialisation to its handling at either end (the
  /// sending port's egress latency, the link's delay, the receiving port's ingress latency); ports
  /// call it when theirs change.
  void RefreshArrivalDelay();
  /// \brief The port at the other end from `from`.
  FabricPort* Peer(const FabricPort* from) const;

  bool IsUp() const { return m_up; }
  /// \brief Brings the link up or down; down loses packets in flight and tells both ports.
  void SetUp(bool up);

  /// \brief Gray failure: each packet sent from `from` is lost with probability p. Nothing on a
  /// link whose ports this process left out (FabricNetwork): it carries nothing here.
  void SetLossRate(const FabricPort* from, double p);
  double GetLossRate(const FabricPort* from) const { return m_gray ? m_gray->loss[Dir(from)] : 0.0; }
  /// \brief Gray failure: the sending rate from `from` is the port rate times `factor` (0, 1].
  /// Nothing on a link whose ports this process left out, as SetLossRate.
  void SetRateFactor(const FabricPort* from, double factor);
  double GetRateFactor(const FabricPort* from) const;

  /// \brief What became of a frame put on the link (Transmit).
  enum class Sent : uint8_t
  {
    Arrives, ///< on the wire: its arrival is scheduled (and will catch the sender up)
    Held,    ///< the link crosses partitions (SetHandover): it reaches the wire at the window's end
    Dropped, ///< lost at once: the link is down or the frame drew a random loss
  };
  /// \brief Puts a frame on the wire, its last bit leaving at `txEnd` (now or later); it reaches
  /// the peer after the delay and the peer's ingress latency, unless the link is down, the frame
  /// is lost, or the link fails meanwhile. Whether it is lost is drawn now, whether the link
  /// crosses partitions or not: each direction draws in the order its frames are sent.
  Sent Transmit(FramePtr frame, const FabricPort* from, Time txEnd);
  /// \brief The prefetch hint (a PrefetchingEvent::Lines entry) for what Transmit from `from`
  /// reads of the link: its first line and its direction's.
  uintptr_t TransmitLines(const FabricPort* from) const;

  /// \brief The two ends run in different partitions of a parallel run
  /// (FabricParallelSimulatorImpl): frames sent in a window reach the wire at its end, where the
  /// random-loss draw is made too, and the sender wakes itself instead of being caught up by
  /// its frames' arrivals.
  void SetHandover(bool handover);
  /// \brief For the lazy start of a port whose frames do not arrive on this side (the link
  /// crosses partitions, SetHandover): arranges one catch-up of `from`
  /// (FabricPort::CatchUpBacklog) at the end of the current window, if none is pending, and
  /// returns true. Returns false on any other link: there the port wakes itself.
  bool CatchUpLater(const FabricPort* from)
  {
    if (!m_handover)
    {
      return false;
    }
    DeferCatchUp(Dir(from));
    return true;
  }
  /// \brief The smaller of the two directions' delays from the end of a frame's transmission to
  /// its handling (the lookahead this link allows a parallel run).
  Time GetMinArrivalDelay() const { return std::min(m_dirs[0].arrivalDelay, m_dirs[1].arrivalDelay); }

  /// \brief Counts drops into counters[cause] (an array of DropCause::Count, outliving the link).
  void SetDropCounters(uint64_t* counters) { m_dropCounters = counters; }

protected:
  void DoDispose() override;

private:
  uint8_t Dir(const FabricPort* from) const { return from == PeekPointer(m_ports[0]) ? 0 : 1; }
  /// \brief The line of direction `dir`'s state, counted from the object's first.
  unsigned DirLine(uint8_t dir) const;
  class DeliverEvent;
  void Deliver(uint8_t dir, DeliverEvent& event);
  /// \brief Schedules `event` (direction dir's) for the arrival of the frame at the head of the wire.
  void Arm(uint8_t dir, DeliverEvent& event);
  /// \brief Lists in `event` what the arrival of direction dir's head frame will touch (see
  /// Deliver), each object naming its own lines: the link's, the sending port's start of its
  /// next frame, the receiving port's, and the next switch's forwarding or the host's arrival.
  void ListArrivalLines(uint8_t dir, DeliverEvent& event) const;
  DeliverEvent& DeliverEventOf(uint8_t dir);
  void Drop(const FabricFrame& frame, DropCause cause);
  bool DrawLoss(uint8_t dir);
  /// \brief At a window's end: moves direction `dir`'s handed-over frames to the wire (or, when
  /// the receiving end runs on another rank, sends them there as bytes).
  static void HandOver(void* channel, uint32_t dir);
  /// \brief At a window's end: the catch-up CatchUpLater arranged for direction `dir`'s sender.
  static void CatchUpSender(void* channel, uint32_t dir);
  /// \brief CatchUpLater's part on a link that crosses partitions.
  void DeferCatchUp(uint8_t dir);
  /// \brief A frame direction `dir` of a link sends to another rank: an AcrossHeader and the frame
  /// as its bytes (ToPacket, serialised with its tags), through the engine's BarrierMessage.
  void SendAcross(uint8_t dir, const FabricFrame& frame, Time arrival);

  // The members a frame's transmission and arrival touch come first: the object's first cache
  // line (the class is line-aligned), then its direction's line, which the arrival event lists
  // for prefetching.
  Ptr<FabricPort> m_ports[2];
  bool m_up = true;
  bool m_lossy = false;    ///< a direction has a random-loss rate (see m_gray)
  class Handover;
  std::unique_ptr<Handover> m_handover; ///< see SetHandover (fabric-channel-handover.h)
  /// A frame on the wire. Arrivals in one direction come in the order frames were sent (one
  /// delay, increasing end of transmission), so each direction is a FIFO with one pending
  /// event, for its head, instead of one event per frame. 8 bytes: a large run has a million
  /// frames on wires. The arrival is kept as the time steps after the arrival of the frame
  /// ahead (headArrival for the head); a gap that does not fit in 32 bits (4.3 ms in
  /// picoseconds) is kFarGap, and that arrival is in m_far.
  struct InFlight
  {
    FramePtr frame;
    uint32_t gap;
  };
  static constexpr uint32_t kFarGap = UINT32_MAX;
  /// \brief The gap from an arrival at `last` to one at `arrival`, or kFarGap if it does not fit.
  static uint32_t GapOf(Time last, Time arrival)
  {
    const int64_t steps = (arrival - last).GetTimeStep();
    return steps >= 0 && steps < int64_t(kFarGap) ? static_cast<uint32_t>(steps) : kFarGap;
  }
  /// \brief The gap of an arrival joining a gap-encoded sequence (a wire, a hand-over buffer)
  /// whose first and last arrivals are `first` and `last` (both updated); kFarGap means the
  /// caller keeps the arrival aside.
  static uint32_t NextGap(bool empty, Time& first, Time& last, Time arrival)
  {
    const uint32_t gap = empty ? 0 : GapOf(last, arrival);
    if (empty)
    {
      first = arrival;
    }
    last = arrival;
    return gap;
  }
  /// One direction's state: one cache line.
  struct alignas(64) Direction
  {
    RingQueue<InFlight> wire;
    Time headArrival;                       ///< arrival of the head frame
    Time tailArrival;                       ///< arrival of the last frame
    Time arrivalDelay;                      ///< m_delay plus the ingress latency of the port this direction reaches
    const FabricSwitch* toSwitch = nullptr; ///< the switch this direction reaches, if any
    /// The arrival event, made once and scheduled again and again (no allocation per frame).
    /// The simulator holds a reference while it is pending, so a channel destroyed before the
    /// simulator leaves no dangling event.
    Ptr<DeliverEvent> deliver;
    uint32_t context = 0; ///< node id of the port this direction reaches (event context)
    bool armed = false;   ///< the head's arrival event is scheduled
  };
  static_assert(sizeof(Direction) == 64, "a channel direction is one cache line");
  Direction m_dirs[2];
  Time m_delay;
  /// Gray-failure state, allocated only for links that have one.
  struct Gray
  {
    double loss[2] = { 0, 0 };
    /// splitmix64 states for random loss, one per direction (each draws in its frames' send
    /// order, however the two directions' sends interleave), seeded on first use
    uint64_t rng[2] = { 0, 0 };
  };
  Gray& GetGray();
  std::unique_ptr<Gray> m_gray;
  uint64_t* m_dropCounters = nullptr; ///< per-cause counters shared with the network, if set
  /// Arrivals of frames whose gap is kFarGap, per direction (allocated at the first).
  std::unique_ptr<RingQueue<Time>[]> m_far;
  /// \brief Puts a frame at the end of direction `dir`'s wire.
  void PushWire(uint8_t dir, FramePtr frame, Time arrival);
  /// \brief Takes the head frame off direction `dir`'s wire.
  FramePtr PopWire(uint8_t dir);

  struct Traces
  {
    TracedCallback<bool> linkState;
    TracedCallback<Ptr<const Packet>, DropCause> drop;
  };
  std::unique_ptr<Traces> m_traces; ///< allocated when the first trace source is connected
};

} // namespace ns3

#endif
