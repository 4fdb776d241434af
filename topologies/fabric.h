// The fabric as a graph: GPUs (each a NIC with one port per plane) and switches, joined by
// full-duplex links. It models structure only (who is wired to whom, at what rate and delay);
// routing lives in FabricRouting and the packet-level behaviour in models/.
#ifndef MRCSIM_TOPOLOGIES_FABRIC_H
#define MRCSIM_TOPOLOGIES_FABRIC_H

#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief What a vertex of the fabric is.
enum class NodeRole : uint8_t
{
  Gpu,    ///< a GPU host and its NIC; NIC port p is its p-th link
  Switch, ///< a switch at some tier (0 = leaf / T0)
};

/// \brief Vertex properties. Ports are numbered 0..degree-1 in the order links were added.
struct FabricNode
{
  NodeRole role = NodeRole::Gpu;
  int16_t tier = -1;  ///< switch tier (0 = leaf); -1 for GPUs
  int16_t plane = -1; ///< plane of a switch; -1 for GPUs (a GPU touches every plane)
  uint32_t index = 0; ///< index among the GPUs, or among the switches of (plane, tier)
  uint16_t usid = 0;  ///< SRv6 node uSID of a switch, unique within its plane (0 for GPUs)
};

/// \brief Edge properties: one full-duplex link. Endpoint a is the boost source vertex.
struct FabricLink
{
  uint32_t id = 0;      ///< dense link id, 0..NumLinks()-1, in creation order
  uint64_t rateBps = 0; ///< line rate, bits per second
  uint32_t delayNs = 0; ///< one-way propagation delay, nanoseconds
  uint16_t portA = 0;   ///< port number at endpoint a
  uint16_t portB = 0;   ///< port number at endpoint b
  int16_t plane = -1;   ///< plane this link belongs to
};

/// Out-edges in vectors: links are never erased from the graph (a failed link is marked down in
/// FabricRouting), so out-edge order is insertion order, which is port order.
using FabricGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, FabricNode, FabricLink>;
using VertexId = FabricGraph::vertex_descriptor;
using EdgeId = FabricGraph::edge_descriptor;

/// \brief The far end of a port.
struct PortPeer
{
  VertexId node;
  uint16_t port; ///< port number at the far end
  uint32_t link; ///< link id
};

/// \brief A fabric: the graph plus the indices every consumer needs (ports, GPUs, switches).
class Fabric
{
public:
  explicit Fabric(std::string name = "fabric");

  /// \brief Adds a GPU with no links yet; returns its vertex.
  VertexId AddGpu();
  /// \brief Adds a switch of (plane, tier); its index within (plane, tier) is assigned here.
  VertexId AddSwitch(int plane, int tier);
  /// \brief Adds a link a <-> b; ports are the next free port numbers at each end.
  uint32_t AddLink(VertexId a, VertexId b, uint64_t rateBps, uint32_t delayNs);

  const std::string& Name() const { return m_name; }
  void SetName(std::string name) { m_name = std::move(name); }
  const FabricGraph& Graph() const { return m_graph; }
  const FabricNode& Node(VertexId v) const { return m_graph[v]; }

  size_t NumVertices() const { return boost::num_vertices(m_graph); }
  size_t NumLinks() const { return m_links.size(); }
  size_t NumGpus() const { return m_gpus.size(); }
  size_t NumSwitches() const { return NumVertices() - NumGpus(); }
  int NumPlanes() const { return m_numPlanes; }
  int NumTiers() const { return m_numTiers; }

  VertexId Gpu(size_t i) const { return m_gpus[i]; }
  const std::vector<VertexId>& Gpus() const { return m_gpus; }
  /// \brief Switches of (plane, tier), by index.
  const std::vector<VertexId>& Switches(int plane, int tier) const;

  /// \brief Number of ports (links) of a vertex.
  size_t Degree(VertexId v) const { return boost::out_degree(v, m_graph); }
  /// \brief The far end of port p of v.
  PortPeer Peer(VertexId v, uint16_t port) const;
  /// \brief The link attached to port p of v.
  const FabricLink& LinkAt(VertexId v, uint16_t port) const;
  /// \brief A link by id.
  const FabricLink& Link(uint32_t id) const { return LinkAt(m_links[id].first, m_links[id].second); }
  /// \brief Endpoints (a, b) of a link.
  std::pair<VertexId, VertexId> Ends(uint32_t id) const;

  /// \brief Human-readable vertex name, e.g. "gpu17", "p3.t1.42".
  std::string VertexName(VertexId v) const;

  /// \brief Checks structural invariants (port numbering, planes never joined by a switch link,
  /// GPU ports in plane order); throws std::runtime_error naming the first violation.
  void Validate() const;

private:
  void NoteSwitchSlot(int plane, int tier);

  std::string m_name;
  FabricGraph m_graph;
  /// By link id: endpoint a and its port. Edge descriptors would point into one graph object's
  /// storage and dangle once the fabric is copied; (vertex, port) stays valid.
  std::vector<std::pair<VertexId, uint16_t>> m_links;
  std::vector<VertexId> m_gpus;                               ///< by GPU index
  std::vector<std::vector<std::vector<VertexId>>> m_switches; ///< [plane][tier][index]
  int m_numPlanes = 0;
  int m_numTiers = 0;
};

} // namespace mrcsim

#endif
