// A RoCEv2 reliable-connection queue pair as deployed over ECMP fabrics: pinned for its lifetime
// to one NIC port (plane) and one UDP source port (so switches hash it onto one path); RDMA
// Write messages segmented into MTU packets; go-back-N (the receiver drops out-of-order data and
// NAKs the expected PSN once; the sender rewinds); ACK coalescing; a retransmission timer with
// exponential backoff and a retry limit whose excess is a reported QP error; DCQCN rate control
// (receiver CNPs at most once per CnpInterval, DcqcnRateControl at the sender). PFC is the
// fabric's (PortQueueConfig). Leaves out: RNR NAKs, read/atomic verbs, PSN wrap beyond 2^23 in
// flight, and the NIC's packet-processing pipeline latency.
#ifndef MRCSIM_MODELS_ROCE_QUEUE_PAIR_H
#define MRCSIM_MODELS_ROCE_QUEUE_PAIR_H

#include "models/roce/dcqcn-rate-control.h"
#include "models/rdma/rdma-queue-pair.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"

#include <deque>

namespace ns3
{

/// \brief RoCEv2 RC queue pair (sender and receiver halves of one QP).
class RoceQueuePair : public RdmaQueuePair
{
public:
  static TypeId GetTypeId();
  RoceQueuePair();

  uint64_t PostWrite(uint64_t bytes) override;
  FramePtr NextPacket(uint16_t port, Time* retryAt) override;
  bool WantsPort(uint16_t port) const override { return port == m_port; }
  void Receive(const RdmaRxInfo& info) override;

  uint16_t GetPort() const { return m_port; }
  RdmaQpCounters Counters() const override { return { m_packetsSent, m_retransmissions, m_timeouts, 0 }; }
  uint64_t PacketsSent() const { return m_packetsSent; }
  uint64_t Retransmissions() const { return m_retransmissions; }
  uint64_t Timeouts() const { return m_timeouts; }
  uint64_t NaksSent() const { return m_naksSent; }
  uint64_t CnpsSent() const { return m_cnpsSent; }
  uint64_t CnpsReceived() const { return m_cnpsReceived; }
  uint64_t OutOfOrderDrops() const { return m_outOfOrder; }
  /// \brief Current sending rate (the port rate without DCQCN).
  DataRate GetRate() const;
  Ptr<DcqcnRateControl> GetRateControl() const { return m_dcqcn; }

  typedef void (*StallTracedCallback)(uint32_t qpn, Time lost);
  typedef void (*RewindTracedCallback)(uint32_t qpn, uint32_t fromPsn, uint64_t packets, bool timeout);

protected:
  void DoDispose() override;

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
  FramePtr BuildData(uint64_t seq);
  void SendAck(uint64_t cumulativeSeq, bool nak, uint16_t entropy);
  void SendCnp();
  void HandleAck(const RdmaRxInfo& info);
  void HandleData(const RdmaRxInfo& info);
  void Rewind(uint64_t toSeq, bool timeout);
  void ArmTimer();
  void OnTimer();
  int Plane() const;

  // configuration
  uint16_t m_port;
  uint16_t m_entropy;
  uint32_t m_ackInterval;
  Time m_rtoBase;
  uint32_t m_retryLimit;
  Time m_cnpInterval;
  bool m_dcqcnEnabled;

  // sender
  std::deque<Message> m_messages; ///< posted, not yet fully acknowledged
  uint64_t m_nextMessageId = 0;
  uint64_t m_totalSeq = 0; ///< sequence numbers handed out so far
  uint64_t m_sndUna = 0;   ///< oldest unacknowledged
  uint64_t m_sndNxt = 0;   ///< next to send
  uint64_t m_highestSent = 0;
  Time m_nextSendTime;
  Ptr<DcqcnRateControl> m_dcqcn;
  EventId m_timer;
  Time m_deadline;
  Time m_rto;
  uint32_t m_retries = 0;
  Time m_lastProgress;
  bool m_stalled = false;

  // receiver
  uint64_t m_expected = 0;   ///< next in-order sequence number
  bool m_nakPending = false; ///< a NAK was sent for the current gap
  uint32_t m_unacked = 0;    ///< in-order packets since the last ACK
  uint64_t m_rxMessageId = 0;
  uint64_t m_rxMessageBytes = 0;
  Time m_rxMessageStart;
  Time m_lastCnp;
  bool m_cnpSentOnce = false;

  // counters
  uint64_t m_packetsSent = 0;
  uint64_t m_retransmissions = 0;
  uint64_t m_timeouts = 0;
  uint64_t m_naksSent = 0;
  uint64_t m_cnpsSent = 0;
  uint64_t m_cnpsReceived = 0;
  uint64_t m_outOfOrder = 0;

  TracedCallback<uint32_t, Time> m_stallTrace;
  TracedCallback<uint32_t, uint32_t, uint64_t, bool> m_rewindTrace;
};

} // namespace ns3

#endif
