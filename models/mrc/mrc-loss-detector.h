// Loss detection of an MRC queue pair's sender: the send-time log of the TX ring (32-bit steps
// after a moving base, far sends kept aside), the send order that RACK and the timer read (first
// sends in sequence order, resends recorded), RACK's declarations a reordering window after a
// later packet was acknowledged, the tail-loss probe after LossProbeRtts smoothed RTTs of
// silence, the retransmission timeout with its backoff and the retry limit, and the set of packets
// declared lost waiting to be resent. Every packet becomes lost through one routine, DeclareLost,
// whoever found it (RACK, the timer, a trim NACK, a failed port or path), which tells the
// congestion control, the EV table, the NIC's path health and the retry limit what each cause
// means for them; it does not decide what a loss means for the paths (MrcEvTable, MrcPathHealth)
// or the window (the congestion control).
#ifndef MRCSIM_MODELS_MRC_LOSS_DETECTOR_H
#define MRCSIM_MODELS_MRC_LOSS_DETECTOR_H

#include "models/engine/event-handle.h"
#include "models/engine/ring-queue.h"
#include "models/mrc/mrc-sender.h"

#include "ns3/nstime.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <unordered_map>

namespace ns3
{

class MrcQueuePair;

/// \brief Why a packet is declared lost (MrcLossDetector::DeclareLost); each cause tells a
/// different set of parts.
enum class MrcLossCause : uint8_t
{
  Rack,     ///< a packet sent a reordering window after it was acknowledged
  Timer,    ///< the retransmission timeout (a guess: nothing came back)
  Probe,    ///< the tail-loss probe: the oldest outstanding packet goes again after a silence
  Trim,     ///< the receiver NACKed it as trimmed: the path works, a queue was full
  PathDown, ///< its NIC port went down, or the NIC's QPs learnt that its path fails (MrcPathHealth)
};

/// \brief The loss detector of an MRC queue pair's sender (see the file comment). A member of
/// its MrcQueuePair, through which it reaches the sender's TX ring, the EV table and the NIC.
class MrcLossDetector
{
public:
  MrcLossDetector() = default;
  MrcLossDetector(const MrcLossDetector&) = delete;
  MrcLossDetector& operator=(const MrcLossDetector&) = delete;

  /// \brief The rest of a packet's state once declared lost (by RACK, the timer, a trim NACK or
  /// its port going down), until it leaves the TX ring (a late SACK may still name it: Resent).
  struct Again
  {
    uint16_t retries = 0; ///< losses declared by RACK or the timer (RetryLimit is at most 255)
    uint16_t sends = 1;   ///< times sent, modulo 2^16: tells the latest resend's ResendRecord from older ones
    bool trimmed = false; ///< NACKed as trimmed, waiting in Losses::retx
    bool resent = false;  ///< the latest send was a resend
  };

  /// \brief Starts the smoothed RTT at `baseRtt`, the timeout at RetransmitTimeout, and the
  /// span of a send time in the TX ring at SendTimeBits.
  void Start(Time baseRtt);
  /// \brief Cancels the timer.
  void Dispose();

  // ---- what the sender asks when it sends
  /// \brief Whether no packet waits to be resent.
  bool NothingToResend() const { return !m_losses || m_losses->retx.empty(); }
  /// \brief The oldest packet waiting to be resent (there is one).
  uint64_t NextResend() const { return *m_losses->retx.begin(); }
  /// \brief Whether the oldest packet waiting to be resent was trimmed (it waits for window room).
  bool NextResendTrimmed() const { return m_losses->again.at(NextResend()).trimmed; }
  /// \brief The oldest packet waiting to be resent goes now.
  void TakeResend() { m_losses->retx.erase(m_losses->retx.begin()); }
  /// \brief Records packet `seq`'s send at `now`.
  void SetSentAt(uint64_t seq, Time now);
  /// \brief Packet `seq`, declared lost, was resent; `firstSendsBefore` first sends went before.
  void OnResent(uint64_t seq, uint64_t firstSendsBefore)
  {
    Again& again = LostState(seq);
    again.trimmed = false;
    again.resent = true;
    ++again.sends;
    m_resends.push_back(ResendRecord{ seq, firstSendsBefore, again.sends });
  }
  /// \brief A send or a newly acknowledging SACK: a tail-loss probe waits from here.
  void OnProgress(Time now) { m_lastProgress = now; }
  /// \brief Arms the timer unless it runs (a packet was sent).
  void ArmIfIdle()
  {
    if (!m_timer.IsPending())
    {
      ArmTimer();
    }
  }

