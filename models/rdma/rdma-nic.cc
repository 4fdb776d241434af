#include "models/rdma/rdma-nic.h"

#include "models/engine/fabric-scheduler.h"
#include "models/engine/grow-by-eighth.h"
#include "models/fabric/fabric-network.h"
#include "models/wire/roce-udp-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");

NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

namespace
{
/// \brief The first (QP number, place) entry of the sorted table whose number is not below `qpn`.
template <typename Table>
auto
LowerBoundQpn(Table& byQpn, uint32_t qpn)
{
  return std::lower_bound(byQpn.begin(), byQpn.end(), qpn, [](const auto& e, uint32_t n) { return e.first < n; });
}
} // namespace

TypeId
RdmaNic::GetTypeId()
{
  static TypeId tid = TypeId("ns3::RdmaNic")
                        .SetParent<Object>()
                        .AddConstructor<RdmaNic>()
                        .AddAttribute("Mtu",
                                      "Payload bytes per data packet.",
                                      UintegerValue(4096),
                                      MakeUintegerAccessor(&RdmaNic::m_mtu),
                                      MakeUintegerChecker<uint32_t>(256, 9000))
                        .AddAttribute("DataDscp",
                                      "DSCP of data packets.",
                                      UintegerValue(26),
                                      MakeUintegerAccessor(&RdmaNic::m_dataDscp),
                                      MakeUintegerChecker<uint8_t>(0, 63))
                        .AddAttribute("ControlDscp",
                                      "DSCP of ACK, NACK, CNP and probe packets (the fabric's control class).",
                                      UintegerValue(48),
                                      MakeUintegerAccessor(&RdmaNic::m_controlDscp),
                                      MakeUintegerChecker<uint8_t>(0, 63))
                        .AddAttribute("TxLatency",
                                      "Transmit pipeline of each NIC port (packet processing, MAC, PCS "
                                      "and FEC encoding): from a frame's scheduling to its bits on the "
                                      "cable, added to every frame without changing the rate.",
                                      TimeValue(NanoSeconds(150)),
                                      MakeTimeAccessor(&RdmaNic::m_txLatency),
                                      MakeTimeChecker(Time(0)))
                        .AddAttribute("RxLatency",
                                      "Receive pipeline of each NIC port (FEC decoding, MAC, packet "
                                      "processing): from a frame's last bit off the cable to the NIC "
                                      "acting on it (data placed, ACK or PAUSE handled).",
                                      TimeValue(NanoSeconds(150)),
                                      MakeTimeAccessor(&RdmaNic::m_rxLatency),
                                      MakeTimeChecker(Time(0)))
                        .AddAttribute("PostLatency",
                                      "Host side of a work request, once per message: doorbell, WQE "
                                      "fetch and the first payload read across PCIe before the QP can "
                                      "send it (applied by the message service that posts work, the "
                                      "scenario runner).",
                                      TimeValue(NanoSeconds(500)),
                                      MakeTimeAccessor(&RdmaNic::m_postLatency),
                                      MakeTimeChecker(Time(0)))
                        .AddAttribute("CompletionLatency",
                                      "Host side of a receive, once per message: the last payload write "
                                      "and the completion entry across PCIe before the receiver sees the "
                                      "message (applied by the scenario runner).",
                                      TimeValue(NanoSeconds(250)),
                                      MakeTimeAccessor(&RdmaNic::m_completionLatency),
                                      MakeTimeChecker(Time(0)))
                        .AddTraceSource("PacketLatency",
                                        "One-way latency of a full data packet, NIC to NIC (EnableLatencyTracing).",
                                        MakeTraceSourceAccessor(&RdmaNic::m_latencyTrace),
                                        "ns3::RdmaNic::LatencyTracedCallback");
  return tid;
}

/// \brief A port's visit. It lists what the visit will touch, for FabricScheduler to prefetch:
/// the NIC, its port, and the queue pair whose turn it is.
class RdmaNic::ServeEvent : public PrefetchingEvent
{
public:
  ServeEvent(RdmaNic* nic, uint16_t port) : m_nic(nic), m_port(port)
  {
    // FabricScheduler prefetches sizeof(PrefetchingEvent) bytes of a pending event: ours too.
    static_assert(sizeof(ServeEvent) == sizeof(PrefetchingEvent), "ServeEvent outgrows its prefetched lines");
  }

  void Notify() override
  {
    m_nic->m_ports[m_port].pending = false;
    m_nic->Serve(m_port);
  }

  RdmaNic* m_nic;
  uint16_t m_port;
};

