#include "models/fabric/fabric-host.h"

#include "ns3/log.h"

#include "models/wire/ipv6-usid-header.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHost");

NS_OBJECT_ENSURE_REGISTERED(FabricHost);

TypeId
FabricHost::GetTypeId()
{
  static TypeId tid = TypeId("ns3::FabricHost")
                        .SetParent<Node>()
                        .AddConstructor<FabricHost>()
                        .AddTraceSource("Rx",
                                        "An IPv6 packet arrived on a NIC port.",
                                        MakeTraceSourceAccessor(&FabricHost::m_rxTrace),
                                        "ns3::FabricHost::RxTracedCallback");
  return tid;
}

FabricHost::FabricHost() = default;

void
FabricHost::DoDispose()
{
  m_ports.clear();
  m_sink = nullptr;
  m_receive = MakeNullCallback<void, Ptr<Packet>, uint16_t>();
  m_linkState = MakeNullCallback<void, uint16_t, bool>();
  Node::DoDispose();
}

void
FabricHost::AddPort(Ptr<FabricPort> port)
{
  port->SetNode(this);
  port->SetIfIndex(static_cast<uint32_t>(m_ports.size()));
  port->SetHandler(this);
  m_ports.push_back(port);
}

void
FabricHost::AddAbsentPort(int plane)
{
  m_absentPlanes.emplace_back(static_cast<uint16_t>(m_ports.size()), plane);
  m_ports.push_back(nullptr);
}

int
FabricHost::PlaneOfPort(uint16_t i) const
{
  if (const FabricPort* port = PeekPointer(m_ports.at(i)))
  {
    const FabricPort* peer = port->GetPeer();
    const FabricPacketHandler* node = peer ? peer->GetHandler() : nullptr;
    return node ? node->GetFabricPlane() : -1;
  }
  for (const auto& [p, plane] : m_absentPlanes)
  {
    if (p == i)
      return plane;
  }
  return -1;
}

bool
FabricHost::Send(FramePtr frame, uint16_t port)
{
  FabricPort& p = *m_ports[port];
  const uint8_t cls = p.QueueConfig()->ClassOfDscp(frame->Dscp());
  return p.Enqueue(std::move(frame), cls, nullptr);
}

bool
FabricHost::Send(Ptr<Packet> packet, uint16_t port)
{
  return Send(FromPacket(packet, FabricPort::kIpv6), port);
}

FabricPacketHandler::ArrivalLines
FabricHost::GetArrivalLines() const
{
  const std::array<const void*, 2> sink = m_sink ? m_sink->GetArrivalLines() : std::array<const void*, 2>{};
  return { this, sink[0], sink[1] };
}

void
FabricHost::HandleFrame(FabricPort& in, FramePtr frame)
{
  uint16_t port = static_cast<uint16_t>(in.GetIfIndex());
  if (!m_rxTrace.IsEmpty())
  {
    m_rxTrace(ToPacket(*frame), port);
  }
  if (m_sink)
  {
    m_sink->ReceiveFrame(std::move(frame), port);
  }
  else if (!m_receive.IsNull())
  {
    m_receive(ToPacket(*frame), port);
  }
}

void
FabricHost::HandleLinkState(FabricPort& port, bool up)
{
  if (m_sink)
  {
    m_sink->LinkStateChanged(static_cast<uint16_t>(port.GetIfIndex()), up);
  }
  if (!m_linkState.IsNull())
  {
    m_linkState(static_cast<uint16_t>(port.GetIfIndex()), up);
  }
}

} // namespace ns3
