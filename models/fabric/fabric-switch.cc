#include "models/fabric/fabric-switch.h"

#include "models/engine/attribute-default.h"
#include "models/engine/fabric-scheduler.h"
#include "models/wire/fabric-address.h"
#include "models/fabric/fabric-control-plane.h"
#include "models/wire/ipv6-usid-header.h"
#include "models/wire/roce-udp-header.h"
#include "models/engine/splitmix.h"

#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");

NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

TypeId
FabricSwitch::GetTypeId()
{
  static TypeId tid = TypeId("ns3::FabricSwitch")
                        .SetParent<Node>()
                        .AddConstructor<FabricSwitch>()
                        .AddAttribute("ForwardingLatency",
                                      "From a frame's arrival to its enqueue at the egress port.",
                                      TimeValue(NanoSeconds(300)),
                                      MakeTimeAccessor(&FabricSwitch::m_latency),
                                      MakeTimeChecker(Time(0)))
                        .AddTraceSource("Drop",
                                        "A packet dropped by forwarding, with the cause.",
                                        MakeTraceSourceAccessor(&FabricSwitch::m_dropTrace),
                                        "ns3::FabricSwitch::DropTracedCallback");
  return tid;
}

FabricSwitch::FabricSwitch() = default;

void
FabricSwitch::DoDispose()
{
  for (const auto& port : m_ports)
  {
    if (port)
      port->SetPfcAccountant(nullptr);
  }
  m_pfc.Clear();
  m_ports.clear();
  m_controlPlane = nullptr;
  Node::DoDispose();
}

void
FabricSwitch::SetFabricPosition(mrcsim::VertexId vertex, int plane, Ptr<FabricControlPlane> controlPlane)
{
  m_vertex = vertex;
  m_plane = plane;
  m_locator = mrcsim::FabricRouting::Locator(plane);
  m_controlPlane = controlPlane;
  // ECMP hashes differ per switch (no polarisation) and per run seed, and repeat exactly for a seed.
  m_hashSeed = SplitMixSeed(RngSeedManager::GetSeed(), RngSeedManager::GetRun(), vertex);
}

void
FabricSwitch::AddPort(Ptr<FabricPort> port)
{
  port->SetNode(this);
  port->SetIfIndex(static_cast<uint32_t>(m_ports.size()));
  port->SetHandler(this);
  port->SetIngressLatency(m_latency);
  m_ports.push_back(port);
  m_routable.push_back(true);
  m_pfc.AddPort(PeekPointer(port));
  port->SetPfcAccountant(&m_pfc);
}

void
FabricSwitch::AddAbsentPort()
{
  m_ports.push_back(nullptr);
  m_routable.push_back(true);
  m_pfc.AddPort(nullptr);
}

void
FabricSwitch::Drop(const FabricFrame& frame, DropCause cause)
{
  NS_LOG_LOGIC("switch " << GetId() << " drops a frame to QP " << frame.destQp << ": " << DropCauseName(cause));
  ++m_drops[static_cast<size_t>(cause)];
  if (!m_dropTrace.IsEmpty())
  {
    m_dropTrace(ToPacket(frame), cause);
  }
}

