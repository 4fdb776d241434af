// The routing protocol as the fabric experiences it, without modelling its messages: after a
// link changes state, the switches at its ends update their own ECMP groups once a detection
// delay has passed, and every switch moves to tables recomputed without (or with) the link once a
// reconvergence delay has passed. Users sweep both (microseconds for a fast local reaction, seconds
// for BGP). SRv6 forwarding never consults it: its tables are static.
#ifndef MRCSIM_MODELS_FABRIC_CONTROL_PLANE_H
#define MRCSIM_MODELS_FABRIC_CONTROL_PLANE_H

#include "topologies/fabric-routing.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <memory>

namespace ns3
{

class FabricSwitch;

/// \brief Shared routing tables plus the timing of their repair after link state changes.
class FabricControlPlane : public Object
{
public:
  static TypeId GetTypeId();
  FabricControlPlane();

  /// \brief Takes the fabric (which must outlive this object) and builds its tables.
  void Initialize(const mrcsim::Fabric& fabric);
  /// \brief Switches by fabric vertex (null for GPUs), so detection can reach a link's ends.
  void SetSwitches(std::vector<FabricSwitch*> byVertex) { m_switches = std::move(byVertex); }

  const mrcsim::FabricRouting& Routing() const { return *m_routing; }
  /// \brief ECMP ports at switch `sw` toward GPU `gpu`, as of the last reconvergence.
  mrcsim::PortGroup EcmpGroup(mrcsim::VertexId sw, uint32_t gpu) const { return m_routing->EcmpGroup(sw, gpu); }

  /// \brief A link changed state now: schedules local detection and global reconvergence.
  void NotifyLinkState(uint32_t link, bool up);

  Time GetDetectionDelay() const { return m_detection; }
  Time GetReconvergenceDelay() const { return m_reconvergence; }

  typedef void (*RouteTracedCallback)(uint32_t link, bool up, bool global);

protected:
  void DoDispose() override;

private:
  void Detect(uint32_t link, bool up);
  void Reconverge(uint32_t link, bool up);

  const mrcsim::Fabric* m_fabric = nullptr;
  std::unique_ptr<mrcsim::FabricRouting> m_routing;
  std::vector<FabricSwitch*> m_switches;
  Time m_detection;
  Time m_reconvergence;
  TracedCallback<uint32_t, bool, bool> m_routeTrace;
};

} // namespace ns3

#endif