  // ---- what the sender tells and asks on a SACK or NACK
  /// \brief The time of packet `seq`'s latest send.
  Time SentAt(uint64_t seq) const;
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
  /// \brief Packet `seq`, declared lost, was acknowledged after all: it is not resent.
  void Arrived(uint64_t seq) { m_losses->retx.erase(seq); }
  /// \brief Bytes were newly acknowledged at `now`; `rtt` is a fresh sample if `fresh`.
  inline void OnAcked(Time now, bool fresh, Time rtt); // in mrc-queue-pair.h
  /// \brief RACK: declares lost what is still outstanding although it was sent a reordering
  /// window before `ackedSentAt`, the send time of a packet now acknowledged.
  void DetectLosses(Time ackedSentAt);
  /// \brief The one place a packet becomes lost: packet `seq`, if it is outstanding (sent, not
  /// acknowledged, not already declared lost), leaves the bytes in flight and waits to be resent
  /// (a trimmed one until the window has room, others at once), and those who must know are told,
  /// by `cause`:
  ///
  /// | cause    | congestion control | EV table              | path health (MrcPathHealth) | retry limit |
  /// |----------|--------------------|-----------------------|-----------------------------|-------------|
  /// | Rack     | OnLoss             | OnLoss: ASSUMED_BAD   | told (a later packet came)  | counts      |
  /// | Timer    | OnLoss             | OnLoss: ASSUMED_BAD   | told (a guess)              | counts      |
  /// | Probe    | OnLoss             | OnLoss: ASSUMED_BAD   | told (a guess)              | -           |
  /// | Trim     | OnTrim             | (the NACK's own echo) | -                           | -           |
  /// | PathDown | -                  | (already marked)      | - (it is what told)         | -           |
  ///
  /// A tail-loss probe is not a retry: it comes every LossProbeRtts smoothed RTTs of silence, so
  /// counting it would spend a packet's retry budget (RetryLimit timeouts, NoPathTimeout) in a
  /// few hundred microseconds.
  /// A trim proves the path and the peer work, and a port or path found down is no congestion
  /// and no sign of a dead peer; the EV of a trim is told by the NACK (MrcEvTable::OnTrim), as
  /// an ECN echo is by its SACK, whether or not the packet was still outstanding.
  /// \return whether `seq` was outstanding (and is now declared lost)
  bool DeclareLost(uint64_t seq, MrcLossCause cause);
  /// \brief Packet `seq` leaves the TX ring (acknowledged): forgets what was kept of it.
  void Forget(uint64_t seq)
  {
    if (m_losses && !m_losses->again.empty())
    {
      m_losses->again.erase(seq); // kept until here: a late SACK may still name it (Resent)
    }
    ForgetFarSend(seq);
  }
  /// \brief Nothing is outstanding: no deadline to watch.
  void StopTimer();

  // ---- what the paths' health tells
  /// \brief Declares lost, to be resent at once, every packet in flight on EV `id`.
  void ResendInFlightOnEv(uint16_t id);
  /// \brief Declares lost, to be resent at once, every packet in flight on NIC port `port`.
  void ResendInFlightOnPort(uint16_t port);

  uint64_t Timeouts() const { return m_losses ? m_losses->counts.timeouts : 0; }
  /// \brief Tail-loss probes: the oldest outstanding packet resent after LossProbeRtts of silence.
  uint64_t LossProbes() const { return m_losses ? m_losses->counts.lossProbes : 0; }
  /// \brief How often the TX ring's send times were given a new base (see m_sentBase).
  uint32_t SendTimeRebases() const { return m_losses ? m_losses->counts.sendTimeRebases : 0; }
  /// \brief Packets the sender sent again, and NACKs (of trimmed packets) it received.
  uint64_t Retransmissions() const { return m_losses ? m_losses->counts.retransmissions : 0; }
  uint64_t NacksReceived() const { return m_losses ? m_losses->counts.nacksReceived : 0; }
  /// \brief The sender counts a resend, a NACK.
  void CountResend() { ++MakeLosses().counts.retransmissions; }
  void CountNack() { ++MakeLosses().counts.nacksReceived; }

private:
  /// \brief The QP this part is a member of, found from where the part sits in it (no
  /// reference kept: 8 bytes a part, millions of QPs). Defined in mrc-queue-pair.h.
  inline MrcQueuePair& Qp() const;
  /// Outstanding sends in time order serve both RACK-style loss detection and the timer in
  /// amortised O(1) per packet: the oldest is at the front. First sends go in sequence order,
  /// so they need no record: m_firstSend walks the TX ring, skipping packets acknowledged,
  /// declared lost or resent since. Resends are kept in m_resends, each with the number of first
  /// sends before it, which merges the two in the order they were sent. Stale resend records
  /// (acknowledged, declared lost, or superseded by a later resend) are skipped at the front.
  struct ResendRecord
  {
    uint64_t seq;
    uint64_t firstSendsBefore; ///< the sender's SndNxt when it was sent
    uint16_t sends;            ///< Again::sends of this send; it is stale once they differ
  };
  /// What the sender keeps of losses (allocated at the first: most QPs of a large run lose nothing).
  struct Losses
  {
    /// Packets declared lost, by sequence number, until they leave the TX ring.
    std::unordered_map<uint64_t, Again> again;
    std::set<uint64_t> retx; ///< lost, to resend oldest first
    /// Send times of packets still in the TX ring whose send lies too far before m_sentBase
    /// (marked FarSend()), by sequence number: a QP stalled for milliseconds, by its timer's backoff.
    std::unordered_map<uint64_t, Time> farSends;
    /// What only a QP that loses packets (or stalls) counts: kept here, not in every QP.
    struct Counts
    {
      uint64_t retransmissions = 0;
      uint64_t nacksReceived = 0;
      uint64_t timeouts = 0;
      uint64_t lossProbes = 0;
      uint32_t sendTimeRebases = 0;
    } counts;
  };

