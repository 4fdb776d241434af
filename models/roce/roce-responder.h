// The responder (receiving) half of a RoCEv2 RC queue pair: in-order placement (go-back-N: data
// out of order is dropped and the expected PSN NAKed once per gap, a duplicate re-ACKed), message
// completions, ACK coalescing (every AckInterval in-order packets and every ACK request, and no
// ACK held longer than AckDelay), and the DCQCN notification point (a CNP for ECN-marked data, at most one per CnpInterval). Leaves out:
// RNR NAKs, read/atomic responses, and the NIC's packet-processing latency.
#ifndef MRCSIM_MODELS_ROCE_RESPONDER_H
#define MRCSIM_MODELS_ROCE_RESPONDER_H

#include "models/rdma/rdma-queue-pair.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

class RoceQueuePair;

/// \brief The responder half of a RoCEv2 RC queue pair (see the file comment). A member of its
/// RoceQueuePair, through which it reaches the NIC, the configuration and the trace sources.
class RoceResponder
{
public:
  explicit RoceResponder(RoceQueuePair& qp) : m_qp(qp) {}
  RoceResponder(const RoceResponder&) = delete;
  RoceResponder& operator=(const RoceResponder&) = delete;

  /// \brief Cancels the ACK timer.
  void Dispose();
  /// \brief A data packet arrived.
  void HandleData(const RdmaRxInfo& info);
  uint64_t NaksSent() const { return m_naksSent; }
  uint64_t CnpsSent() const { return m_cnpsSent; }
  uint64_t OutOfOrderDrops() const { return m_outOfOrder; }

private:
  void SendAck(uint64_t cumulativeSeq, bool nak, uint16_t entropy);
  void SendCnp();
  /// \brief The ACK delay ran out: acknowledge what is held.
  void OnAckTimer();

  RoceQueuePair& m_qp;
  uint64_t m_expected = 0;   ///< next in-order sequence number
  bool m_nakPending = false; ///< a NAK was sent for the current gap
  uint32_t m_unacked = 0;    ///< in-order packets since the last ACK
  uint16_t m_ackEntropy = 0; ///< UDP source port of the newest of them (the ACK echoes it)
  Time m_ackDeadline;        ///< when the held ACK goes at the latest
  EventId m_ackTimer;
  uint64_t m_rxMessageId = 0;
  uint64_t m_rxMessageBytes = 0;
  Time m_rxMessageStart;
  Time m_lastCnp;
  bool m_cnpSentOnce = false;

  // counters
  uint64_t m_naksSent = 0;
  uint64_t m_cnpsSent = 0;
  uint64_t m_outOfOrder = 0;
};

} // namespace ns3

#endif
