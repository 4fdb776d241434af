// A port of a switch or NIC (a NetDevice): egress queues per traffic class served by strict
// priority, drop-tail byte limits, RED-style ECN marking, trimming above a threshold, and PFC
// (PAUSE/RESUME frames across the link as the switch's FabricPfcAccountant decides, pauses timed
// out by their quanta and re-sent while they hold, paused classes held back).
// Leaves out: shared buffers, WRR scheduling.
//
// Events: a frame's only event is its arrival at the far end. A backlogged port schedules no
// event to start its next frame: it catches up lazily, starting every frame whose start time has
// passed (at that exact start time) whenever it is next touched: an enqueue, a PFC frame, a link
// change, a query, or the arrival of its previous frame at the peer, which always comes before
// the next frame could have arrived. Decisions at enqueue (ECN, trimming, drop-tail) therefore
// see the exact queue. A port falls back to an explicit start event when the previous frame will
// not arrive (lost) or when the next frame's departure must release PFC ingress credit on time.
// Dequeue traces fire when the port catches up, at most one link delay after the frame started.
#ifndef MRCSIM_MODELS_FABRIC_PORT_H
#define MRCSIM_MODELS_FABRIC_PORT_H

#include "models/fabric/drop-cause.h"
#include "models/engine/trace-bundle.h"
#include "models/fabric/packet-fifo.h"
#include "models/fabric/pfc-accountant.h"
#include "models/fabric/port-queue-config.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/traced-callback.h"

#include <array>

namespace ns3
{

class FabricChannel;
class FabricPort;
class FabricPcapWriter;

/// \brief What a node does with a frame one of its ports received.
class FabricPacketHandler
{
public:
  virtual ~FabricPacketHandler() = default;
  /// \brief An IPv6 frame arrived on `port` (PFC frames are consumed by the port).
  virtual void HandleFrame(FabricPort& port, FramePtr frame) = 0;
  /// \brief The port's link went up or down (the port already dropped its queues if down).
  virtual void HandleLinkState(FabricPort& port, bool up) = 0;

  /// Memory every frame's arrival here reads before the frame itself says where to go next (the
  /// handler's object, its table of queue pairs, ...): a hint for prefetching, taken by links
  /// once, when they first deliver to it.
  using ArrivalLines = std::array<const void*, 3>;
  virtual ArrivalLines GetArrivalLines() const { return {}; }
  /// \brief The plane of a switch; -1 for a node of no plane (a host).
  virtual int GetFabricPlane() const { return -1; }
};

/// \brief Switch or NIC port: egress queueing and scheduling, PFC, the receive side of a link.
class alignas(64) FabricPort : public NetDevice
{
public:
  /// \brief The part of the object a frame's hop touches (for prefetching), from its start.
  static constexpr std::size_t kHotBytes = 256;

  static TypeId GetTypeId();
  FabricPort();
  ~FabricPort() override;

  static constexpr uint16_t kIpv6 = 0x86DD;
  static constexpr uint16_t kMacControl = 0x8808;

  // ---- set-up --------------------------------------------------------------------------------
  void SetChannel(Ptr<FabricChannel> channel);
  void SetDataRate(DataRate rate)
  {
    m_rateBps = rate.GetBitRate();
    m_txTimeBytes = UINT32_MAX;
  }
  DataRate GetDataRate() const { return DataRate(m_rateBps); }
  void SetQueueConfig(Ptr<PortQueueConfig> config) { m_config = config; }
  Ptr<PortQueueConfig> GetQueueConfig() const { return m_config; }
  /// \brief The same, without a reference count (for the hot path: shared by many ports, whose
  /// partitions may run on several threads, it must not be counted from them).
  const PortQueueConfig* QueueConfig() const { return PeekPointer(m_config); }
  void SetHandler(FabricPacketHandler* handler) { m_handler = handler; }
  FabricPacketHandler* GetHandler() const { return m_handler; }
  /// \brief Delay between a frame's arrival and its handling by the node (switch latency).
  void SetIngressLatency(Time latency);
  Time GetIngressLatency() const { return m_ingressLatency; }
  /// \brief Fixed latency between a frame's serialisation and its arrival on the cable (a NIC's
  /// transmit pipeline): added to every frame this port sends, without changing its rate.
  void SetEgressLatency(Time latency);
  Time GetEgressLatency() const { return m_egressLatency; }
  /// \brief Seeds the ECN marking stream (deterministic per run seed, node and port).
  void SetMarkingSeed(uint64_t seed) { m_rng = seed; }
  /// \brief Counts drops into counters[cause] (an array of DropCause::Count, outliving the port).
  void SetDropCounters(uint64_t* counters) { m_dropCounters = counters; }