RdmaNic::RdmaNic() = default;

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
  for (auto& ps : m_ports)
  {
    if (ps.event)
    {
      ps.event->Cancel();
    }
  }
  m_ports.clear();
  m_byQpn.clear();
  m_qpList.clear();
  m_host = nullptr;
  m_net = nullptr;
  m_routing = nullptr;
  Object::DoDispose();
}

void
RdmaNic::SetNetwork(const FabricNetwork* net)
{
  m_net = net;
  m_routing = net ? &net->Routing() : nullptr;
}

uint32_t
RdmaNic::NodeOfGpu(uint32_t gpu) const
{
  return m_net ? m_net->GetHost(gpu)->GetId() : kNoNode;
}

void
RdmaNic::Attach(Ptr<FabricHost> host)
{
  m_host = host;
  m_nodeId = host->GetId();
  m_ports.resize(host->NumPorts());
  m_planes.clear();
  for (uint16_t p = 0; p < host->NumPorts(); ++p)
  {
    const int plane = host->PlaneOfPort(p);
    NS_ABORT_MSG_IF(plane < 0, "RdmaNic: NIC port " << p << " of GPU " << host->GetGpuIndex() << " is not wired to a switch");
    m_planes.push_back(plane);
    if (FabricPort* port = host->PortAt(p)) // null: left out of this process (FabricNetwork)
    {
      port->SetEgressLatency(m_txLatency);
      port->SetIngressLatency(m_rxLatency);
    }
  }
  host->SetFrameSink(this); // frames and link states (LinkStateChanged)
}

void
RdmaNic::AddQueuePair(Ptr<RdmaQueuePair> qp, uint32_t qpn, uint32_t remoteGpu, uint32_t remoteQpn)
{
  NS_LOG_FUNCTION(this << qp << qpn << remoteGpu << remoteQpn);
  NS_ABORT_MSG_IF(FindQp(qpn), "RdmaNic: QP number " << qpn << " already used on GPU " << GetGpu());
  NS_ABORT_MSG_IF(m_qpList.size() >= UINT32_MAX, "RdmaNic: more than 2^32 - 1 QPs on GPU " << GetGpu());
  qp->Bind(this, qpn, remoteGpu, remoteQpn);
  const auto place = static_cast<uint32_t>(m_qpList.size());
  GrowByEighth(m_qpList);
  m_qpList.push_back(qp);
  auto at = LowerBoundQpn(m_byQpn, qpn);
  const auto offset = at - m_byQpn.begin();
  GrowByEighth(m_byQpn);
  m_byQpn.insert(m_byQpn.begin() + offset, { qpn, place });
  for (uint16_t p = 0; p < m_ports.size(); ++p)
  {
    if (qp->WantsPort(p))
    {
      GrowByEighth(m_ports[p].qps);
      m_ports[p].qps.push_back(place);
      m_ports[p].qpHotLines |= qp->HotLineMask();
    }
  }
}

uint32_t
RdmaNic::PlaceOf(const RdmaQueuePair* qp) const
{
  const uint32_t qpn = qp->GetQpn();
  auto at = LowerBoundQpn(m_byQpn, qpn);
  NS_ABORT_MSG_IF(at == m_byQpn.end() || at->first != qpn || PeekPointer(m_qpList[at->second]) != qp,
                  "RdmaNic: QP " << qpn << " is not on GPU " << GetGpu());
  return at->second;
}

uint32_t
RdmaNic::TakeQpn()
{
  while (FindQp(m_nextQpn))
    ++m_nextQpn;
  return m_nextQpn++;
}

Ptr<RdmaQueuePair>
RdmaNic::GetQueuePair(uint32_t qpn) const
{
  return FindQp(qpn);
}

Ptr<RdmaNic>
RdmaNic::OfNode(uint32_t nodeId)
{
  return nodeId < NodeList::GetNNodes() ? NodeList::GetNode(nodeId)->GetObject<RdmaNic>() : nullptr;
}

RdmaQueuePair*
RdmaNic::FindQp(uint32_t qpn) const
{
  auto at = LowerBoundQpn(m_byQpn, qpn);
  return at != m_byQpn.end() && at->first == qpn ? PeekPointer(m_qpList[at->second]) : nullptr;
}

void
RdmaNic::JoinTail(RdmaQueuePair* qp)
{
  const uint32_t place = PlaceOf(qp);
  for (PortState& ps : m_ports)
  {
    auto it = std::find(ps.qps.begin(), ps.qps.end(), place);
    if (it == ps.qps.end() || ps.qps.size() < 2)
    {
      continue;
    }
    // The tail of the cycle that starts at `next` is the place just before it.
    size_t at = static_cast<size_t>(it - ps.qps.begin());
    ps.next %= ps.qps.size();
    if (at < ps.next)
    {
      --ps.next; // the QPs after `at` move down one place
    }
    ps.qps.erase(it);
    ps.qps.insert(ps.qps.begin() + ps.next, place);
    ps.next = (ps.next + 1) % ps.qps.size();
  }
}

