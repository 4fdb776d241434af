// An RDMA NIC on a GPU host: one port per plane, queue pairs demultiplexed by destination QP,
// and per-port transmit scheduling. Each port has at most one pending event: the next time it
// can take a data packet, when it asks its QPs round-robin for one (they apply their own rate
// limits and windows). Control packets (ACK, NACK, CNP) bypass the scheduler in the control
// class. WQE/doorbell processing is one fixed delay (PostLatency). Leaves out: PCIe and host
// memory bandwidth, QP context caches.
#ifndef MRCSIM_MODELS_RDMA_NIC_H
#define MRCSIM_MODELS_RDMA_NIC_H

#include "models/fabric/fabric-host.h"
#include "models/rdma/rdma-queue-pair.h"

#include "topologies/fabric-routing.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <utility>
#include <vector>

namespace ns3
{

class FabricNetwork;

/// \brief The RDMA NIC of one GPU.
class RdmaNic
  : public Object
  , public FabricFrameSink
{
public:
  static TypeId GetTypeId();
  RdmaNic();
  ~RdmaNic() override;

  /// \brief Attaches the NIC to its host (takes over the host's receive and link callbacks).
  void Attach(Ptr<FabricHost> host);
  Ptr<FabricHost> GetHost() const { return m_host; }
  uint32_t GetGpu() const { return m_host->GetGpuIndex(); }
  /// \brief Id of the host node (the context of the NIC's and its QPs' events).
  uint32_t GetNodeId() const { return m_nodeId; }
  uint16_t NumPorts() const { return m_host->NumPorts(); }
  /// \brief The network the NIC is in (which must outlive it), set by whoever builds the NIC
  /// (GetOrCreateNic): its routing gives MRC's EVs their SRv6 paths, its hosts the nodes of the
  /// NIC's peers.
  void SetNetwork(const FabricNetwork* net);
  /// \brief The fabric's routing (null without a network).
  const mrcsim::FabricRouting* GetRouting() const { return m_routing; }
  /// \brief The node of the host of GPU `gpu` (the context of its NIC's events, on whichever MPI
  /// rank runs it), or kNoNode without a network.
  uint32_t NodeOfGpu(uint32_t gpu) const;
  static constexpr uint32_t kNoNode = UINT32_MAX;
  /// \brief The plane NIC port `port` is wired to.
  int PlaneOfPort(uint16_t port) const { return m_planes[port]; }

  /// \brief Adds a QP under number `qpn` (unique on this NIC) bound to its peer.
  void AddQueuePair(Ptr<RdmaQueuePair> qp, uint32_t qpn, uint32_t remoteGpu, uint32_t remoteQpn);
  /// \brief Takes the lowest QP number neither used nor taken before, for a QP to be added or
  /// for one another process adds (a NIC is numbered alike in every process of an MPI run).
  uint32_t TakeQpn();
  Ptr<RdmaQueuePair> GetQueuePair(uint32_t qpn) const;
  /// \brief The NIC of node `nodeId` (a message's receiving context), or null if it has none.
  static Ptr<RdmaNic> OfNode(uint32_t nodeId);

  /// \brief A QP has (new) data for `port`: a command, not a query. It brings the port up to
  /// date (FabricPort::CatchUp: frames due by now start, as at any observer's look) and
  /// schedules the port's visit for when its wire is free, unless a visit is due earlier.
  void NotifyReady(uint16_t port);
  /// \brief `qp`, which had nothing to send, was given work: it joins the tail of every port's
  /// round robin, as a doorbell puts a QP at the back of a NIC's send schedule. QPs given work
  /// one after another are then served in that order (NCCL posts an all-to-all's sends from
  /// rank + 1 on, so senders start on different receivers instead of all on the first one).
  void JoinTail(RdmaQueuePair* qp);
  /// \brief Sends a control packet (ACK, NACK, CNP, probe) out of `port` now.
  void SendControl(FramePtr frame, uint16_t port);

  /// \brief DSCP of data and of control packets, shared by the QPs.
  uint8_t DataDscp() const { return m_dataDscp; }
  uint8_t ControlDscp() const { return m_controlDscp; }
  uint32_t Mtu() const { return m_mtu; }
  /// \brief Host latencies of one message: before its QP has it, after its last byte arrived.
  Time PostLatency() const { return m_postLatency; }
  Time CompletionLatency() const { return m_completionLatency; }

  uint64_t RxPackets() const { return m_rxPackets; }
  /// \brief Tags data packets with their send time, and fires PacketLatency for each full data
  /// packet received (trimmed ones excluded). Both ends of a path must have it on.
  void EnableLatencyTracing() { m_latency = true; }
  typedef void (*LatencyTracedCallback)(Time oneWay);
  uint64_t UnknownQpDrops() const { return m_unknownQp; }

protected:
  void DoDispose() override;

private:
  void ReceiveFrame(FramePtr frame, uint16_t port) override;
  /// \brief The NIC's first line and its QP numbers (which move when QPs are added: a hint).
  std::array<const void*, 2> GetArrivalLines() const override { return { this, m_byQpn.data() }; }
  void LinkStateChanged(uint16_t port, bool up) override;
  void Schedule(uint16_t port, Time at);
  void Serve(uint16_t port);

  class ServeEvent;

  struct PortState
  {
    std::vector<uint32_t> qps; ///< places in m_qpList of the QPs that may send here, served round-robin
    size_t next = 0;
    uint8_t qpHotLines = 1; ///< union of the QPs' HotLineMask, prefetched for the next visit
    /// The port's visit, scheduled again and again (no allocation per packet); replaced by a new
    /// one only when a pending visit moves earlier (an ns-3 event cannot be un-cancelled).
    Ptr<ServeEvent> event;
    bool pending = false; ///< `event` is scheduled, at `due`
    Time due;
  };

  Ptr<FabricHost> m_host;
  uint32_t m_nodeId = 0; ///< m_host's id: the context of the NIC's events
  /// \brief The QP numbered `qpn`, or null.
  RdmaQueuePair* FindQp(uint32_t qpn) const;

  /// \brief The place in m_qpList of `qp`, which was added.
  uint32_t PlaceOf(const RdmaQueuePair* qp) const;

  // A NIC holds a few QPs per peer, and a large run millions of QPs: each costs 8 bytes here, 8
  // in m_byQpn and 4 in each port's list (places, not pointers), and the lists grow by an eighth
  // at a time (GrowByEighth).
  std::vector<Ptr<RdmaQueuePair>> m_qpList; ///< the QPs in the order they were added (their places)
  /// (QP number, place), sorted by number: a lookup per received frame reads one small array.
  std::vector<std::pair<uint32_t, uint32_t>> m_byQpn;
  uint32_t m_nextQpn = 1; ///< every number below is used or taken (TakeQpn)
  std::vector<PortState> m_ports;
  std::vector<int> m_planes; ///< plane of each NIC port
  const FabricNetwork* m_net = nullptr;
  const mrcsim::FabricRouting* m_routing = nullptr; ///< m_net's
  uint32_t m_mtu;
  Time m_txLatency; ///< TxLatency: every NIC port's transmit pipeline
  Time m_rxLatency; ///< RxLatency: every NIC port's receive pipeline
  Time m_postLatency;       ///< PostLatency (applied by whoever posts work)
  Time m_completionLatency; ///< CompletionLatency (applied by whoever takes completions)
  uint8_t m_dataDscp;
  uint8_t m_controlDscp;
  uint64_t m_rxPackets = 0;
  bool m_latency = false;
  TracedCallback<Time> m_latencyTrace;
  uint64_t m_unknownQp = 0;
};

} // namespace ns3

#endif
