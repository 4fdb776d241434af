// An MRC (Multipath Reliable Connection) queue pair, after docs/MODEL.md. The sender
// sprays packets over a set of entropy values (EVs) split equally over the planes (SRv6 uSID paths
// or UDP entropy for ECMP), chosen per packet by a pluggable EvSelector; every data packet carries
// its remote address (RETH), so the receiver places it on arrival in any order. The receiver
// returns SACKs (cumulative PSN, 64-bit bitmap, echoed EV, ECN echo, arrival timestamp) and
// NACKs trimmed packets at once. The sender resends only missing PSNs, oldest first: after a
// trim NACK as soon as the window has room (no timeout); at once after a reordering window when
// later packets were acknowledged (loss without trim), or after the retransmission timeout. A
// packet that fills the window asks for a SACK at once (BTH AckReq). EV health: an ECN echo or
// a trim skips the EV for one rotation; a loss without trim marks it ASSUMED_BAD at once and a backup EV of the
// same plane takes its place; probes bring it back to GOOD. A NIC port going down denies its
// plane locally at once and at the peer after a port-status delay. Congestion control is a
// pluggable window controller (NSCC by default).
// Choices where the sources are silent (all attributes): the EV travels in the UDP source port
// (0xC000 | EV index) in both modes; SACK, NACK and probe use vendor-specific BTH opcodes
// 0xC0-0xC2; loss without trim is declared RACK-style after ReorderWindow.
// Leaves out: the PDC/connection set-up handshake, MRC's credit-based flow control, and
// encryption.
#ifndef MRCSIM_MODELS_MRC_QUEUE_PAIR_H
#define MRCSIM_MODELS_MRC_QUEUE_PAIR_H

#include "models/mrc/ev-selector.h"
#include "models/fabric/fabric-packet.h"
#include "models/mrc/mrc-congestion-control.h"
#include "models/mrc/mrc-ev.h"
#include "models/mrc/mrc-path-health.h"
#include "models/rdma/rdma-queue-pair.h"
#include "models/engine/ring-queue.h"

#include "ns3/abort.h"
#include "ns3/event-id.h"

#include <array>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// \brief MRC queue pair: sender and receiver halves (see the file comment).
class MrcQueuePair : public RdmaQueuePair
{
public:
  static TypeId GetTypeId();
  MrcQueuePair();

  static constexpr uint8_t kOpSack = MrcSackHeader::kBthOpcode;
  static constexpr uint8_t kOpNack = MrcNackHeader::kBthOpcode;
  static constexpr uint8_t kOpProbe = MrcProbeHeader::kBthOpcode;

  /// \brief How EVs become paths.
  enum PathMode
  {
    Srv6,    ///< uSID source routes from the topology's path function
    Entropy, ///< UDP source ports hashed by ECMP switches
  };
  /// \brief Who learns from a lost packet which paths to avoid.
  enum HealthScope
  {
    PerQp,  ///< the QP alone (its own EV)
    PerNic, ///< every MRC QP of the NIC whose paths share the suspect links (MrcPathHealth)
  };

  /// \brief The QP at the other end (its NIC's port-status messages reach it).
  void SetPeer(MrcQueuePair* peer) { m_peer = peer; }

  uint64_t PostWrite(uint64_t bytes) override;
  FramePtr NextPacket(uint16_t port, Time* retryAt) override;
  bool WantsPort(uint16_t port) const override { return true; }
  void Receive(const RdmaRxInfo& info) override;
  void PortStateChanged(uint16_t port, bool up) override;
  /// \brief The peer's NIC port of `plane` went down or up (a port-status message arrived).
  void PeerPortStateChanged(int plane, bool up);
  /// \brief Marks assumed bad this QP's usable EVs of NIC port `port` whose SRv6 paths start
  /// with `prefix` (what a QP of the NIC learnt), and resends what is in flight on them;
  /// returns how many.
  uint32_t MarkPathsAssumedBad(uint16_t port, const UsidList& prefix);