  /// \brief The PFC ingress accounting of the port's switch (none at a host, whose ports
  /// account no ingress); the port is numbered there by its interface index.
  void SetPfcAccountant(FabricPfcAccountant* accountant) { m_pfc = accountant; }

  // ---- data path -----------------------------------------------------------------------------
  /// \brief Queues an IPv6 frame in class `cls`, applying trimming, ECN, drop-tail and PFC
  /// ingress accounting. Returns false if it was dropped. `ingress` is the port it came in on.
  bool Enqueue(FramePtr frame, uint8_t cls, FabricPort* ingress);
  /// \brief A frame from the channel (PFC frames are consumed here, others go to the handler).
  void Receive(FramePtr frame);
  /// \brief Called by the channel on a link state change.
  void NotifyLinkState(bool up);
  /// \brief Gray failure: this port sends at its rate times `factor` (FabricChannel::SetRateFactor,
  /// which validates it and catches the port up first).
  void SetRateFactor(double factor);
  double GetRateFactor() const { return m_rateFactor; }
  /// \brief Sends PAUSE (`pause`) or RESUME of class `cls` to the peer (the PFC accountant's
  /// decision), and re-sends a PAUSE before it runs out for as long as it holds.
  void PauseUpstream(uint8_t cls, bool pause) { SendPfc(cls, pause); }
  /// \brief Whether this port holds class `cls` of its peer paused.
  bool IsPausingUpstream(uint8_t cls) const { return (m_pauseSentMask >> cls) & 1; }
  /// \brief PFC headroom of this ingress port's lossless classes (PortQueueConfig::PfcHeadroomOf,
  /// for its rate and cable), as its configuration, rate and peer now give it. Pure: the PFC
  /// accountant, which asks it per frame, keeps it (FabricPfcAccountant::Admits).
  uint64_t PfcHeadroom() const;

  /// \brief Starts every frame whose start time has passed (see the file comment). Observers
  /// call it before reading the state below as of now: the getters are pure, and between
  /// catch-ups they describe the port as of its last one.
  void CatchUp();

  // ---- the lazy start's interface to the link (see the file comment) -------------------------
  // The port owns the lazy start: whether it is on, when a frame starts, and when the port must
  // wake itself instead. Its link's part is to say whether a frame will arrive (Transmit's
  // result) and, when it does, to call FrameArrived before the peer receives it.

  /// \brief A frame this port sent reached the peer. The port's next frame cannot have arrived
  /// yet: a lazy port starts it (and any others due) now, and they join the wire behind.
  void FrameArrived()
  {
    if (m_lazy)
    {
      CatchUp();
    }
  }
  /// \brief CatchUp when many frames may be due at once (a link's deferred catch-up,
  /// FabricChannel::CatchUpLater): their frames are fetched together first.
  void CatchUpBacklog();
  /// \brief Prefetch hints (PrefetchingEvent::Lines entries) for what a start of this port's
  /// next frame reads: the port's hot lines, the queue entry and its frame.
  std::array<uintptr_t, 3> StartLines() const;
  /// \brief The prefetch hint for what Receive reads of this port: its first line.
  uintptr_t ReceiveLines() const;

