// Routing over a fabric, computed once and shared by every switch and NIC: per plane, switch-hop
// distances from every switch to every leaf, ECMP next-hop groups per (switch, destination leaf),
// SRv6 uSID paths, path counts and reachability, and their repair after link failures.
// Memory grows with switches x leaves per plane, never with GPU pairs. Leaves whose switch
// neighbours are identical ("twins", e.g. all T0s of a two-tier plane) share one BFS.
#ifndef MRCSIM_TOPOLOGIES_FABRIC_ROUTING_H
#define MRCSIM_TOPOLOGIES_FABRIC_ROUTING_H

#include "topologies/fabric.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief One switch on a path and the port it sends the packet out of.
struct PathHop
{
  VertexId node;
  uint16_t egressPort;
};

/// \brief A contiguous list of egress ports (an ECMP group).
struct PortGroup
{
  const uint16_t* ports = nullptr;
  uint32_t size = 0;
  uint16_t operator[](uint32_t i) const { return ports[i]; }
  bool empty() const { return size == 0; }
};

/// \brief Where a GPU's NIC port of one plane attaches.
struct Attachment
{
  VertexId leaf;
  uint32_t leafIndex; ///< index of the leaf among the plane's tier-0 switches
  uint16_t leafPort;  ///< port at the leaf facing the GPU
  uint16_t gpuPort;   ///< NIC port
  uint32_t link;
  bool valid = false; ///< the GPU has a port in this plane
};

/// \brief Reachability between GPU pairs (ordered pairs, a != b).
struct ReachabilityReport
{
  std::vector<uint64_t> unreachablePerPlane; ///< pairs with no path in that plane
  std::vector<uint64_t> detachedPerPlane;    ///< GPUs whose link into that plane is down
  uint64_t unreachableInAllPlanes = 0;       ///< pairs with no path in any plane
  uint64_t pairs = 0;                        ///< N (N - 1)
};

/// \brief Routing tables of a fabric. The fabric must outlive it.
class FabricRouting
{
public:
  /// SRv6 locator of a plane: fc00::/16 block, the plane in the low 16 bits.
  static uint32_t Locator(int plane) { return 0xfc000000u | static_cast<uint32_t>(plane & 0xffff); }
  /// uSID that tells a switch to send out of `port` (0 marks the end of the carrier).
  static uint16_t PortUsid(uint16_t port) { return static_cast<uint16_t>(port + 1); }
  static uint16_t UsidPort(uint16_t usid) { return static_cast<uint16_t>(usid - 1); }

  /// \param groups build ECMP groups (needed for forwarding and paths; figures need only
  /// distances)
  explicit FabricRouting(const Fabric& fabric, bool groups = true);

  const Fabric& GetFabric() const { return m_fabric; }
  bool HasGroups() const { return m_groups; }

  // ---- link state ----------------------------------------------------------------------------
  bool IsLinkUp(uint32_t link) const { return m_linkUp[link] != 0; }
  /// \brief Marks a link up or down; tables change at the next Update().
  void SetLinkUp(uint32_t link, bool up);
  /// \brief Recomputes the planes whose links changed since the last update.
  void Update();

  // ---- lookups -------------------------------------------------------------------------------
  int NumLeaves(int plane) const { return static_cast<int>(m_planes[plane].leaves.size()); }
  /// \brief Leaf `i` of a plane (tier-0 switch).
  VertexId Leaf(int plane, uint32_t i) const;
  /// \brief Where GPU `gpu` attaches in `plane`.
  const Attachment& Attach(uint32_t gpu, int plane) const { return m_attach[gpu * m_numPlanes + plane]; }
  /// \brief Switch hops from switch `sw` down to leaf `leaf` of its plane; -1 if unreachable or
  /// farther than 254 hops (distances are 8 bits; such paths count as unreachable everywhere).
  int Distance(VertexId sw, uint32_t leaf) const;
  /// \brief ECMP egress ports at switch `sw` toward GPU `dstGpu` (sw's plane); empty if no route.
  PortGroup EcmpGroup(VertexId sw, uint32_t dstGpu) const;
  /// \brief ECMP egress ports at switch `sw` toward leaf `leaf`; empty at the leaf itself.
  PortGroup EcmpGroupToLeaf(VertexId sw, uint32_t leaf) const;