  const std::vector<MrcEv>& Evs() const { return m_evs; }
  /// \brief The NIC port of an EV (its EVs are numbered port by port).
  uint16_t EvPort(const MrcEv& ev) const { return PortOfEv(ev.id); }
  /// \brief The plane of NIC port `port`.
  int PlaneOfPort(uint16_t port) const;
  /// \brief Whether a packet sent after packet `seq` on `loss.port` (or through its up-link) was
  /// acknowledged: the plane (the up-link) still works toward this QP's destination.
  void AckedSince(uint64_t seq, MrcPathHealth::Loss& loss) const;
  /// \brief The switch (fabric vertex) that SRv6 path `path` leaves this NIC's T0 of `port` for.
  uint32_t FirstSwitchAfterLeaf(uint16_t port, const UsidList& path) const;
  /// \brief The T0 (fabric vertex) the remote GPU hangs off in `plane`.
  uint32_t RemoteLeaf(int plane) const;
  /// \brief The plane of an EV.
  int EvPlane(const MrcEv& ev) const;
  /// \brief The SRv6 path of EV `id` (empty in entropy mode).
  UsidList EvUsids(uint16_t id) const
  {
    uint16_t usids[UsidList::kCapacity];
    const uint16_t* var = m_evUsids.data() + std::size_t(id) * m_usidVarCount;
    const uint32_t count = m_evs[id].usidCount;
    for (uint32_t k = 0; k < count; ++k)
    {
      usids[k] = (m_usidVarMask >> k & 1) ? *var++ : m_usidCommon[k];
    }
    return UsidList(usids, usids + count);
  }
  /// \brief Active (spraying) EVs of NIC port `port`.
  const std::vector<uint16_t>& ActiveEvs(uint16_t port) const { return m_active[port]; }
  RdmaQpCounters Counters() const override
  {
    return { m_packetsSent, m_retransmissions, m_timeouts, m_lossProbes };
  }
  uint64_t PacketsSent() const { return m_packetsSent; }
  uint64_t Retransmissions() const { return m_retransmissions; }
  uint64_t Timeouts() const { return m_timeouts; }
  /// \brief Tail-loss probes: the oldest outstanding packet resent after LossProbeRtts of silence.
  uint64_t LossProbes() const { return m_lossProbes; }
  uint64_t NacksReceived() const { return m_nacksReceived; }
  /// \brief Probes sent on EVs assumed bad.
  uint32_t ProbesSent() const { return m_probeSeq; }
  uint64_t SacksSent() const { return m_sacksSent; }
  /// \brief How often the TX ring's send times were given a new base (see m_sentBase).
  uint32_t SendTimeRebases() const { return m_sendTimeRebases; }
  /// \brief Bits of a send time in the TX ring: 32 (4.3 ms in picoseconds) unless a test sets
  /// fewer (at least 4), to exercise far send times in a short run. Results do not depend on it.
  static void SetSendTimeBits(uint32_t bits);
  uint64_t InFlightBytes() const { return m_inflight; }
  Ptr<MrcCongestionControl> GetCongestionControl() const { return m_cc; }
  Time GetBaseRtt() const { return m_baseRtt; }

  typedef void (*EvStateTracedCallback)(uint32_t qpn, uint16_t ev, int plane, EvState from, EvState to);
  typedef void (*DataSentTracedCallback)(uint32_t qpn, uint32_t psn, uint16_t ev, int plane, bool retransmission);

protected:
  void DoDispose() override;

private:
  struct Message
  {
    uint64_t id;
    uint64_t bytes;
    uint64_t firstSeq;
    uint64_t packets;
    uint64_t acked = 0;
    Time posted;
  };
  /// The sender's state of one packet outstanding: 6 bytes (2-byte words only), as a large run
  /// keeps millions of them. Its size on the wire is not kept: PacketBytes derives it from its
  /// message, as BuildData does. What only a packet declared lost needs is in Losses. The time
  /// of its latest send is kept as the time steps after m_sentBase, in 32 bits (see SentAt).
  struct TxState
  {
    TxState() : ev(0), acked(false), lost(false) {}
    uint32_t SentAfterBase() const { return uint32_t(sentAfterBase[0]) | uint32_t(sentAfterBase[1]) << 16; }
    void SetSentAfterBase(uint32_t steps)
    {
      sentAfterBase[0] = static_cast<uint16_t>(steps);
      sentAfterBase[1] = static_cast<uint16_t>(steps >> 16);
    }
    uint16_t sentAfterBase[2] = { 0, 0 };
    uint16_t ev : 14; ///< a QP has at most 16384 EVs (SetUp)
    uint16_t acked : 1;
    uint16_t lost : 1; ///< declared lost, waiting in Losses::retx
  };
  /// The rest of the state of a packet once declared lost (by RACK, the timer, a trim NACK or its
  /// port going down), until it leaves the TX ring (a late SACK may still name it: Resent).
  struct Again
  {
    uint16_t retries = 0; ///< losses declared (RetryLimit is at most 255)
    uint16_t sends = 1;   ///< times sent, modulo 2^16: tells the latest resend's ResendRecord from older ones
    bool trimmed = false; ///< NACKed as trimmed, waiting in Losses::retx
    bool resent = false;  ///< the latest send was a resend
  };
  static inline uint32_t s_sendTimeBits = 32;
  /// \brief The largest send time after the base that fits, plus one: the mark of a far send.
  static uint32_t FarSend() { return s_sendTimeBits >= 32 ? UINT32_MAX : (1u << s_sendTimeBits) - 1; }
  struct RxMessage
  {
    uint64_t packets = 0;
    uint64_t received = 0;
    uint64_t bytes = 0;
    Time firstArrival;
  };