  // ---- state ---------------------------------------------------------------------------------
  uint32_t QueueBytes(uint8_t cls) const { return m_bytes[cls]; }
  /// \brief Bytes of a lossless (PFC) class that came in here and are queued at other ports.
  uint32_t IngressBytes(uint8_t cls) const
  {
    return m_pfc ? m_pfc->IngressBytes(static_cast<uint16_t>(m_ifIndex), cls) : 0;
  }
  bool IsPaused(uint8_t cls) const { return (m_pausedMask >> cls) & 1; }
  bool IsBusy() const;
  /// \brief When the wire frees up (after the frames already started).
  Time GetBusyUntil() const { return m_busyUntil; }
  FabricChannel* GetFabricChannel() const { return PeekPointer(m_channel); }
  FabricPort* GetPeer() const;
  uint64_t TxPackets() const { return m_txPackets; }
  uint64_t TxBytes() const { return m_txBytes; }
  /// \brief Data packets trimmed here, and packets marked CE here (since the start).
  uint64_t TrimmedPackets() const { return m_trimmed; }
  uint64_t EcnMarkedPackets() const { return m_ecnMarked; }
  /// \brief Time this port spent paused by its peer's PFC frames (any class), since the start.
  Time PausedTime() const;
  /// \brief Time to put `bytes` of packet on this port's wire (framing and degraded rate included).
  Time TxTime(uint32_t bytes) const;

  /// \brief Writes every frame this port sends and receives to a pcap file as a tap on its link
  /// would see it (FabricPcapWriter: DLT_EN10MB, nanosecond timestamps; sent frames stamped when
  /// their first bit leaves, received ones when their last bit has arrived). Aborts if the file
  /// cannot be written.
  void EnablePcap(const std::string& file);

  // ---- NetDevice -----------------------------------------------------------------------------
  void SetIfIndex(const uint32_t index) override { m_ifIndex = index; }
  uint32_t GetIfIndex() const override { return m_ifIndex; }
  Ptr<Channel> GetChannel() const override;
  void SetAddress(Address address) override;
  Address GetAddress() const override;
  bool SetMtu(const uint16_t mtu) override;
  uint16_t GetMtu() const override { return 9000; }
  bool IsLinkUp() const override;
  void AddLinkChangeCallback(Callback<void> callback) override {}
  bool IsBroadcast() const override { return false; }
  Address GetBroadcast() const override { return Mac48Address::GetBroadcast(); }
  bool IsMulticast() const override { return false; }
  Address GetMulticast(Ipv4Address multicastGroup) const override { return Mac48Address::GetMulticast(multicastGroup); }
  Address GetMulticast(Ipv6Address addr) const override { return Mac48Address::GetMulticast(addr); }
  bool IsBridge() const override { return false; }
  bool IsPointToPoint() const override { return true; }
  /// \brief Sends an IPv6 packet (read into a frame), its class taken from its DSCP.
  bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
  bool SendFrom(Ptr<Packet> packet, const Address& source, const Address& dest, uint16_t protocolNumber) override;
  Ptr<Node> GetNode() const override { return m_node; }
  void SetNode(Ptr<Node> node) override;
  bool NeedsArp() const override { return false; }
  void SetReceiveCallback(NetDevice::ReceiveCallback cb) override {}
  void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override {}
  bool SupportsSendFrom() const override { return false; }

  typedef void (*DropTracedCallback)(Ptr<const Packet> packet, DropCause cause);
  typedef void (*ClassTracedCallback)(Ptr<const Packet> packet, uint8_t cls);
  typedef void (*PauseTracedCallback)(uint8_t cls, bool paused, bool sentUpstream);

protected:
  void DoDispose() override;

private:
  void SetPaused(uint8_t cls, bool paused);
  void Drop(const FabricFrame& frame, DropCause cause);
  bool MarkEcn(FabricFrame& frame);
  /// \brief RED on the bytes `cls` holds now (a packet joining: those before it; one leaving, as
  /// EcnMarkPoint Dequeue asks: those it leaves behind), thresholds scaled by `scale`.
  void MarkRed(FabricFrame& frame, uint8_t cls, double scale);
  void Trim(FabricFrame& frame);
  int NextClass() const;
  /// \brief The queue entry this port will start next, if one is queued.
  const QueuedPacket* PeekNext() const
  {
    const int cls = NextClass();
    return cls < 0 ? nullptr : cls == PortQueueConfig::kMaxClasses ? &m_macControl.Front() : &m_queues[cls].Front();
  }
  bool StartOne(Time start);
  void Kick();
  void ArmWake();
  void Wake();
  /// \brief Compile-time checks of the layout StartLines names (static_asserts only).
  static void CheckLayout();
  void SendPfc(uint8_t cls, bool pause);
  void ReceivePfc(const FabricFrame& frame);
  double NextUniform();
  /// \brief Records `frame`: sent by this port, serialised from `at`, or received, its last bit
  /// having arrived at `at`.
  void WritePcap(const FabricFrame& frame, bool sent, Time at) const;

