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

/// Planes: a GPU's NIC has one port per plane, and the models keep per-port state in 64-bit
/// masks (models/mrc/mrc-queue-pair.h), so a NIC has at most 64 ports: planes 0..63.
constexpr int kMaxPlanes = 64;
/// Switch tiers: a node uSID holds tier + 1 in 4 bits, 0 being the end-of-carrier marker
/// (Fabric::AddSwitch), so tiers 0..14.
constexpr int kMaxTiers = 15;
/// Switches of one (plane, tier): the node uSID holds the index in 12 bits.
constexpr uint32_t kMaxSwitchesPerSlot = 4096;
/// Links in one fabric: 16 times the largest preset's 2.1 million, several GB of graph and
/// routing tables already; beyond it a spec is refused rather than left to exhaust memory.
constexpr uint64_t kMaxLinks = uint64_t(1) << 25;
/// Link rates and delays any input may give (the JSON specs' port_rate_gbps and link_delay_ns
/// bounds, and GraphML's rate_bps and delay_ns): 1 Gb/s to 16 Tb/s, at most 1 s.
constexpr uint64_t kMinLinkRateBps = 1000000000ull;
constexpr uint64_t kMaxLinkRateBps = 16000000000000ull;
constexpr uint32_t kMaxLinkDelayNs = 1000000000u;

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
  /// Throws std::invalid_argument for a plane outside [0, kMaxPlanes), a tier outside
  /// [0, kMaxTiers) or more than kMaxSwitchesPerSlot switches in one (plane, tier).
  VertexId AddSwitch(int plane, int tier);
  /// \brief Adds a link a <-> b; ports are the next free port numbers at each end. Throws
  /// std::invalid_argument for a self-link, a 65536th port or a link beyond kMaxLinks.
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
  /// \brief The vertex at the far end of port p of v: Peer(v, p).node without reading the link,
  /// whose properties the graph keeps in a list node apart from the vertex (a cache miss per
  /// call; path set-up asks millions of times).
  VertexId PeerNode(VertexId v, uint16_t port) const
  {
    return boost::target(*(boost::out_edges(v, m_graph).first + port), m_graph);
  }
  /// \brief The link attached to port p of v.
  const FabricLink& LinkAt(VertexId v, uint16_t port) const;
  /// \brief A link by id.
  const FabricLink& Link(uint32_t id) const { return LinkAt(m_links[id].first, m_links[id].second); }
  /// \brief Endpoints (a, b) of a link.
  std::pair<VertexId, VertexId> Ends(uint32_t id) const;

  /// \brief Human-readable vertex name, e.g. "gpu17", "p3.t1.42".
  std::string VertexName(VertexId v) const;

  /// \brief Checks structural invariants (at least one GPU, port numbering, planes never joined
  /// by a switch link, GPU ports in plane order); throws std::runtime_error naming the first
  /// violation.
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
