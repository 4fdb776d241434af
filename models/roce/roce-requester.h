// The requester (sending) half of a RoCEv2 RC queue pair: RDMA Write messages segmented into MTU
// packets on the QP's one port and UDP source port, go-back-N (a NAK or the timer rewinds the
// next PSN to the oldest unacknowledged), a retransmission timer with exponential backoff and a
// retry limit whose excess fails the QP, and the DCQCN reaction point's rate (DcqcnRateControl)
// pacing the packets, cut by the CNPs that arrive. Leaves out: read/atomic verbs, RNR NAKs, and
// PSN wrap beyond 2^23 packets in flight.
#ifndef MRCSIM_MODELS_ROCE_REQUESTER_H
#define MRCSIM_MODELS_ROCE_REQUESTER_H

#include "models/engine/event-handle.h"
#include "models/fabric/fabric-frame.h"
#include "models/rdma/rdma-queue-pair.h"
#include "models/roce/dcqcn-rate-control.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include "models/engine/ring-queue.h"

namespace ns3
{

class FabricPort;
class RoceQueuePair;

/// \brief The requester half of a RoCEv2 RC queue pair (see the file comment). A member of its
/// RoceQueuePair, through which it reaches the NIC, the configuration, the trace sources and
/// the rare counts (RoceQueuePair::RareCounts); it finds its QP from its place in it.
class RoceRequester
{
public:
  RoceRequester() = default;
  RoceRequester(const RoceRequester&) = delete;
  RoceRequester& operator=(const RoceRequester&) = delete;

  /// \brief Cancels the timer and stops DCQCN.
  void Dispose();
  /// \brief Queues an RDMA Write of `bytes`; returns its message id.
  uint64_t PostWrite(uint64_t bytes);
  /// \brief The next data packet (null when nothing may go now; `*retryAt` then names when the
  /// rate allows the next, if not null).
  FramePtr NextPacket(Time* retryAt);
  /// \brief An ACK or NAK arrived.
  void HandleAck(const RdmaRxInfo& info);
  /// \brief A CNP arrived: DCQCN (made at the first) cuts the rate.
  void HandleCnp();

  /// \brief Current sending rate (the port rate without DCQCN or before its first CNP).
  DataRate GetRate() const;
  /// \brief The DCQCN rate control: null without DCQCN and until the first CNP.
  Ptr<DcqcnRateControl> GetRateControl() const { return m_dcqcn; }
  /// \brief Whether every PSN handed out was sent at least once (and none is being resent).
  bool AllSent() const { return m_sndNxt >= m_totalSeq; }
  uint64_t PacketsSent() const { return m_packetsSent; }

private:
  struct Message
  {
    uint64_t id;
    uint64_t bytes;
    uint64_t firstSeq; ///< sequence number (unwrapped PSN) of its first packet
    uint64_t packets;
    Time posted;
  };

  const Message& MessageOf(uint64_t seq) const;
  /// \brief The NIC port the QP sends on (its line rate and framing).
  const FabricPort& Wire() const;
  /// \brief GetRate, with the QP's port already at hand: DCQCN's rate, or `wire`'s line rate
  /// before the first CNP.
  DataRate RateOn(const FabricPort& wire) const;
  FramePtr BuildData(uint64_t seq);
  /// \brief Go-back-N: the next packet sent is `toSeq` (a NAK, or the timer if `timeout`).
  void Rewind(uint64_t toSeq, bool timeout);
  void ArmTimer();
  void OnTimer();
  /// \brief The QP this half is a member of (inline in roce-queue-pair.h).
  RoceQueuePair& Qp() const;

  RingQueue<Message> m_messages; ///< posted, not yet fully acknowledged (16 bytes while empty)
  uint64_t m_nextMessageId = 0;
  uint64_t m_totalSeq = 0; ///< sequence numbers handed out so far
  uint64_t m_sndUna = 0;   ///< oldest unacknowledged
  uint64_t m_sndNxt = 0;   ///< next to send
  uint64_t m_highestSent = 0;
  Time m_nextSendTime;
  Ptr<DcqcnRateControl> m_dcqcn;
  EventHandle m_timer; ///< OnTimer clears it first: set while an event is pending
  Time m_deadline;
  Time m_rto;
  uint32_t m_retries = 0;
  bool m_stalled = false;
  Time m_lastProgress;
  uint64_t m_packetsSent = 0;
};

} // namespace ns3

#endif
