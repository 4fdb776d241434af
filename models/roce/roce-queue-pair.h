// A RoCEv2 reliable-connection queue pair as deployed over ECMP fabrics: pinned for its lifetime
// to one NIC port (plane) and one UDP source port (so switches hash it onto one path); RDMA
// Write messages segmented into MTU packets; go-back-N (the receiver drops out-of-order data and
// NAKs the expected PSN once; the sender rewinds); ACK coalescing bounded in time (AckDelay); a
// retransmission timer with exponential backoff and a retry limit whose excess is a reported QP
// error; DCQCN rate control (receiver CNPs at most once per CnpInterval, DcqcnRateControl at the
// sender; both follow DcqcnRateControl's Profile unless set). PFC is the
// fabric's (PortQueueConfig). Leaves out: RNR NAKs, read/atomic verbs, PSN wrap beyond 2^23 in
// flight, and the NIC's packet-processing pipeline latency.
// The QP is thin: its halves, held by value, are the requester (RoceRequester: segmentation,
// go-back-N, the timer, DCQCN's rate) and the responder (RoceResponder: in-order placement, ACK
// and NAK, CNP); the QP holds the configuration and the trace sources and routes frames to them.
#ifndef MRCSIM_MODELS_ROCE_QUEUE_PAIR_H
#define MRCSIM_MODELS_ROCE_QUEUE_PAIR_H