void
RdmaNic::NotifyReady(uint16_t port)
{
  // A busy port already has its visit at the end of the current frame.
  FabricPort* wire = m_host->PortAt(port);
  wire->CatchUp();
  Schedule(port, std::max(Simulator::Now(), wire->GetBusyUntil()));
}

void
RdmaNic::Schedule(uint16_t port, Time at)
{
  PortState& ps = m_ports[port];
  if (ps.pending)
  {
    if (ps.due <= at)
    {
      return; // an earlier visit will look again
    }
    ps.event->Cancel();
    ps.event = nullptr;
  }
  if (!ps.event)
  {
    ps.event = Create<ServeEvent>(this, port);
  }
  ServeEvent& event = *ps.event;
  const auto* wire = reinterpret_cast<const char*>(m_host->PortAt(port));
  const Ptr<RdmaQueuePair>* slot = ps.qps.empty() ? nullptr : &m_qpList[ps.qps[ps.next % ps.qps.size()]];
  const RdmaQueuePair* qp = slot ? PeekPointer(*slot) : nullptr;
  using E = PrefetchingEvent;
  event.SetPrefetch({ E::Lines(this),
                      E::Lines(&ps),
                      E::Lines(ps.qps.data() + ps.next % std::max<size_t>(ps.qps.size(), 1)),
                      E::Lines(slot),
                      E::Lines(wire, 0b111),
                      E::Lines(qp, ps.qpHotLines) });
  ps.pending = true;
  ps.due = at;
  // The simulator releases one reference after the event runs; ours keeps the event alive.
  event.Ref();
  FabricScheduler::ExpectPrefetching(&event);
  // With the host's context (not the caller's, which is none at set-up): a parallel run places
  // events by context.
  Simulator::ScheduleWithContext(m_nodeId, at - Simulator::Now(), &event);
}

void
RdmaNic::Serve(uint16_t port)
{
  FabricPort* wire = m_host->PortAt(port);
  if (!wire->IsLinkUp())
  {
    return; // LinkStateChanged wakes the port when it comes back
  }
  const Time now = Simulator::Now();
  wire->CatchUp(); // the wire as of now (frames due have started)
  Time busy = wire->GetBusyUntil();
  if (busy > now)
  {
    Schedule(port, busy);
    return;
  }
  // Data still queued in the port means its class is paused (PFC): look again one frame later.
  if (wire->QueueBytes(1) > 0)
  {
    Schedule(port, now + wire->TxTime(m_mtu));
    return;
  }
  PortState& ps = m_ports[port];
  Time earliest = Time::Max();
  const size_t n = ps.qps.size();
  for (size_t i = 0; i < n; ++i)
  {
    RdmaQueuePair* qp = PeekPointer(m_qpList[ps.qps[(ps.next + i) % n]]);
    Time retry = Time::Max();
    FramePtr frame = qp->NextPacket(port, &retry);
    if (frame)
    {
      ps.next = (ps.next + i + 1) % n;
      if (m_latency)
      {
        SetSendTime(frame, now.GetTimeStep());
      }
      m_host->Send(std::move(frame), port);
      Schedule(port, wire->GetBusyUntil());
      return;
    }
    earliest = std::min(earliest, retry);
  }
  if (earliest != Time::Max())
  {
    Schedule(port, std::max(earliest, now));
  }
}

void
RdmaNic::SendControl(FramePtr frame, uint16_t port)
{
  m_host->Send(std::move(frame), port);
}

void
RdmaNic::ReceiveFrame(FramePtr frame, uint16_t port)
{
  ++m_rxPackets;
  const FabricFrame& f = *frame;
  // Full data packets only: more than 64 bytes after the BTH (a trimmed one has fewer).
  if (m_latency && f.timed && f.ipPayloadLength > RoceUdpHeader::kSize + RoceBthHeader::kSize + 64)
  {
    m_latencyTrace(Simulator::Now() - TimeStep(static_cast<uint64_t>(f.SendTime())));
  }
  RdmaQueuePair* qp = FindQp(f.destQp);
  if (!qp)
  {
    ++m_unknownQp;
    return;
  }
  qp->Receive(RdmaRxInfo{ f, port });
}

void
RdmaNic::LinkStateChanged(uint16_t port, bool up)
{
  NS_LOG_FUNCTION(this << port << up);
  for (const auto& [qpn, place] : m_byQpn) // by QP number
  {
    m_qpList[place]->PortStateChanged(port, up);
  }
  if (up)
  {
    NotifyReady(port);
  }
}

} // namespace ns3
