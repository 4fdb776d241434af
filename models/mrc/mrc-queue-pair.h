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
// (EvEntropy: 0xC000 | EV index) in both modes; SACK, NACK and probe use vendor-specific BTH opcodes
// 0xC0-0xC2; loss without trim is declared RACK-style after ReorderWindow.
// The QP is thin: its parts, held by value, are the EV table (MrcEvTable: EVs, paths, states,
// probes, port status), the sender (MrcSender: window, spraying, SACK and NACK processing), the
// loss detector (MrcLossDetector: RACK, tail-loss probe, RTO, send times) and the receiver
// (MrcReceiver: placement, completions, SACK and NACK generation); the QP holds the
// configuration and the trace sources, reaches the NIC-wide path health through its NIC, and
// routes frames to the parts.
// Leaves out: the PDC/connection set-up handshake, MRC's credit-based flow control, and
// encryption.
#ifndef MRCSIM_MODELS_MRC_QUEUE_PAIR_H
#define MRCSIM_MODELS_MRC_QUEUE_PAIR_H

#include "models/engine/owner-of.h"
#include "models/engine/shared-config.h"
#include "models/engine/trace-bundle.h"
#include "models/mrc/ev-selector.h"
#include "models/fabric/fabric-packet.h"
#include "models/mrc/mrc-congestion-control.h"
#include "models/mrc/mrc-ev.h"
#include "models/mrc/mrc-ev-table.h"
#include "models/mrc/mrc-loss-detector.h"
#include "models/mrc/mrc-path-health.h"
#include "models/mrc/mrc-receiver.h"
#include "models/mrc/mrc-sender.h"
#include "models/rdma/rdma-queue-pair.h"
#include "models/wire/mrc-nack-header.h"
#include "models/wire/mrc-probe-header.h"
#include "models/wire/mrc-sack-header.h"