  void SetUp();
  FramePtr BuildData(const Message& m, uint64_t seq, const MrcEv& ev, int plane, bool ackRequest);
  void HandleData(const RdmaRxInfo& info);
  void HandleSack(const RdmaRxInfo& info);
  void HandleNack(const RdmaRxInfo& info);
  void HandleProbe(const RdmaRxInfo& info);
  bool Received(uint64_t seq) const;
  void SetReceived(uint64_t seq, bool received);
  /// \brief Received(m_cum + i) as bit i, for i < 64.
  uint64_t ReceivedAboveCum() const;
  void GrowReceiveRing(uint64_t seq);
  void SendSack(uint64_t seq, uint16_t ev, bool ecn, uint16_t port);
  /// \brief SACKs the packets held for coalescing (OnSackTimer, or before a NACK).
  void FlushSack();
  void OnSackTimer();
  void SendNack(uint32_t psn, uint16_t ev, uint16_t port);
  void Ack(uint64_t seq, uint64_t& newlyAcked);
  /// \brief Packet `seq` is lost: resend it. `laterDelivered`: a packet sent after it was
  /// acknowledged (RACK), not only a timer's guess (tail-loss probe, RTO).
  void DeclareLost(uint64_t seq, bool laterDelivered);
  void SetState(MrcEv& ev, EvState state);
  /// \brief Marks EV `id` assumed bad (a backup of its plane takes its place).
  void MarkAssumedBad(uint16_t id);
  /// \brief Declares lost, to be resent at once, every packet in flight whose send `onPath` names.
  template <typename Pred>
  void ResendInFlight(Pred onPath);
  void Activate(uint16_t port);
  void WakeAllPorts();
  /// \brief Payload bytes of data packet `seq` of message `m` (an MTU, less for the last).
  uint32_t PayloadOf(const Message& m, uint64_t seq) const;
  /// \brief Bytes on the wire of data packet `seq` of message `m`.
  uint32_t PacketBytes(const Message& m, uint64_t seq) const;
  uint32_t PacketBytes(uint64_t seq) { return PacketBytes(MessageOf(seq), seq); }
  /// \brief Adds (or takes away) a packet's bytes in flight, in all and on NIC port `nicPort`.
  void AddInflight(uint16_t nicPort, uint32_t bytes, bool add);
  /// \brief The NIC port of a packet's latest send (its EV's).
  uint16_t TxPort(const TxState& t) const { return PortOfEv(t.ev); }
  /// \brief The NIC port of EV `id`.
  uint16_t PortOfEv(uint16_t id) const { return static_cast<uint16_t>(id / m_evsPerPort); }
  uint64_t PortShare() const;
  /// \brief Skips stale sends at the front of the send order; true if one is left.
  bool PruneSendOrder();
  /// \brief Whether the oldest outstanding send is a first send (after PruneSendOrder).
  bool FrontIsFirstSend() const
  {
    return m_firstSend < m_sndNxt && (m_resends.empty() || m_firstSend < m_resends.front().firstSendsBefore);
  }
  /// \brief The packet of the oldest outstanding send (after PruneSendOrder).
  uint64_t FrontSeq() const { return FrontIsFirstSend() ? m_firstSend : m_resends.front().seq; }
  /// \brief Takes the oldest outstanding send out of the send order (after PruneSendOrder).
  void PopFront();
  void ArmTimer();
  void OnTimer();
  /// \brief The tail-loss probe timeout: LossProbeRtts smoothed RTTs plus the receiver's SackDelay.
  Time ProbeTimeout() const;
  /// \brief A fresh RTT sample (a first send acknowledged) into the smoothed RTT.
  void SampleRtt(Time rtt);
  void StartProbes();
  void OnProbeTimer();
  uint64_t Unwrap(uint32_t psn, uint64_t reference) const;
  bool Tracked(uint64_t seq) const { return seq >= m_base && seq < m_sndNxt; }
  TxState& Tx(uint64_t seq) { return m_tx[static_cast<uint32_t>(seq - m_base)]; }
  const TxState& Tx(uint64_t seq) const { return m_tx[static_cast<uint32_t>(seq - m_base)]; }
  /// \brief The time of packet `seq`'s latest send.
  Time SentAt(uint64_t seq) const;
  /// \brief Records packet `seq`'s send at `now`.
  void SetSentAt(uint64_t seq, Time now);
  /// \brief Moves m_sentBase up to half the span before `now`: the sends before it go to
  /// Losses::farSends, the others are kept after the new base. Packet `sending`, whose send
  /// time is about to be set, is left as it is.
  void RebaseSendTimes(Time now, uint64_t sending);
  /// \brief The time of a send kept `after` steps after m_sentBase (not FarSend()).
  Time SentAfterBase(uint32_t after) const { return m_sentBase + TimeStep(after); }
  /// \brief Packet `seq` leaves the TX ring: forgets its far send time, if it had one.
  void ForgetFarSend(uint64_t seq);
  Message& MessageOf(uint64_t seq);