  /// \brief Declares lost (PathDown), to be resent at once, every packet in flight whose send
  /// `onPath` names.
  template <typename Pred>
  void ResendInFlight(Pred onPath);
  /// \brief The loss state, made at the first loss, NACK, resend or rebase (most QPs of a large
  /// run have none). Whether it exists changes nothing but memory.
  Losses& MakeLosses()
  {
    if (!m_losses)
    {
      m_losses = std::make_unique<Losses>();
    }
    return *m_losses;
  }
  /// \brief Packet `seq`'s Again, which it has: it was declared lost and is not acknowledged.
  Again& LostState(uint64_t seq) { return m_losses->again.at(seq); }
  const Again& LostState(uint64_t seq) const { return m_losses->again.at(seq); }
  /// \brief The largest send time after the base that fits, plus one: the mark of a far send.
  uint32_t FarSend() const { return m_farSend; }
  /// \brief Moves m_sentBase up to half the span before `now`: the sends before it go to
  /// Losses::farSends, the others are kept after the new base. Packet `sending`, whose send
  /// time is about to be set, is left as it is.
  void RebaseSendTimes(Time now, uint64_t sending);
  /// \brief The time of a send kept `after` steps after m_sentBase (not FarSend()).
  Time SentAfterBase(uint32_t after) const { return m_sentBase + TimeStep(after); }
  /// \brief Packet `seq` leaves the TX ring: forgets its far send time, if it had one.
  void ForgetFarSend(uint64_t seq);
  /// \brief Skips stale sends at the front of the send order; true if one is left.
  bool PruneSendOrder();
  /// \brief Whether the oldest outstanding send is a first send (after PruneSendOrder).
  bool FrontIsFirstSend() const;
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

  // What the sender's NextPacket reads (the QP keeps it in its hot lines).
  std::unique_ptr<Losses> m_losses;
  /// The TX ring's send times count from here (MrcTxState::SentAfterBase). It moves up when a
  /// send would be FarSend() steps after it or more (2^32 - 1: 4.3 ms in picoseconds), to half
  /// that before the send: sends older than the new base, which only a QP stalled that long
  /// keeps, move to Losses::farSends and are marked FarSend().
  Time m_sentBase;
  Time m_lastProgress; ///< the latest send or newly acknowledging SACK: a tail-loss probe waits from here
  EventHandle m_timer;
  RingQueue<ResendRecord> m_resends;
  /// The mark of a far send: 2^SendTimeBits - 1 (the QP's attribute; see m_sentBase).
  uint32_t m_farSend = UINT32_MAX;
  uint64_t m_firstSend = 0; ///< no first send below it is outstanding

public:
  /// \brief Where the members NextPacket reads end, in bytes from the object's start (the QP
  /// checks that they fall in the lines its HotLineMask prefetches).
  static constexpr std::size_t HotEnd();

private:
  // colder
  Time m_rto;
  Time m_srtt; ///< smoothed RTT of first sends (RFC 6298's gain of 1/8); the base RTT at first
};

// offsetof on a class with private members is conditionally supported; GCC supports it for a
// class without virtual bases, as this one is.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
constexpr std::size_t
MrcLossDetector::HotEnd()
{
  return offsetof(MrcLossDetector, m_firstSend) + sizeof(uint64_t);
}
#pragma GCC diagnostic pop

} // namespace ns3

#endif