#include "models/engine/owner-of.h"
#include "models/engine/shared-config.h"
#include "models/engine/trace-bundle.h"
#include "models/rdma/rdma-queue-pair.h"
#include "models/roce/dcqcn-rate-control.h"
#include "models/roce/roce-requester.h"
#include "models/roce/roce-responder.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ns3
{

/// \brief RoCEv2 RC queue pair: requester and responder halves of one QP, as parts.
class RoceQueuePair : public RdmaQueuePair
{
public:
  static TypeId GetTypeId();
  RoceQueuePair();
  /// \brief A QP that a run's QPs are copied from (Copy), with the attribute values as they are
  /// now, and its DCQCN rate control's prototype (see MrcQueuePair::CreatePrototype: a copy
  /// reads no attribute by name).
  static Ptr<RoceQueuePair> CreatePrototype();
  /// \brief A new QP configured as this prototype (CreatePrototype; aborts on any other QP), on
  /// NIC port `port` with UDP source port `entropy` (the Port and Entropy attributes); its DCQCN
  /// rate control, made at its first CNP, is a copy of the prototype's.
  Ptr<RoceQueuePair> Copy(uint16_t port, uint16_t entropy) const;

  uint64_t PostWrite(uint64_t bytes) override;
  FramePtr NextPacket(uint16_t port, Time* retryAt) override;
  bool WantsPort(uint16_t port) const override { return port == m_port; }
  void Receive(const RdmaRxInfo& info) override;

  uint16_t GetPort() const { return m_port; }
  int GetPlane() const { return Plane(); }
  /// \brief The fields of the QP's data packets that switches hash for ECMP (addresses, plane,
  /// UDP source port): where its one path goes (the fair-share reference walks it).
  FabricPacketSpec PathSpec() const { return DataSpec(Plane(), m_entropy, 0, true, true); }
  RdmaQpCounters Counters() const override { return { m_requester.PacketsSent(), Retransmissions(), Timeouts(), 0 }; }
  uint64_t PacketsSent() const { return m_requester.PacketsSent(); }
  uint64_t Retransmissions() const { return m_rare ? m_rare->retransmissions : 0; }
  uint64_t Timeouts() const { return m_rare ? m_rare->timeouts : 0; }
  uint64_t NaksSent() const { return m_rare ? m_rare->naksSent : 0; }
  uint64_t CnpsSent() const { return m_rare ? m_rare->cnpsSent : 0; }
  uint64_t CnpsReceived() const { return m_rare ? m_rare->cnpsReceived : 0; }
  uint64_t OutOfOrderDrops() const { return m_rare ? m_rare->outOfOrder : 0; }
  /// \brief Current sending rate (the port rate without DCQCN or before its first CNP).
  DataRate GetRate() const { return m_requester.GetRate(); }
  /// \brief The DCQCN rate control: null without DCQCN and until the QP's first CNP.
  Ptr<DcqcnRateControl> GetRateControl() const { return m_requester.GetRateControl(); }
  /// \brief A CNP for this QP arrived (what Receive does with one): DCQCN cuts its rate.
  void ReceiveCnp() { m_requester.HandleCnp(); }

  typedef void (*StallTracedCallback)(uint32_t qpn, Time lost);
  typedef void (*RewindTracedCallback)(uint32_t qpn, uint32_t fromPsn, uint64_t packets, bool timeout);

protected:
  void DoDispose() override;

private:
  // The halves reach the NIC, the configuration and the trace sources through the private
  // services below (and the base class's ControlSpec and ScheduleTimer); neither reads the
  // other's members.
  friend class RoceRequester;
  friend class RoceResponder;

  // ---- services for the halves
  /// What a QP that neither loses nor marks a packet never counts: go-back-N's and DCQCN's events,
  /// in a block made at the first (a large run's QPs mostly count none).
  struct RareCounts
  {
    uint64_t retransmissions = 0; ///< packets sent again (requester)
    uint64_t timeouts = 0;        ///< retransmission timeouts (requester)
    uint64_t cnpsReceived = 0;    ///< (requester)
    uint64_t naksSent = 0;        ///< (responder)
    uint64_t cnpsSent = 0;        ///< (responder)
    uint64_t outOfOrder = 0;      ///< data packets dropped out of order (responder)
  };
  RareCounts& Rare()
  {
    if (!m_rare)
      m_rare = std::make_unique<RareCounts>();
    return *m_rare;
  }
  RdmaNic& Nic() const { return *m_nic; }
  int Plane() const;
  uint16_t Entropy() const { return m_entropy; }
  uint32_t AckInterval() const { return m_config->ackInterval; }
  Time AckDelay() const { return m_config->ackDelay; }
  Time RtoBase() const { return m_config->rtoBase; }
  uint32_t RetryLimit() const { return m_config->retryLimit; }
  Time CnpInterval() const;
  bool DcqcnEnabled() const { return m_config->dcqcnEnabled; }
  /// \brief Marks the QP failed (retry limit).
  void FailQp(const std::string& cause) { Fail(cause); }
  void TraceStall(Time lost)
  {
    if (m_traces)
      static_cast<RoceTraces&>(*m_traces).stall(m_qpn, lost);
  }
  void TraceRewind(uint32_t fromPsn, uint64_t packets, bool timeout)
  {
    if (m_traces)
      static_cast<RoceTraces&>(*m_traces).rewind(m_qpn, fromPsn, packets, timeout);
  }
  /// \brief A new DCQCN rate control: the prototype's copy, or built from its attributes.
  Ptr<DcqcnRateControl> NewRateControl() const;
  /// \brief Aborts if DCQCN could not start at `lineRate` (DcqcnRateControl::CheckLineRate).
  void CheckRateControl(DataRate lineRate) const;

  /// \brief Copies the configuration of `prototype` (CreatePrototype), none of its state.
  RoceQueuePair(const RoceQueuePair& prototype);
  RoceQueuePair& operator=(const RoceQueuePair&) = delete;
  /// \brief Compile-time checks of the size and of the layout HotLineMask names (static_asserts
  /// only).
  static void CheckLayout();

  // Layout: the configuration NextPacket reads (port, entropy), the shared rest and the
  // requester's state come right after the base class (56 bytes), in the lines the
  // constructor's HotLineMask names (lines 0 to 2); the responder follows. The halves find the QP
  // from their place in it (no reference each), their timers are 8-byte handles and the counts
  // of rare events are a block apart: 288 bytes, one of tcmalloc's size classes (CheckLayout),
  // where they took 384.
  uint16_t m_port;
  uint16_t m_entropy;
  /// The attributes every QP copied from one prototype has alike, in one block they share
  /// (SharedConfig): a large run has millions of QPs.
  struct Config
  {
    uint32_t ackInterval;
    uint32_t retryLimit;
    Time ackDelay;
    Time rtoBase;
    Time cnpInterval; ///< negative: the DCQCN profile's (CnpInterval)
    bool dcqcnEnabled;
    Ptr<const DcqcnRateControl> dcqcnPrototype; ///< what NewRateControl copies (CreatePrototype)
  };
  SharedConfig<Config> m_config;

  RoceRequester m_requester;
  RoceResponder m_responder;

  /// RoCEv2's trace sources, in the QP's one bundle (RdmaQueuePair::Traces), made at the first
  /// connection.
  struct RoceTraces : Traces
  {
    TracedCallback<uint32_t, Time> stall;
    TracedCallback<uint32_t, uint32_t, uint64_t, bool> rewind;
  };
  std::unique_ptr<Traces> NewTraces() const override { return std::make_unique<RoceTraces>(); }
  RoceTraces& RoceTraceBundle() { return static_cast<RoceTraces&>(TraceBundle()); }
  std::unique_ptr<RareCounts> m_rare; ///< made at the first count (Rare)
};

// A half's QP: the half is a member at a fixed offset (OwnerOf, as MrcQueuePair's parts).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
inline RoceQueuePair&
RoceRequester::Qp() const
{
  return OwnerOf<RoceQueuePair>(this, offsetof(RoceQueuePair, m_requester));
}

inline RoceQueuePair&
RoceResponder::Qp() const
{
  return OwnerOf<RoceQueuePair>(this, offsetof(RoceQueuePair, m_responder));
}
#pragma GCC diagnostic pop

} // namespace ns3

#endif