  // The members NextPacket (a NIC's visit) touches come first, right after the base class: the
  // NIC's visit event lists these lines for prefetching (see RdmaNic::Schedule).
  bool m_setUp = false;
  MrcQueuePair* m_peer = nullptr;
  Ptr<EvSelector> m_selector;
  Ptr<MrcCongestionControl> m_cc;
  Time m_baseRtt;
  std::vector<MrcEv> m_evs;
  uint32_t m_evsPerPort = 1; ///< active and backup EVs of each NIC port
  /// The EVs' SRv6 paths, by column: the uSIDs at a position that all EVs share are kept once
  /// (m_usidCommon); the others (m_usidVarMask's positions, m_usidVarCount of them) per EV, at
  /// id * m_usidVarCount. The EVs of a two-tier plane differ only in their T1: a table of
  /// UsidLists would take 14 bytes per EV, this one 2.
  std::vector<uint16_t> m_evUsids;
  std::array<uint16_t, UsidList::kCapacity> m_usidCommon{};
  uint8_t m_usidVarMask = 0;
  uint8_t m_usidVarCount = 0;
  std::vector<std::vector<uint16_t>> m_active; ///< per NIC port
  RingQueue<Message> m_messages;
  uint64_t m_nextMessageId = 0;
  uint64_t m_totalSeq = 0;
  uint64_t m_base = 0;     ///< lowest tracked (all below acknowledged)
  uint64_t m_sndNxt = 0;   ///< next new sequence number
  RingQueue<TxState> m_tx; ///< [m_base, m_sndNxt)
  /// The TX ring's send times count from here (TxState::SentAfterBase). It moves up when a send
  /// would be FarSend() steps after it or more (2^32 - 1: 4.3 ms in picoseconds), to half that
  /// before the send: sends older than the new base, which only a QP stalled that long keeps,
  /// move to Losses::farSends and are marked FarSend().
  Time m_sentBase;
  /// Outstanding sends in time order serve both RACK-style loss detection and the timer in
  /// amortised O(1) per packet: the oldest is at the front. First sends go in sequence order,
  /// so they need no record: m_firstSend walks m_tx, skipping packets acknowledged, declared
  /// lost or resent since. Resends are kept in m_resends, each with the number of first sends
  /// before it, which merges the two in the order they were sent. Stale resend records
  /// (acknowledged, declared lost, or superseded by a later resend) are skipped at the front.
  struct ResendRecord
  {
    uint64_t seq;
    uint64_t firstSendsBefore; ///< m_sndNxt when it was sent
    uint16_t sends;            ///< Again::sends of this send; it is stale once they differ
  };
  static_assert(sizeof(TxState) == 6, "MRC send state: keep it small");
  /// What the sender keeps of losses (allocated at the first: most QPs of a large run lose nothing).
  struct Losses
  {
    /// Packets declared lost, by sequence number, until they leave the TX ring.
    std::unordered_map<uint64_t, Again> again;
    std::set<uint64_t> retx; ///< lost, to resend oldest first
    /// Send times of packets still in the TX ring whose send lies too far before m_sentBase
    /// (marked FarSend()), by sequence number: a QP stalled for milliseconds, by its timer's backoff.
    std::unordered_map<uint64_t, Time> farSends;
  };
  std::unique_ptr<Losses> m_losses;
  Losses& LossesOf()
  {
    if (!m_losses)
    {
      m_losses = std::make_unique<Losses>();
    }
    return *m_losses;
  }
  /// \brief Packet `seq`'s Again (made if it has none).
  Again& AgainOf(uint64_t seq) { return LossesOf().again[seq]; }
  /// \brief Packet `seq`'s Again, which it has: it was declared lost and is not acknowledged.
  Again& DeclaredLost(uint64_t seq) { return m_losses->again.at(seq); }
  /// \brief Whether packet `seq`'s latest send was a resend.
  bool Resent(uint64_t seq) const
  {
    if (!m_losses || m_losses->again.empty())
    {
      return false;
    }
    auto it = m_losses->again.find(seq);
    return it != m_losses->again.end() && it->second.resent;
  }
  /// \brief Whether no packet waits to be resent.
  bool NothingToResend() const { return !m_losses || m_losses->retx.empty(); }
  uint64_t m_firstSend = 0; ///< no first send below it is outstanding
  RingQueue<ResendRecord> m_resends;
  uint64_t m_inflight = 0;
  std::vector<uint64_t> m_portInflight; ///< by NIC port
  EventId m_timer;
  // counters and trace sources (the data-sent one is called per packet)
  uint64_t m_packetsSent = 0;
  uint64_t m_retransmissions = 0;
  uint64_t m_timeouts = 0;
  uint64_t m_nacksReceived = 0;
  uint64_t m_sacksSent = 0;
  uint64_t m_lossProbes = 0;

