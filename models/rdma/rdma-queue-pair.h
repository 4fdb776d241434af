// What every RDMA queue pair (RoCEv2 RC, MRC) shares with the NIC: posting RDMA Write messages,
// being asked for the next packet when its port can take one, receiving its packets, and
// reporting completions. Transports differ in how they pick paths, acknowledge and recover.
#ifndef MRCSIM_MODELS_RDMA_QUEUE_PAIR_H
#define MRCSIM_MODELS_RDMA_QUEUE_PAIR_H

#include "models/fabric/fabric-frame.h"
#include "models/fabric/fabric-packet.h"
#include "models/engine/fabric-parallel-simulator.h"
#include "models/engine/light-object.h"
#include "models/engine/trace-bundle.h"
#include "models/wire/roce-bth-header.h"

#include "ns3/event-id.h"
#include "ns3/make-event.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ns3
{

class RdmaNic;

/// \brief A received frame as the NIC hands it to its QP.
struct RdmaRxInfo
{
  const FabricFrame& frame;
  uint16_t port = 0; ///< NIC port it arrived on
};

/// \brief Counters every transport keeps, read by the runner's metrics.
struct RdmaQpCounters
{
  uint64_t packetsSent = 0;     ///< data packets, first sends and retransmissions
  uint64_t retransmissions = 0; ///< data packets sent again
  uint64_t timeouts = 0;        ///< retransmission timer expiries
  uint64_t lossProbes = 0;      ///< tail-loss probes (0 for transports without them)
  uint64_t evTransitions = 0;   ///< EV state changes (0 for transports without EVs)
};

class RdmaQueuePair;

/// \brief Who a QP tells of its completions and its failure, besides its trace sources: a pointer
/// per QP, where a trace connection costs a few hundred bytes per QP and trace source (a run
/// connects millions of QPs, and its NetworkService listens to each).
class RdmaQpListener
{
public:
  virtual ~RdmaQpListener() = default;
  /// \brief As the RecvComplete trace source: every byte of message `id` was placed.
  virtual void RecvComplete(RdmaQueuePair& qp, uint64_t id, uint64_t bytes, Time firstArrival) = 0;
  /// \brief As the Error trace source: the QP failed.
  virtual void Failed(RdmaQueuePair& qp, const std::string& cause) = 0;
};

/// \brief An RDMA queue pair on a NIC (abstract: see RoceQueuePair, MrcQueuePair). A
/// LightObject, as a run makes millions: made by CreateLight (not CreateObject) or copied from a
/// transport's prototype, and never aggregated.
class RdmaQueuePair : public LightObject<RdmaQueuePair>
{
public:
  static TypeId GetTypeId();
  RdmaQueuePair();
  /// \brief Lets go of what the QP holds of others (DoDispose), as ns3::Object::Dispose does.
  void Dispose() { DoDispose(); }

  /// \brief Binds the QP to its NIC and its peer (remote GPU and QP number).
  void Bind(RdmaNic* nic, uint32_t qpn, uint32_t remoteGpu, uint32_t remoteQpn);
  uint32_t GetQpn() const { return m_qpn; }
  /// \brief The NIC that holds this QP (null until added to one).
  const RdmaNic* GetNic() const { return m_nic; }
  /// \brief Id of the node this QP's NIC is in.
  uint32_t NodeId() const;
  uint32_t GetRemoteGpu() const { return m_remoteGpu; }
  uint32_t GetRemoteQpn() const { return m_remoteQpn; }

  /// \brief Posts an RDMA Write of `bytes`; returns its message id (0, 1, 2, ... per QP).
  virtual uint64_t PostWrite(uint64_t bytes) = 0;
  /// \brief The next frame for NIC port `port`, or null if the QP has nothing it may send there
  /// now; `*retryAt` (if not null) receives the earliest time it might (rate limits).
  virtual FramePtr NextPacket(uint16_t port, Time* retryAt) = 0;
  /// \brief Whether the QP will ever send data on NIC port `port`: asked once per port, when the
  /// QP is added to its NIC (RdmaNic::AddQueuePair), to place it in that port's round robin.
  /// Not "has data now": a QP answering false for a port is never asked for its packets there.
  virtual bool WantsPort(uint16_t port) const = 0;
  /// \brief A frame for this QP arrived.
  virtual void Receive(const RdmaRxInfo& info) = 0;
  /// \brief A port of the NIC went up or down.
  virtual void PortStateChanged(uint16_t port, bool up) {}
  /// \brief The transport's counters so far.
  virtual RdmaQpCounters Counters() const = 0;
  /// \brief Every byte of message `id` (posted at `posted`) was acknowledged: fires SendComplete.
  void SendComplete(uint64_t id, uint64_t bytes, Time posted)
  {
    if (m_traces)
      m_traces->sendComplete(m_qpn, id, bytes, posted);
  }
  /// \brief Every byte of the `id`-th message received (its first packet in at `firstArrival`)
  /// was placed: fires RecvComplete, which is what the runner counts as the message's completion.
  void RecvComplete(uint64_t id, uint64_t bytes, Time firstArrival)
  {
    if (m_traces)
      m_traces->recvComplete(m_qpn, id, bytes, firstArrival);
    if (m_listener)
      m_listener->RecvComplete(*this, id, bytes, firstArrival);
  }
  /// \brief Tells `listener` (which must outlive the QP's run, or be replaced by null) of the
  /// QP's receive completions and failure.
  void SetListener(RdmaQpListener* listener) { m_listener = listener; }
  /// \brief True once the QP failed (retry limit); it sends nothing more.
  bool IsInError() const { return m_error; }
  /// \brief The cache lines a NIC visit reads first (bit i: the line at this + 64 i), which the
  /// NIC's visit event prefetches. Set by the transport, which alone knows its member layout.
  uint8_t HotLineMask() const { return m_hotLineMask; }

  typedef void (*CompletionTracedCallback)(uint32_t qpn, uint64_t msgId, uint64_t bytes, Time posted);
  typedef void (*ErrorTracedCallback)(uint32_t qpn, const std::string& cause);

protected:
  /// \brief Copies what configures an unconnected QP (a transport's prototype, which a run's
  /// QPs are copied from instead of being built attribute by attribute): none of its binding,
  /// state or trace connections. Aborts if `prototype` is bound to a NIC.
  RdmaQueuePair(const RdmaQueuePair& prototype);
  RdmaQueuePair& operator=(const RdmaQueuePair&) = delete;
  /// \brief Addressing of a control packet (ACK, SACK, NACK, CNP, probe) to the peer QP in
  /// `plane`: the fabric's control class, never ECN-capable.
  FabricPacketSpec ControlSpec(uint8_t opcode, int plane, uint16_t entropy) const;
  /// \brief Addressing of data packet `seq` of an RDMA WRITE to the peer QP in `plane`: the
  /// NIC's data DSCP, ECN-capable, the WRITE opcode of its place in the message (`first`,
  /// `last`), AckReq on the last. The caller adds the payload, path and RETH.
  FabricPacketSpec DataSpec(int plane, uint16_t entropy, uint64_t seq, bool first, bool last) const;
  virtual void DoDispose();
  /// \brief Marks the QP failed, with the cause (traced), and tells the NIC.
  void Fail(const std::string& cause);
  /// \brief Schedules a timer of this QP as its node's event (see
  /// FabricParallelSimulatorImpl::ScheduleForNode): `(this->*mem)()` after `delay`.
  template<typename MEM, typename OBJ>
  EventId ScheduleTimer(const Time& delay, MEM mem, OBJ obj) const
  {
    return FabricParallelSimulatorImpl::ScheduleForNode(NodeId(), delay, MakeEvent(mem, obj));
  }

  RdmaNic* m_nic = nullptr;
  uint32_t m_qpn = 0;
  uint32_t m_remoteGpu = 0;
  uint32_t m_remoteQpn = 0;
  bool m_error = false;
  uint8_t m_hotLineMask = 1; ///< see HotLineMask (1 to 63)
  bool m_isPrototype = false; ///< copied from, never bound (a transport's CreatePrototype)
  RdmaQpListener* m_listener = nullptr;
  /// The trace sources, in one bundle made at the first connection (a run connects none per QP).
  /// A transport with sources of its own derives its bundle from this one (NewTraces), so that a
  /// QP holds one pointer for all of them.
  struct Traces
  {
    virtual ~Traces() = default;
    /// (qpn, message id, bytes, time posted): every byte acknowledged (sender side).
    TracedCallback<uint32_t, uint64_t, uint64_t, Time> sendComplete;
    /// (qpn, message id, bytes, time the first packet arrived): every byte placed (receiver side).
    TracedCallback<uint32_t, uint64_t, uint64_t, Time> recvComplete;
    TracedCallback<uint32_t, const std::string&> error;
  };
  std::unique_ptr<Traces> m_traces;
  /// \brief A new bundle of the QP's trace sources: a transport with sources of its own returns
  /// its derived bundle.
  virtual std::unique_ptr<Traces> NewTraces() const { return std::make_unique<Traces>(); }
  /// \brief The QP's trace bundle, made now if it was not (what the sources' accessors reach).
  Traces& TraceBundle()
  {
    if (!m_traces)
      m_traces = NewTraces();
    return *m_traces;
  }
};

} // namespace ns3

#endif