  // ---- paths ---------------------------------------------------------------------------------
  /// \brief The path src -> dst in `plane`: at each switch, port (choice mod group size) of its
  /// group, choice divided by the group size (a mixed-radix path index; for a two-tier plane,
  /// choice selects the T0 up-port, hence the T1). Empty if unreachable.
  std::vector<PathHop> Path(uint32_t srcGpu, uint32_t dstGpu, int plane, uint64_t choice) const;
  /// \brief uSIDs of a path: one egress-port uSID per switch hop, then the destination NIC port.
  std::vector<uint16_t> Usids(const std::vector<PathHop>& path, uint32_t dstGpu, int plane) const;
  /// \brief A period of Path(srcGpu, dstGpu, plane, choice) in `choice`: the path of any choice
  /// is that of choice modulo it (at each switch, the group's size times the least common multiple
  /// of the periods below it). 1 when unreachable; 0 when it exceeds `cap`.
  uint64_t PathPeriod(uint32_t srcGpu, uint32_t dstGpu, int plane, uint64_t cap) const;
  /// \brief A number that no other table state of any FabricRouting of the process has had: it
  /// changes whenever a link's state or the tables change (SetLinkUp, Update). What is derived
  /// from the paths may be kept under it.
  uint64_t Version() const { return m_version; }
  /// \brief Number of distinct shortest paths src -> dst in `plane` (0 if unreachable).
  uint64_t CountPaths(uint32_t srcGpu, uint32_t dstGpu, int plane) const;
  bool Reachable(uint32_t srcGpu, uint32_t dstGpu, int plane) const;
  /// \brief Checks that a path is a walk over live links from src's NIC to dst's NIC of length
  /// (distance + 1); returns "" or what is wrong.
  std::string CheckPath(const std::vector<PathHop>& path, uint32_t srcGpu, uint32_t dstGpu, int plane) const;

  // ---- figures and checks --------------------------------------------------------------------
  /// \brief Longest GPU-to-GPU shortest path in switches, over all planes and leaf pairs.
  int MaxSwitchHops() const;
  /// \brief The leaf farthest from leaf 0 of plane 0 (for path-count figures).
  uint32_t FarthestLeafFromFirst(int plane) const;
  ReachabilityReport Reachability() const;
  /// \brief Every ECMP group in use contains only live links; "" or the first violation.
  std::string CheckGroupsAvoidDownLinks() const;
  /// \brief Number of distinct ECMP groups (port lists) across planes.
  size_t NumGroups() const;
  /// \brief Bytes held by the tables (distances, groups, CSR).
  size_t MemoryBytes() const;

private:
  static constexpr uint8_t kInf = 0xff;
  static constexpr uint32_t kNoRoute = 0xffffffffu;
  static constexpr uint32_t kLocal = 0xfffffffeu;

  struct Arc
  {
    uint32_t to;       ///< switch ordinal in the plane
    uint16_t port;     ///< port at this switch
    uint16_t peerPort; ///< port at the far switch
  };

  struct Plane
  {
    std::vector<VertexId> switches; ///< by ordinal
    std::vector<uint32_t> leaves;   ///< leaf index -> switch ordinal
    std::vector<uint32_t> arcStart; ///< CSR over live switch-to-switch links
    std::vector<Arc> arcs;
    std::vector<uint8_t> dist;        ///< [leaf][ordinal], switch hops; kInf unreachable
    std::vector<uint32_t> table;      ///< [ordinal][leaf] -> group id, kLocal, kNoRoute
    std::vector<uint16_t> groupPorts; ///< pool of port lists
    std::vector<uint32_t> groupStart; ///< group id -> [start, next start) in the pool
    bool dirty = true;
  };

  void BuildPlane(int p);
  uint32_t Intern(Plane& pl, std::vector<uint16_t>& ports, std::vector<std::vector<uint32_t>>& index);
  PortGroup Group(const Plane& pl, uint32_t gid) const;
  const uint8_t* DistRow(const Plane& pl, uint32_t leaf) const { return &pl.dist[size_t(leaf) * pl.switches.size()]; }

  /// \brief A new Version() (process-wide counter).
  void NewVersion();

  const Fabric& m_fabric;
  uint64_t m_version = 0;
  bool m_groups;
  int m_numPlanes;
  std::vector<uint8_t> m_linkUp;
  std::vector<uint32_t> m_ordinal;  ///< vertex -> ordinal within its plane (switches)
  std::vector<Attachment> m_attach; ///< [gpu][plane]
  std::vector<Plane> m_planes;
};

} // namespace mrcsim

#endif