namespace
{

inline uint64_t
Mix(uint64_t h, uint64_t v)
{
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

inline uint64_t
Word(const Ipv6UsidHeader::AddressBytes& a, int i)
{
  uint64_t w = 0;
  for (int k = 0; k < 8; ++k)
  {
    w = (w << 8) | a[i * 8 + k];
  }
  return w;
}

} // namespace

Time
FabricSwitch::DefaultForwardingLatency()
{
  return AttributeDefault<TimeValue>(GetTypeId(), "ForwardingLatency");
}

std::array<uintptr_t, 2>
FabricSwitch::ForwardLines(const FabricFrame& frame) const
{
  using E = PrefetchingEvent;
  if (const FabricPort* egress = UsidEgress(frame))
  {
    return { E::Lines(egress, 0b1111), 0 };
  }
  if (!m_controlPlane || !IsGpuAddress(frame.dst))
  {
    return { 0, 0 };
  }
  const mrcsim::FabricRouting& routing = m_controlPlane->Routing();
  const uint32_t gpu = GpuOfAddress(frame.dst);
  return { 0, gpu < routing.GetFabric().NumGpus() ? E::Lines(&routing.Attach(gpu, m_plane)) : 0 };
}

int
FabricSwitch::EcmpEgress(const FabricFrame& frame)
{
  const auto& dst = frame.dst;
  if (!IsGpuAddress(dst))
  {
    return -1;
  }
  mrcsim::PortGroup group = m_controlPlane->EcmpGroup(m_vertex, GpuOfAddress(dst));
  const uint16_t* ports = group.ports;
  uint32_t n = group.size;
  // Ports whose link failure this switch has detected leave the group before the tables repair.
  for (uint32_t i = 0; i < n; ++i)
  {
    if (!m_routable[ports[i]])
    {
      m_scratch.clear();
      for (uint32_t j = 0; j < n; ++j)
      {
        if (m_routable[ports[j]])
        {
          m_scratch.push_back(ports[j]);
        }
      }
      ports = m_scratch.data();
      n = static_cast<uint32_t>(m_scratch.size());
      break;
    }
  }
  return PickEcmpPort(frame, ports, n);
}

int
FabricSwitch::TableEgress(const FabricFrame& frame) const
{
  if (!IsGpuAddress(frame.dst))
  {
    return -1;
  }
  const mrcsim::PortGroup group = m_controlPlane->EcmpGroup(m_vertex, GpuOfAddress(frame.dst));
  return PickEcmpPort(frame, group.ports, group.size);
}

int
FabricSwitch::PickEcmpPort(const FabricFrame& frame, const uint16_t* ports, uint32_t n) const
{
  if (n == 0)
  {
    return -1;
  }
  if (n == 1)
  {
    return ports[0];
  }
  const auto& dst = frame.dst;
  const auto src = GpuAddress(frame.srcGpu, frame.srcPlane);
  uint64_t h = m_hashSeed;
  h = Mix(h, Word(src, 0));
  h = Mix(h, Word(src, 1));
  h = Mix(h, Word(dst, 0));
  h = Mix(h, Word(dst, 1));
  h = Mix(h, frame.flowLabel);
  // Frames are always UDP (see FabricFrame): source port and RoCEv2's destination port.
  h = Mix(h, (uint64_t(frame.srcPort) << 16) | RoceUdpHeader::kRoceV2Port);
  // Murmur3's finaliser, then the high bits pick the port (multiply-shift: no modulo bias).
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return ports[static_cast<uint32_t>((static_cast<unsigned __int128>(h) * n) >> 64)];
}

void
FabricSwitch::HandleFrame(FabricPort& in, FramePtr frame)
{
  FabricFrame& f = *frame;
  if (f.hopLimit <= 1)
  {
    Drop(f, DropCause::HopLimit);
    return;
  }
  --f.hopLimit;

  FabricPort* egress;
  if (IsUsidAddress(f.dst))
  {
    egress = UsidEgress(f);
    if (!egress)
    {
      Drop(f, DropCause::BadUsid);
      return;
    }
    f.ShiftUsid();
  }
  else
  {
    const int port = EcmpEgress(f);
    if (port < 0)
    {
      Drop(f, DropCause::NoRoute);
      return;
    }
    egress = PeekPointer(m_ports[port]);
  }
  FabricPort& out = *egress;
  if (!out.IsLinkUp())
  {
    Drop(f, DropCause::NextHopDown);
    return;
  }
  ++m_forwarded;
  const uint8_t cls = out.QueueConfig()->ClassOfDscp(f.Dscp());
  out.Enqueue(std::move(frame), cls, &in);
}

} // namespace ns3
