// The receiving half of an MRC queue pair: placement of data packets in any order (each carries
// its RETH), a bit ring of what arrived above the cumulative PSN, message completions in message
// order, SACKs (cumulative PSN, 64-bit bitmap, echoed EV, ECN echo, arrival timestamp) coalesced
// over SackEvery packets and at most SackDelay, and trim NACKs sent at once. Leaves out the
// receiver's memory (a packet is placed as it arrives) and MRC's credit-based flow control.
#ifndef MRCSIM_MODELS_MRC_RECEIVER_H
#define MRCSIM_MODELS_MRC_RECEIVER_H

#include "models/engine/event-handle.h"
#include "models/engine/ring-queue.h"
#include "models/rdma/rdma-queue-pair.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <memory>

namespace ns3
{

class MrcQueuePair;

/// \brief The receiving half of an MRC queue pair (see the file comment). A member of its
/// MrcQueuePair, through which it reaches the NIC and the configuration.
class MrcReceiver
{
public:
  MrcReceiver() = default;
  MrcReceiver(const MrcReceiver&) = delete;
  MrcReceiver& operator=(const MrcReceiver&) = delete;

  /// \brief Cancels the SACK timer.
  void Dispose();
  /// \brief A data packet (or the headers of a trimmed one) arrived.
  void HandleData(const RdmaRxInfo& info);
  uint64_t SacksSent() const { return m_sacksSent; }

private:
  /// \brief The QP this part is a member of, found from where the part sits in it (no
  /// reference kept: 8 bytes a part, millions of QPs). Defined in mrc-queue-pair.h.
  inline MrcQueuePair& Qp() const;
  /// A message being received, 32 bytes: one RDMA write, whose length the RETH's DMA length
  /// gives in 32 bits, so its packets and bytes fit 32 bits (a longer write, which tests post as
  /// an endless flow, wraps that length and never completes, here as before).
  struct RxMessage
  {
    uint64_t firstSeq = 0;
    Time firstArrival;
    uint32_t packets = 0;
    uint32_t received = 0;
    uint32_t bytes = 0;
  };
  /// \brief The message whose first packet is `firstSeq`, added in its place (by first sequence
  /// number) at its first packet.
  RxMessage& MessageAt(uint64_t firstSeq);

  bool Received(uint64_t seq) const;
  void SetReceived(uint64_t seq, bool received);
  /// \brief Received(m_cum + i) as bit i, for i < 64.
  uint64_t ReceivedAboveCum() const;
  void GrowReceiveRing(uint64_t seq);
  /// \brief Gives back the message map and the bit ring once every message received is
  /// complete (both are made again at the next packet): a large run's QPs are mostly idle.
  void ReleaseIdle();
  void SendSack(uint64_t seq, uint16_t ev, bool ecn, uint16_t port);
  /// \brief SACKs the packets held for coalescing (OnSackTimer, or before a NACK).
  void FlushSack();
  void OnSackTimer();
  void SendNack(uint32_t psn, uint16_t ev, uint16_t port);

  uint64_t m_cum = 0; ///< all below received
  /// A bit ring over [m_cum, m_cum + 64 * RingWords()): whether each packet there was received.
  /// The first word holds the ring's word count (a power of two), the ring's words follow: an
  /// idle QP's receiver holds a null pointer (8 bytes) instead of a vector (24).
  std::unique_ptr<uint64_t[]> m_received;
  uint64_t RingWords() const { return m_received ? m_received[0] : 0; }
  uint64_t RingWord(uint64_t w) const { return m_received[1 + w]; }
  uint64_t& RingWord(uint64_t w) { return m_received[1 + w]; }
  /// Messages being received, in order of first sequence number (nothing allocated while none
  /// is: a ring of one message is 32 bytes, where a map took a 48-byte header and an 80-byte node).
  RingQueue<RxMessage> m_rxMessages;
  uint64_t m_nextRxMessage = 0; ///< first sequence number of the next message to complete
  uint64_t m_rxMessageId = 0;
  /// The latest packet held for coalescing: a SACK sent for the held ones names it.
  uint64_t m_heldSeq = 0;
  uint16_t m_heldEv = 0;
  uint16_t m_heldPort = 0;
  uint32_t m_sinceSack = 0; ///< packets received since the last SACK
  EventHandle m_sackTimer; ///< bounds how long a received packet waits for its SACK (SackDelay)
  uint64_t m_sacksSent = 0;
};

} // namespace ns3

#endif
