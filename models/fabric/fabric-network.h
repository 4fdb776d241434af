// Instantiates a fabric graph (topologies/) as ns-3 objects: a FabricSwitch per switch, a
// FabricHost per GPU, two FabricPorts and a FabricChannel per link, the shared routing control
// plane, and the port queue policies (fabric ports, last-hop ports facing GPUs, NIC ports).
#ifndef MRCSIM_MODELS_FABRIC_NETWORK_H
#define MRCSIM_MODELS_FABRIC_NETWORK_H

#include "models/fabric/fabric-channel.h"
#include "models/fabric/fabric-control-plane.h"
#include "models/fabric/fabric-host.h"
#include "models/fabric/fabric-port.h"
#include "models/fabric/fabric-switch.h"
#include "models/fabric/port-queue-config.h"

#include "topologies/fabric.h"

#include <memory>
#include <vector>

namespace ns3
{

/// \brief The ns-3 objects of one fabric, and the operations on them that scenarios use.
class FabricNetwork
{
public:
  /// \brief Builds every node, port and link. The three queue policies are created from the
  /// attribute defaults (Config::SetDefault) and may be changed afterwards through their getters.
  explicit FabricNetwork(std::shared_ptr<const mrcsim::Fabric> fabric);
  ~FabricNetwork();
  FabricNetwork(const FabricNetwork&) = delete;
  FabricNetwork& operator=(const FabricNetwork&) = delete;

  const mrcsim::Fabric& GetFabric() const { return *m_fabric; }
  Ptr<FabricControlPlane> GetControlPlane() const { return m_controlPlane; }
  const mrcsim::FabricRouting& Routing() const { return m_controlPlane->Routing(); }

  Ptr<FabricSwitch> GetSwitch(mrcsim::VertexId v) const { return m_switches[v]; }
  Ptr<FabricHost> GetHost(uint32_t gpu) const { return m_hosts[gpu]; }
  /// \brief Port `port` of vertex `v` (switch or GPU), numbered as in the fabric graph.
  Ptr<FabricPort> GetPort(mrcsim::VertexId v, uint16_t port) const;
  Ptr<FabricChannel> GetChannel(uint32_t link) const { return m_channels[link]; }

  /// \brief Policy of switch ports facing switches.
  Ptr<PortQueueConfig> GetFabricPortConfig() const { return m_fabricConfig; }
  /// \brief Policy of switch ports facing GPUs (the last hop: MRC turns ECN off here).
  Ptr<PortQueueConfig> GetLastHopPortConfig() const { return m_lastHopConfig; }
  /// \brief Policy of NIC ports.
  Ptr<PortQueueConfig> GetNicPortConfig() const { return m_nicConfig; }

  /// \brief Brings a link up or down now; the control plane schedules the routing reaction.
  void SetLinkUp(uint32_t link, bool up);
  /// \brief Schedules SetLinkUp at absolute simulated time `at`.
  void ScheduleLinkUp(Time at, uint32_t link, bool up);

  /// \brief Splits the fabric into `n` partitions of FabricParallelSimulatorImpl (which must be
  /// the simulator implementation when n > 1), before anything is scheduled. Switches of each
  /// (plane, tier) are split by index into n equal runs; a GPU goes with the switch on its first
  /// port. Links between partitions hand frames over at window ends (FabricChannel::SetHandover)
  /// and the shortest of their delays is the lookahead. Returns the number of such links.
  uint32_t Partition(uint32_t n);

  /// \brief Drops by cause summed over switches, ports and links (since the start).
  uint64_t CountDrops(DropCause cause) const;

private:
  std::shared_ptr<const mrcsim::Fabric> m_fabric;
  Ptr<FabricControlPlane> m_controlPlane;
  Ptr<PortQueueConfig> m_fabricConfig;
  Ptr<PortQueueConfig> m_lastHopConfig;
  Ptr<PortQueueConfig> m_nicConfig;
  std::vector<Ptr<FabricSwitch>> m_switches;  ///< by vertex (null for GPUs)
  std::vector<Ptr<FabricHost>> m_hosts;       ///< by GPU index
  std::vector<Ptr<FabricChannel>> m_channels; ///< by link id
  std::vector<uint64_t> m_portAndLinkDrops;   ///< by cause
};

} // namespace ns3

#endif