  TracedCallback<uint32_t, uint16_t, int, EvState, EvState> m_evStateTrace;
  TracedCallback<uint32_t, uint32_t, uint16_t, int, bool> m_dataSentTrace;

  // configuration
  uint32_t m_evCount;
  uint32_t m_backupsPerPlane;
  PathMode m_mode;
  uint32_t m_sackEvery;
  Time m_rtoBase;
  uint32_t m_retryLimit;
  Time m_reorderWindow;
  double m_lossProbeRtts;
  Time m_probeInterval;
  Time m_probeIntervalMax;
  Time m_portStatusDelay;
  uint8_t m_trimmedDscp;
  TypeId m_selectorType;
  HealthScope m_healthScope;
  Ptr<MrcPathHealth> m_health; ///< the NIC's, with HealthScope per-nic in SRv6 mode
  TypeId m_ccType;

  std::vector<std::vector<uint16_t>> m_backups; ///< per NIC port, taken from the front
  /// An EV assumed bad, probed until a response brings it back: every `rounds` probe rounds,
  /// a number that doubles after each probe (up to ProbeIntervalMax / ProbeInterval).
  struct Probing
  {
    uint16_t id;
    uint16_t rounds = 1;
    uint16_t countdown = 1; ///< rounds until its next probe
  };
  std::vector<Probing> m_probing;
  uint64_t m_portUp = 0;      ///< local NIC ports, a bit each (a NIC has at most 64)
  uint64_t m_peerPlaneUp = 0; ///< by NIC port index (same plane at the peer), a bit each
  bool PortUp(uint16_t port) const { return (m_portUp >> port) & 1; }
  bool PeerPlaneUp(uint16_t port) const { return (m_peerPlaneUp >> port) & 1; }

  // sender, colder
  EventId m_probeTimer;
  Time m_rto;
  Time m_srtt;         ///< smoothed RTT of first sends (RFC 6298's gain of 1/8); the base RTT at first
  Time m_lastProgress; ///< the latest send or newly acknowledging SACK: a tail-loss probe waits from here
  uint32_t m_probeSeq = 0;
  uint32_t m_sendTimeRebases = 0;

  // receiver
  uint64_t m_cum = 0; ///< all below received
  /// A bit ring over [m_cum, m_cum + 64 * size): whether each packet there was received.
  std::vector<uint64_t> m_received;
  /// Messages being received, by first sequence number (allocated at the first packet).
  std::unique_ptr<std::map<uint64_t, RxMessage>> m_rxMessages;
  uint64_t m_nextRxMessage = 0; ///< first sequence number of the next message to complete
  uint64_t m_rxMessageId = 0;
  uint32_t m_sinceSack = 0; ///< packets received since the last SACK
  /// The latest packet held for coalescing: a SACK sent for the held ones names it.
  uint64_t m_heldSeq = 0;
  uint16_t m_heldEv = 0;
  uint16_t m_heldPort = 0;
  EventId m_sackTimer; ///< bounds how long a received packet waits for its SACK (SackDelay)
  bool m_sackTimerArmed = false;
  Time m_sackDelay;
};

} // namespace ns3

#endif