#include "ns3/abort.h"
#include "ns3/event-id.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ns3
{

/// \brief MRC queue pair: sender and receiver halves, as parts (see the file comment).
class MrcQueuePair : public RdmaQueuePair
{
public:
  static TypeId GetTypeId();
  MrcQueuePair();
  /// \brief A QP that a run's QPs are copied from (Copy), with the attribute values as they are
  /// now, and its congestion controller's and EV selector's prototypes. ns-3 builds an object
  /// attribute by attribute (ObjectBase::ConstructSelf looks each one up by name, copies its
  /// value and, in a build with logging, prints it), which was a third of the time of a run that
  /// connects 15,360 QPs; a copy reads nothing by name.
  static Ptr<MrcQueuePair> CreatePrototype();
  /// \brief A new QP configured as this prototype (CreatePrototype; aborts on any other QP): its
  /// congestion controller and EV selector, made at its first message, are copies of the
  /// prototype's too. Configured as a QP built now by CreateObject would be, as long as the
  /// attribute defaults did not change since the prototype was made.
  Ptr<MrcQueuePair> Copy() const;

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

  uint64_t PostWrite(uint64_t bytes) override;
  FramePtr NextPacket(uint16_t port, Time* retryAt) override;
  bool WantsPort(uint16_t port) const override { return true; }
  void Receive(const RdmaRxInfo& info) override;
  void PortStateChanged(uint16_t port, bool up) override;
  /// \brief The peer's NIC port of `plane` went down or up (a port-status message arrived).
  void PeerPortStateChanged(int plane, bool up);
  /// \brief What a QP tells its peer when one of its NIC ports goes down or up.
  struct PortNotice
  {
    uint32_t qpn;   ///< the peer QP's number on its NIC
    uint32_t plane; ///< the plane of the port that changed
    uint32_t up;    ///< 1: up, 0: down
  };
  /// \brief PeerPortStateChanged of the QP a port notice names, on node `context`: run by the
  /// engine as the node's event (NodeMessage), not called by models.
  static void ReceivePortNotice(uint32_t context, const PortNotice& notice, std::string_view tail);
  /// \brief Marks assumed bad this QP's usable EVs of NIC port `port` whose SRv6 paths start
  /// with `prefix` (what a QP of the NIC learnt), and resends what is in flight on them;
  /// returns how many.
  uint32_t MarkPathsAssumedBad(uint16_t port, const UsidList& prefix);

  /// \brief The EVs' states, by id.
  const MrcEvStates& Evs() const { return m_evTable.Evs(); }
  /// \brief The NIC port of EV `id` (its EVs are numbered port by port).
  uint16_t EvPort(uint16_t id) const { return m_evTable.PortOfEv(id); }
  /// \brief The plane of NIC port `port`.
  int PlaneOfPort(uint16_t port) const;
  /// \brief Whether a packet sent after packet `seq` on `loss.port` (or through its up-link) was
  /// acknowledged: the plane (the up-link) still works toward this QP's destination.
  void AckedSince(uint64_t seq, MrcPathHealth::Loss& loss) const;
  /// \brief The switch (fabric vertex) that SRv6 path `path` leaves this NIC's T0 of `port` for.
  uint32_t FirstSwitchAfterLeaf(uint16_t port, const UsidList& path) const;
  /// \brief The T0 (fabric vertex) the remote GPU hangs off in `plane`.
  uint32_t RemoteLeaf(int plane) const;
  /// \brief The plane of EV `id`.
  int EvPlane(uint16_t id) const { return m_evTable.EvPlane(id); }
  /// \brief The SRv6 path of EV `id` (empty in entropy mode).
  UsidList EvUsids(uint16_t id) const { return m_evTable.EvUsids(id); }
  /// \brief Active (spraying) EVs of NIC port `port`.
  MrcEvIds ActiveEvs(uint16_t port) const { return m_evTable.ActiveEvs(port); }
  RdmaQpCounters Counters() const override
  {
    return { m_sender.PacketsSent(), m_loss.Retransmissions(), m_loss.Timeouts(), m_loss.LossProbes(), m_evTable.Transitions() };
  }
  uint64_t PacketsSent() const { return m_sender.PacketsSent(); }
  uint64_t Retransmissions() const { return m_loss.Retransmissions(); }
  uint64_t Timeouts() const { return m_loss.Timeouts(); }
  /// \brief Tail-loss probes: the oldest outstanding packet resent after LossProbeRtts of silence.
  uint64_t LossProbes() const { return m_loss.LossProbes(); }
  uint64_t NacksReceived() const { return m_loss.NacksReceived(); }
  /// \brief Probes sent on EVs assumed bad.
  uint32_t ProbesSent() const { return m_evTable.ProbesSent(); }
  uint64_t SacksSent() const { return m_receiver.SacksSent(); }
  /// \brief How often the TX ring's send times were given a new base (MrcLossDetector).
  uint32_t SendTimeRebases() const { return m_loss.SendTimeRebases(); }
  uint64_t InFlightBytes() const { return m_sender.InFlightBytes(); }
  Ptr<MrcCongestionControl> GetCongestionControl() const { return m_sender.GetCongestionControl(); }
  Time GetBaseRtt() const { return m_sender.GetBaseRtt(); }

  typedef void (*EvStateTracedCallback)(uint32_t qpn, uint16_t ev, int plane, EvState from, EvState to);
  typedef void (*DataSentTracedCallback)(uint32_t qpn, uint32_t psn, uint16_t ev, int plane, bool retransmission);

protected:
  void DoDispose() override;

private:
  // The parts reach each other, the NIC, the configuration and the trace sources through the
  // private services below (and the base class's ControlSpec, ScheduleTimer and NodeId); none
  // reads another's members.
  friend class MrcEvTable;
  friend class MrcSender;
  friend class MrcLossDetector;
  friend class MrcReceiver;

  /// \brief Copies the configuration of `prototype` (CreatePrototype), none of its state.
  MrcQueuePair(const MrcQueuePair& prototype);
  MrcQueuePair& operator=(const MrcQueuePair&) = delete;
  void SetUp();
  /// \brief A new congestion controller and EV selector: the prototype's copies, or built from
  /// the CongestionControl and EvSelector types.
  Ptr<MrcCongestionControl> NewCongestionControl() const;
  Ptr<EvSelector> NewSelector() const;
  void WakeAllPorts();
  /// \brief Compile-time checks of the layout HotLineMask names (static_asserts only).
  static void CheckLayout();

  // ---- services for the parts
  RdmaNic& Nic() const { return *m_nic; }
  MrcEvTable& EvTable() { return m_evTable; }
  const MrcEvTable& EvTable() const { return m_evTable; }
  MrcSender& Sender() { return m_sender; }
  const MrcSender& Sender() const { return m_sender; }
  MrcLossDetector& LossDetector() { return m_loss; }
  /// \brief Marks the QP failed (retry limit, or no path for NoPathTimeout).
  void FailQp(const std::string& cause) { Fail(cause); }
  void TraceEvState(uint16_t ev, int plane, EvState from, EvState to)
  {
    if (m_traces)
      static_cast<MrcTraces&>(*m_traces).evState(m_qpn, ev, plane, from, to);
  }
  void TraceDataSent(uint32_t psn, uint16_t ev, int plane, bool resend)
  {
    if (m_traces)
      static_cast<MrcTraces&>(*m_traces).dataSent(m_qpn, psn, ev, plane, resend);
  }
  /// \brief Whether the QP learns from, and tells, the NIC's other QPs which paths to avoid
  /// (HealthScope per-nic, SRv6 mode): the NIC then holds an MrcPathHealth.
  bool SharesPathHealth() const { return m_config->healthScope == PerNic && m_config->mode == Srv6; }
  /// \brief The loss detector declared packet `seq` lost: tells the NIC's QPs (MrcPathHealth).
  void ReportPathLoss(uint64_t seq, bool laterDelivered);
  // the configuration (attributes)
  /// \brief Whether SetUp has run (at the first PostWrite): the EV table then has the NIC's ports.
  bool IsSetUp() const { return m_evTable.NumPorts() != 0; }
  uint32_t EvCount() const { return m_config->evCount; }
  uint32_t SackEvery() const { return m_config->sackEvery; }
  Time SackDelay() const { return m_config->sackDelay; }
  Time RtoBase() const { return m_config->rtoBase; }
  uint32_t RetryLimit() const { return m_config->retryLimit; }
  Time ReorderWindow() const { return m_config->reorderWindow; }
  double LossProbeRtts() const { return m_config->lossProbeRtts; }
  Time ProbeInterval() const { return m_config->probeInterval; }
  Time ProbeIntervalMax() const { return m_config->probeIntervalMax; }
  Time NoPathTimeout() const { return m_config->noPathTimeout; }
  uint8_t TrimmedDscp() const { return m_config->trimmedDscp; }
  uint32_t SendTimeBits() const { return m_config->sendTimeBits; }

  // Layout: the members NextPacket (a NIC's visit) touches come first, right after the base
  // class (56 bytes, in line 0), each part with its hot members first, and the NIC's visit event
  // prefetches their lines (HotLineMask: the constructor names lines 0 to 5, the most a prefetch
  // entry names; see RdmaNic::Schedule). From byte 56 come the sender's window, TX ring and
  // messages (and its few cold members), then the loss detector's resend set, send-time base,
  // progress time, timer and send order, ending within line 4 (CheckLayout), then the EV table,
  // whose port status NextPacket reads first, by line 5. The rest of the EV table (EVs, paths,
  // active sets), the receiver, the parts' cold state and the configuration follow. Reordering
  // these members or the parts' hot members moves lines: keep the mask naming them. The whole
  // is 416 bytes, one of tcmalloc's size classes (CheckLayout): millions of QPs make a large run.
  // So the QP holds no pointer it can do without: it finds the NIC's path health (at a loss) and
  // its peer's node (at a port change) through its NIC, and its trace sources are in the base
  // class's one bundle.
  MrcSender m_sender;
  MrcLossDetector m_loss;
  MrcEvTable m_evTable;
  MrcReceiver m_receiver;

  /// The attributes, shared by the QPs copied from one prototype (SharedConfig), and what a
  /// copy's NewCongestionControl and NewSelector copy (CreatePrototype).
  struct Config
  {
    uint32_t evCount;
    uint32_t backupsPerPlane;
    PathMode mode;
    uint32_t sackEvery;
    Time sackDelay;
    Time rtoBase;
    uint32_t retryLimit;
    Time reorderWindow;
    double lossProbeRtts;
    Time probeInterval;
    Time probeIntervalMax;
    Time noPathTimeout;
    Time portStatusDelay;
    uint8_t trimmedDscp;
    uint8_t sendTimeBits;
    TypeId selectorType;
    HealthScope healthScope;
    TypeId ccType;
    Ptr<const MrcCongestionControl> ccPrototype;
    Ptr<const EvSelector> selectorPrototype;
  };
  SharedConfig<Config> m_config;
  /// MRC's trace sources, in the QP's one bundle (RdmaQueuePair::Traces), made at the first
  /// connection (the data-sent one is called per packet).
  struct MrcTraces : Traces
  {
    TracedCallback<uint32_t, uint16_t, int, EvState, EvState> evState;
    TracedCallback<uint32_t, uint32_t, uint16_t, int, bool> dataSent;
  };
  std::unique_ptr<Traces> NewTraces() const override { return std::make_unique<MrcTraces>(); }
  MrcTraces& MrcTraceBundle() { return static_cast<MrcTraces&>(TraceBundle()); }
};

// Inline services of the parts that need the QP complete.

// A part's QP: the part is a member at a fixed offset (OwnerOf; CheckLayout relies on offsetof
// too).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
// clang-format off
inline MrcQueuePair& MrcSender::Qp() const { return OwnerOf<MrcQueuePair>(this, offsetof(MrcQueuePair, m_sender)); }
inline MrcQueuePair& MrcLossDetector::Qp() const
{ return OwnerOf<MrcQueuePair>(this, offsetof(MrcQueuePair, m_loss)); }
inline MrcQueuePair& MrcEvTable::Qp() const { return OwnerOf<MrcQueuePair>(this, offsetof(MrcQueuePair, m_evTable)); }
inline MrcQueuePair& MrcReceiver::Qp() const { return OwnerOf<MrcQueuePair>(this, offsetof(MrcQueuePair, m_receiver)); }
// clang-format on
#pragma GCC diagnostic pop

inline uint16_t
MrcSender::TxPort(const MrcTxState& t) const
{
  return Qp().EvTable().PortOfEv(t.ev);
}

inline void
MrcLossDetector::OnAcked(Time now, bool fresh, Time rtt)
{
  m_rto = Qp().RtoBase();
  m_lastProgress = now;
  if (fresh)
  {
    SampleRtt(rtt);
  }
}

} // namespace ns3

#endif