  /// The port's trace sources, allocated when the first one is connected. They pass packets
  /// (ToPacket of the frame), so connecting one costs a conversion per event.
  struct Traces
  {
    TracedCallback<Ptr<const Packet>, uint8_t> enqueue;
    TracedCallback<Ptr<const Packet>, uint8_t> dequeue;
    TracedCallback<Ptr<const Packet>, DropCause> drop;
    TracedCallback<Ptr<const Packet>> ecnMark;
    TracedCallback<Ptr<const Packet>> trim;
    TracedCallback<uint8_t, bool, bool> pause;
  };

  // The members a frame's hop touches come first, in the object's first four cache lines (the
  // class is line-aligned; kHotBytes), which StartLines names for prefetching before the frame
  // arrives (fabric-port.cc checks the layout).
  FabricPacketHandler* m_handler = nullptr; // with m_pcap, all that Receive reads of the port
  std::unique_ptr<FabricPcapWriter> m_pcap;
  Time m_busyUntil; ///< the wire is busy until then
  Ptr<PortQueueConfig> m_config;
  Ptr<FabricChannel> m_channel;
  uint8_t m_pausedMask = 0;    ///< classes the peer paused
  uint8_t m_pauseSentMask = 0; ///< classes this port paused upstream
  bool m_lazy = true; ///< attribute LazyStart
  bool m_arrivalPending = false;               ///< the last frame sent will arrive (and trigger a catch-up)
  bool m_linkUp = false;                       ///< the channel is attached and up (a copy of its state)
  bool m_wakePending = false;                  ///< m_wake is scheduled and has not run
  mutable uint32_t m_txTimeBytes = UINT32_MAX; ///< the size whose wire time m_txTime holds
  uint32_t m_losslessQueued = 0;               ///< queued frames of lossless classes (they start exactly)
  uint32_t m_context = 0;                      ///< m_node's id: the context of the port's own events
  uint32_t m_ifIndex = 0; // here, where it fills a hole: the port is 320 bytes, not 384
  mutable Time m_txTime;
  uint64_t m_rateBps = 0;    ///< the port's rate in bit/s
  double m_rateFactor = 1.0; ///< gray failure: the share of the rate this port sends at
  std::array<uint32_t, PortQueueConfig::kMaxClasses> m_bytes{};
  FabricPfcAccountant* m_pfc = nullptr; ///< see SetPfcAccountant
  std::array<PacketFifo, PortQueueConfig::kMaxClasses> m_queues;
  PacketFifo m_macControl; ///< PFC frames, sent before anything else and never paused
  uint64_t m_txPackets = 0;
  uint64_t m_txBytes = 0;
  std::unique_ptr<Traces> m_traces;

  Node* m_node = nullptr;
  Time m_ingressLatency;
  Time m_egressLatency;
  /// The fallback start event (see the file comment), made once and scheduled again and again;
  /// a cancelled one is replaced (an ns-3 event cannot run once cancelled).
  class WakeEvent;
  Ptr<WakeEvent> m_wake;
  uint64_t m_rng = 1;
  uint64_t m_trimmed = 0;
  uint64_t m_ecnMarked = 0;
  /// Time paused by the peer (allocated at the first PAUSE).
  struct PauseTimes
  {
    Time closed; ///< closed pause intervals
    Time since;  ///< start of the open one (m_pausedMask != 0)
    std::array<Time, 8> until; ///< when each class's pause from the peer expires
    EventId expiry;            ///< at the earliest `until` of a paused class
    EventId refresh;           ///< re-sends the PAUSEs this port still holds upstream
  };
  /// \brief Resumes the classes whose pause expired; re-arms for the next.
  void ExpirePauses();
  /// \brief Sends again the PAUSE of every class this port still pauses upstream.
  void RefreshPauses();
  /// \brief Time of `quanta` pause quanta (512 bit times each) at this port's rate.
  Time QuantaTime(uint16_t quanta) const;
  std::unique_ptr<PauseTimes> m_pauseTimes;
  uint64_t* m_dropCounters = nullptr;
};

} // namespace ns3

#endif
