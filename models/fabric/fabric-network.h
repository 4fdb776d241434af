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
  /// \brief Builds every node and link, and the ports of the links that touch a vertex this
  /// process runs: `runs[v]` for vertex v, every vertex when `runs` is empty. A process that runs
  /// only part of the fabric (an MPI rank: VertexPartitions, RanksVertices) leaves out the ports
  /// of links between other processes' vertices, which it would only hold as idle copies, and
  /// holds such a link as a placeholder channel without devices instead of a FabricChannel. Every
  /// node and every channel is made in every process, in the same order, so node and channel ids
  /// are the same in all. The three queue policies are created from the attribute defaults
  /// (Config::SetDefault) and may be changed afterwards through their getters.
  explicit FabricNetwork(std::shared_ptr<const mrcsim::Fabric> fabric, std::vector<bool> runs = {});
  ~FabricNetwork();
  FabricNetwork(const FabricNetwork&) = delete;
  FabricNetwork& operator=(const FabricNetwork&) = delete;

  const mrcsim::Fabric& GetFabric() const { return *m_fabric; }
  Ptr<FabricControlPlane> GetControlPlane() const { return m_controlPlane; }
  const mrcsim::FabricRouting& Routing() const { return m_controlPlane->Routing(); }

  Ptr<FabricSwitch> GetSwitch(mrcsim::VertexId v) const { return m_switches[v]; }
  Ptr<FabricHost> GetHost(uint32_t gpu) const { return m_hosts[gpu]; }
  /// \brief Port `port` of vertex `v` (switch or GPU), numbered as in the fabric graph; null
  /// when this process left it out (its link touches no vertex it runs: see the constructor).
  Ptr<FabricPort> GetPort(mrcsim::VertexId v, uint16_t port) const;
  /// \brief Whether link `link`'s ports were built here (see the constructor).
  bool HasPorts(uint32_t link) const { return m_channels[link] != nullptr; }
  /// \brief The links whose ports were built here: every link unless the constructor was told
  /// which vertices this process runs.
  uint32_t LinksBuilt() const { return m_linksBuilt; }
  /// \brief Link `link`'s channel; null when its ports were not built here (HasPorts).
  Ptr<FabricChannel> GetChannel(uint32_t link) const { return m_channels[link]; }

  /// \brief Policy of switch ports facing switches.
  Ptr<PortQueueConfig> GetFabricPortConfig() const { return m_fabricConfig; }
  /// \brief Policy of switch ports facing GPUs (the last hop: MRC turns ECN off here).
  Ptr<PortQueueConfig> GetLastHopPortConfig() const { return m_lastHopConfig; }
  /// \brief Policy of NIC ports.
  Ptr<PortQueueConfig> GetNicPortConfig() const { return m_nicConfig; }

  /// \brief Whether link `link` is up (whether or not its ports were built here).
  bool IsLinkUp(uint32_t link) const { return m_channels[link] ? m_channels[link]->IsUp() : !m_absentDown[link]; }
  /// \brief Brings a link up or down now; the control plane schedules the routing reaction.
  void SetLinkUp(uint32_t link, bool up);
  /// \brief Schedules SetLinkUp at absolute simulated time `at`.
  void ScheduleLinkUp(Time at, uint32_t link, bool up);

  /// \brief The partition of every vertex when `fabric` is split into `n`: switches of each
  /// (plane, tier) are split by index into n equal runs; a GPU goes with the switch on its first
  /// port.
  static std::vector<uint32_t> VertexPartitions(const mrcsim::Fabric& fabric, uint32_t n);
  /// \brief Whether rank `rank` of `ranks` runs each vertex when `fabric` is split into
  /// `partitions` (FabricParallelSimulatorImpl::RankOfPartition): the constructor's `runs`.
  static std::vector<bool> RanksVertices(const mrcsim::Fabric& fabric, uint32_t partitions, uint32_t rank, uint32_t ranks);

  /// \brief Splits the fabric into `n` partitions of FabricParallelSimulatorImpl (which must be
  /// the simulator implementation when n > 1), before anything is scheduled (VertexPartitions).
  /// Links between partitions hand frames over at window ends (FabricChannel::SetHandover)
  /// and the shortest of their delays is the lookahead: of those whose ports were built here, so
  /// a process that left some out must take the minimum over the processes (every link between
  /// partitions touches a vertex that some process runs). Returns the number of such links.
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
  std::vector<Ptr<FabricChannel>> m_channels; ///< by link id; null when its ports were not built here
  std::vector<bool> m_absentDown;             ///< by link id: a link not built here is down
  std::vector<uint64_t> m_portAndLinkDrops;   ///< by cause
  uint32_t m_linksBuilt = 0;
};

} // namespace ns3

#endif
