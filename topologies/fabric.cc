#include "topologies/fabric.h"

#include <limits>
#include <stdexcept>

namespace mrcsim
{

Fabric::Fabric(std::string name) : m_name(std::move(name)) {}

VertexId
Fabric::AddGpu()
{
  FabricNode n;
  n.role = NodeRole::Gpu;
  n.index = static_cast<uint32_t>(m_gpus.size());
  VertexId v = boost::add_vertex(n, m_graph);
  m_gpus.push_back(v);
  return v;
}

void
Fabric::NoteSwitchSlot(int plane, int tier)
{
  // Checked before anything changes: the plane indexes NIC port bit masks and per-plane tables,
  // and FabricNode keeps it in 16 bits.
  if (plane < 0 || plane >= kMaxPlanes || tier < 0 || tier >= kMaxTiers)
  {
    throw std::invalid_argument("switch plane " + std::to_string(plane) + ", tier " + std::to_string(tier) +
                                ": expected a plane in [0, " + std::to_string(kMaxPlanes - 1) + "] and a tier in [0, " +
                                std::to_string(kMaxTiers - 1) + "]");
  }
  if (static_cast<int>(m_switches.size()) <= plane)
  {
    m_switches.resize(plane + 1);
  }
  if (static_cast<int>(m_switches[plane].size()) <= tier)
  {
    m_switches[plane].resize(tier + 1);
  }
  m_numPlanes = std::max(m_numPlanes, plane + 1);
  m_numTiers = std::max(m_numTiers, tier + 1);
}

VertexId
Fabric::AddSwitch(int plane, int tier)
{
  NoteSwitchSlot(plane, tier);
  auto& slot = m_switches[plane][tier];
  FabricNode n;
  n.role = NodeRole::Switch;
  n.plane = static_cast<int16_t>(plane);
  n.tier = static_cast<int16_t>(tier);
  n.index = static_cast<uint32_t>(slot.size());
  // Node uSIDs are unique within a plane: 12 bits of index under a 4-bit tier field, tier + 1
  // so that 0 stays free as the end-of-carrier marker (NoteSwitchSlot bounds the tier).
  if (n.index >= kMaxSwitchesPerSlot)
  {
    throw std::invalid_argument("too many switches in plane " + std::to_string(plane) + ", tier " +
                                std::to_string(tier) + " for 16-bit uSIDs (at most " +
                                std::to_string(kMaxSwitchesPerSlot) + ")");
  }
  n.usid = static_cast<uint16_t>(((tier + 1) << 12) | n.index);
  VertexId v = boost::add_vertex(n, m_graph);
  slot.push_back(v);
  return v;
}

uint32_t
Fabric::AddLink(VertexId a, VertexId b, uint64_t rateBps, uint32_t delayNs)
{
  if (a == b)
  {
    throw std::invalid_argument("a link cannot join a vertex to itself: " + VertexName(a));
  }
  size_t pa = Degree(a);
  size_t pb = Degree(b);
  if (pa >= std::numeric_limits<uint16_t>::max() || pb >= std::numeric_limits<uint16_t>::max())
  {
    throw std::invalid_argument("more than 65535 ports on one vertex");
  }
  if (m_links.size() >= kMaxLinks)
  {
    throw std::invalid_argument("more than " + std::to_string(kMaxLinks) + " links in one fabric");
  }
  FabricLink l;
  l.id = static_cast<uint32_t>(m_links.size());
  l.rateBps = rateBps;
  l.delayNs = delayNs;
  l.portA = static_cast<uint16_t>(pa);
  l.portB = static_cast<uint16_t>(pb);
  const FabricNode& na = m_graph[a];
  const FabricNode& nb = m_graph[b];
  l.plane = na.role == NodeRole::Switch ? na.plane : nb.plane;
  boost::add_edge(a, b, l, m_graph);
  m_links.emplace_back(a, l.portA);
  return l.id;
}

const std::vector<VertexId>&
Fabric::Switches(int plane, int tier) const
{
  static const std::vector<VertexId> none;
  if (plane < 0 || plane >= static_cast<int>(m_switches.size()) || tier < 0 ||
      tier >= static_cast<int>(m_switches[plane].size()))
  {
    return none;
  }
  return m_switches[plane][tier];
}

PortPeer
Fabric::Peer(VertexId v, uint16_t port) const
{
  auto it = boost::out_edges(v, m_graph).first + port;
  VertexId w = boost::target(*it, m_graph);
  const FabricLink& l = m_graph[*it];
  // Self-links are refused, so v is endpoint a exactly when it is the recorded a.
  bool vIsA = m_links[l.id].first == v;
  return PortPeer{ w, vIsA ? l.portB : l.portA, l.id };
}

const FabricLink&
Fabric::LinkAt(VertexId v, uint16_t port) const
{
  auto it = boost::out_edges(v, m_graph).first + port;
  return m_graph[*it];
}

std::pair<VertexId, VertexId>
Fabric::Ends(uint32_t id) const
{
  auto [a, port] = m_links[id];
  return { a, Peer(a, port).node };
}

std::string
Fabric::VertexName(VertexId v) const
{
  const FabricNode& n = m_graph[v];
  if (n.role == NodeRole::Gpu)
  {
    return "gpu" + std::to_string(n.index);
  }
  return "p" + std::to_string(n.plane) + ".t" + std::to_string(n.tier) + "." + std::to_string(n.index);
}

void
Fabric::Validate() const
{
  for (uint32_t id = 0; id < m_links.size(); ++id)
  {
    auto [a, b] = Ends(id);
    const FabricLink& l = Link(id);
    if (Peer(a, l.portA).node != b || Peer(b, l.portB).node != a)
    {
      throw std::runtime_error("link " + std::to_string(id) + ": port numbering does not match the graph");
    }
    const FabricNode& na = m_graph[a];
    const FabricNode& nb = m_graph[b];
    if (na.role == NodeRole::Gpu && nb.role == NodeRole::Gpu)
    {
      throw std::runtime_error("link " + std::to_string(id) + " joins two GPUs (" + VertexName(a) + ", " +
                               VertexName(b) + ")");
    }
    if (na.role == NodeRole::Switch && nb.role == NodeRole::Switch && na.plane != nb.plane)
    {
      throw std::runtime_error("link " + std::to_string(id) + " joins plane " + std::to_string(na.plane) +
                               " to plane " + std::to_string(nb.plane) + " (" + VertexName(a) + ", " + VertexName(b) +
                               "); planes never forward into each other");
    }
  }
  // Every consumer (figures, workloads, the models) starts from GPU 0.
  if (m_gpus.empty())
  {
    throw std::runtime_error("the fabric has no GPU; expected at least one");
  }
  // The planes the GPUs are wired into: the NIC and both transports address a port of every GPU
  // in each of them (an MRC QP sprays over all, a RoCEv2 QP is dealt one by index, the same at
  // both ends), so a GPU missing one would be sent to through a port it lacks. A plane no GPU
  // uses (no switches there, or a numbering with gaps) is no such plane.
  // Planes as bits (at most kMaxPlanes = 64).
  uint64_t used = 0;
  std::vector<uint64_t> planesOf;
  planesOf.reserve(m_gpus.size());
  for (VertexId g : m_gpus)
  {
    if (Degree(g) == 0)
    {
      throw std::runtime_error(VertexName(g) + " has no link");
    }
    uint64_t seen = 0;
    for (uint16_t p = 0; p < Degree(g); ++p)
    {
      const FabricNode& sw = m_graph[Peer(g, p).node];
      if (sw.role != NodeRole::Switch || sw.tier != 0)
      {
        throw std::runtime_error(VertexName(g) + " port " + std::to_string(p) + " is not wired to a tier-0 switch");
      }
      const uint64_t bit = uint64_t(1) << sw.plane;
      if (seen & bit)
      {
        throw std::runtime_error(VertexName(g) + " has two ports in plane " + std::to_string(sw.plane) +
                                 "; a NIC has one port per plane");
      }
      seen |= bit;
    }
    used |= seen;
    planesOf.push_back(seen);
  }
  for (size_t i = 0; i < m_gpus.size(); ++i)
  {
    for (int plane = 0; plane < m_numPlanes; ++plane)
    {
      const uint64_t bit = uint64_t(1) << plane;
      if ((used & bit) && !(planesOf[i] & bit))
      {
        throw std::runtime_error(VertexName(m_gpus[i]) + " has no port in plane " + std::to_string(plane) +
                                 ", where other GPUs have theirs; a NIC has one port in every plane");
      }
    }
  }
}

} // namespace mrcsim
