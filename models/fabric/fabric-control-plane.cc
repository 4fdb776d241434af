#include "models/fabric/fabric-control-plane.h"

#include "models/fabric/fabric-switch.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricControlPlane");

NS_OBJECT_ENSURE_REGISTERED(FabricControlPlane);

TypeId
FabricControlPlane::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::FabricControlPlane")
      .SetParent<Object>()
      .AddConstructor<FabricControlPlane>()
      .AddAttribute("DetectionDelay",
                    "From a link state change to the switches at its ends updating their ECMP groups "
                    "(loss of signal or BFD).",
                    TimeValue(MilliSeconds(1)),
                    MakeTimeAccessor(&FabricControlPlane::m_detection),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("ReconvergenceDelay",
                    "From a link state change to every switch using tables recomputed for it (routing "
                    "protocol convergence and ECMP group repair).",
                    TimeValue(Seconds(1)),
                    MakeTimeAccessor(&FabricControlPlane::m_reconvergence),
                    MakeTimeChecker(Time(0)))
      .AddTraceSource("RouteChange",
                      "Routing reacted to a link: (link, up, global). global=false: local detection.",
                      MakeTraceSourceAccessor(&FabricControlPlane::m_routeTrace),
                      "ns3::FabricControlPlane::RouteTracedCallback");
  return tid;
}

FabricControlPlane::FabricControlPlane() = default;

void
FabricControlPlane::DoDispose()
{
  m_routing.reset();
  m_switches.clear();
  Object::DoDispose();
}

void
FabricControlPlane::Initialize(const mrcsim::Fabric& fabric)
{
  m_fabric = &fabric;
  m_routing = std::make_unique<mrcsim::FabricRouting>(fabric, true);
}

void
FabricControlPlane::NotifyLinkState(uint32_t link, bool up)
{
  Simulator::Schedule(m_detection, &FabricControlPlane::Detect, this, link, up);
  Simulator::Schedule(m_reconvergence, &FabricControlPlane::Reconverge, this, link, up);
}

void
FabricControlPlane::Detect(uint32_t link, bool up)
{
  NS_LOG_LOGIC("link " << link << (up ? " up" : " down") << " detected by its switches");
  auto [a, b] = m_fabric->Ends(link);
  const mrcsim::FabricLink& l = m_fabric->Link(link);
  if (m_switches[a])
  {
    m_switches[a]->SetPortRoutable(l.portA, up);
  }
  if (m_switches[b])
  {
    m_switches[b]->SetPortRoutable(l.portB, up);
  }
  m_routeTrace(link, up, false);
}

void
FabricControlPlane::Reconverge(uint32_t link, bool up)
{
  NS_LOG_LOGIC("routing reconverges after link " << link << (up ? " up" : " down"));
  m_routing->SetLinkUp(link, up);
  m_routing->Update();
  m_routeTrace(link, up, true);
}

} // namespace ns3
