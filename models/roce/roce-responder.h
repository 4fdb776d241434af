// The responder (receiving) half of a RoCEv2 RC queue pair: in-order placement (go-back-N: data
// out of order is dropped and the expected PSN NAKed once per gap, a duplicate re-ACKed), message
// completions, ACK coalescing (every AckInterval in-order packets and every ACK request, and no
// ACK held longer than AckDelay), and the DCQCN notification point (a CNP for ECN-marked data, at most one per CnpInterval). Leaves out:
// RNR NAKs, read/atomic responses, and the NIC's packet-processing latency.
#ifndef MRCSIM_MODELS_ROCE_RESPONDER_H
#define MRCSIM_MODELS_ROCE_RESPONDER_H

#include "models/engine/event-handle.h"
#include "models/rdma/rdma-queue-pair.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

class RoceQueuePair;

/// \brief The responder half of a RoCEv2 RC queue pair (see the file comment). A member of its
/// RoceQueuePair, through which it reaches the NIC, the configuration, the trace sources and
/// the rare counts (RoceQueuePair::RareCounts); it finds its QP from its place in it.
class RoceResponder
{
public:
  RoceResponder() = default;
  RoceResponder(const RoceResponder&) = delete;
  RoceResponder& operator=(const RoceResponder&) = delete;

  /// \brief Cancels the ACK timer.
  void Dispose();
  /// \brief A data packet arrived.
  void HandleData(const RdmaRxInfo& info);

private:
  void SendAck(uint64_t cumulativeSeq, bool nak, uint16_t entropy);
  void SendCnp();
  /// \brief The ACK delay ran out: acknowledge what is held.
  void OnAckTimer();
  /// \brief The QP this half is a member of (inline in roce-queue-pair.h).
  RoceQueuePair& Qp() const;

  uint64_t m_expected = 0;    ///< next in-order sequence number
  bool m_nakPending = false;  ///< a NAK was sent for the current gap
  bool m_cnpSentOnce = false; ///< m_lastCnp is set
  uint16_t m_ackEntropy = 0;  ///< UDP source port of the newest packet not acknowledged (the ACK echoes it)
  uint32_t m_unacked = 0;     ///< in-order packets since the last ACK
  Time m_ackDeadline;         ///< when the held ACK goes at the latest
  EventHandle m_ackTimer;     ///< OnAckTimer clears it first: set while an event is pending
  uint64_t m_rxMessageId = 0;
  uint64_t m_rxMessageBytes = 0;
  Time m_rxMessageStart;
  Time m_lastCnp;
};

} // namespace ns3

#endif
