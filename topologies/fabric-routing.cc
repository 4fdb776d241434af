#include "topologies/fabric-routing.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace mrcsim
{

FabricRouting::FabricRouting(const Fabric& fabric, bool groups)
  : m_fabric(fabric)
  , m_groups(groups)
  , m_numPlanes(fabric.NumPlanes())
  , m_linkUp(fabric.NumLinks(), 1)
  , m_ordinal(fabric.NumVertices(), 0)
  , m_attach(fabric.NumGpus() * static_cast<size_t>(fabric.NumPlanes()))
  , m_planes(fabric.NumPlanes())
{
  for (int p = 0; p < m_numPlanes; ++p)
  {
    Plane& pl = m_planes[p];
    for (int t = 0; t < fabric.NumTiers(); ++t)
    {
      for (VertexId v : fabric.Switches(p, t))
      {
        m_ordinal[v] = static_cast<uint32_t>(pl.switches.size());
        pl.switches.push_back(v);
        if (t == 0)
        {
          pl.leaves.push_back(m_ordinal[v]);
        }
      }
    }
  }
  for (uint32_t g = 0; g < fabric.NumGpus(); ++g)
  {
    VertexId gpu = fabric.Gpu(g);
    for (uint16_t port = 0; port < fabric.Degree(gpu); ++port)
    {
      PortPeer peer = fabric.Peer(gpu, port);
      const FabricNode& leaf = fabric.Node(peer.node);
      Attachment& a = m_attach[size_t(g) * m_numPlanes + leaf.plane];
      a.leaf = peer.node;
      a.leafIndex = leaf.index;
      a.leafPort = peer.port;
      a.gpuPort = port;
      a.link = peer.link;
      a.valid = true;
    }
  }
  Update();
}

void
FabricRouting::SetLinkUp(uint32_t link, bool up)
{
  if (link >= m_linkUp.size())
  {
    throw std::out_of_range("no link " + std::to_string(link));
  }
  if (m_linkUp[link] == (up ? 1 : 0))
  {
    return;
  }
  m_linkUp[link] = up ? 1 : 0;
  NewVersion();
  // A GPU link changes only an attachment; a switch link changes the plane's tables.
  auto [a, b] = m_fabric.Ends(link);
  if (m_fabric.Node(a).role == NodeRole::Switch && m_fabric.Node(b).role == NodeRole::Switch)
  {
    m_planes[m_fabric.Link(link).plane].dirty = true;
  }
}

void
FabricRouting::Update()
{
  std::vector<int> dirty;
  for (int p = 0; p < m_numPlanes; ++p)
  {
    if (m_planes[p].dirty)
    {
      dirty.push_back(p);
    }
  }
  if (!dirty.empty())
  {
    NewVersion();
  }
  // Planes are independent: build them on all cores. Each plane's result depends only on the
  // fabric and link state, so the thread count never changes the tables.
  unsigned workers = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()), dirty.size());
  std::atomic<size_t> next{ 0 };
  auto work = [&]()
  {
    for (size_t i = next++; i < dirty.size(); i = next++)
    {
      BuildPlane(dirty[i]);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers; ++w)
  {
    threads.emplace_back(work);
  }
  work();
  for (auto& t : threads)
  {
    t.join();
  }
}

uint32_t
FabricRouting::Intern(Plane& pl, std::vector<uint16_t>& ports, std::vector<std::vector<uint32_t>>& index)
{
  std::sort(ports.begin(), ports.end());
  uint64_t h = 1469598103934665603ull;
  for (uint16_t x : ports)
  {
    h = (h ^ x) * 1099511628211ull;
  }
  auto& bucket = index[h & (index.size() - 1)];
  for (uint32_t gid : bucket)
  {
    uint32_t b = pl.groupStart[gid];
    uint32_t e = pl.groupStart[gid + 1];
    if (e - b == ports.size() && std::equal(ports.begin(), ports.end(), pl.groupPorts.begin() + b))
    {
      return gid;
    }
  }
  uint32_t gid = static_cast<uint32_t>(pl.groupStart.size() - 1);
  pl.groupPorts.insert(pl.groupPorts.end(), ports.begin(), ports.end());
  pl.groupStart.push_back(static_cast<uint32_t>(pl.groupPorts.size()));
  bucket.push_back(gid);
  return gid;
}

void
FabricRouting::BuildPlane(int p)
{
  Plane& pl = m_planes[p];
  const size_t S = pl.switches.size();
  const size_t L = pl.leaves.size();

  // CSR of live switch-to-switch links.
  pl.arcStart.assign(S + 1, 0);
  pl.arcs.clear();
  for (size_t s = 0; s < S; ++s)
  {
    VertexId v = pl.switches[s];
    for (uint16_t port = 0; port < m_fabric.Degree(v); ++port)
    {
      PortPeer peer = m_fabric.Peer(v, port);
      if (m_fabric.Node(peer.node).role == NodeRole::Switch && m_linkUp[peer.link])
      {
        pl.arcs.push_back(Arc{ m_ordinal[peer.node], port, peer.port });
      }
    }
    pl.arcStart[s + 1] = static_cast<uint32_t>(pl.arcs.size());
  }

  // Twin classes: leaves with the same set of switch neighbours are equally far from every
  // other switch, so one BFS serves the class; a member's row differs only at itself (0) and
  // at the representative (2, via any shared neighbour).
  std::map<std::vector<uint32_t>, uint32_t> classOf;
  std::vector<uint32_t> repOf(L);
  for (uint32_t l = 0; l < L; ++l)
  {
    uint32_t s = pl.leaves[l];
    std::vector<uint32_t> key;
    for (uint32_t a = pl.arcStart[s]; a < pl.arcStart[s + 1]; ++a)
    {
      key.push_back(pl.arcs[a].to);
    }
    std::sort(key.begin(), key.end());
    key.erase(std::unique(key.begin(), key.end()), key.end());
    if (key.empty())
    {
      repOf[l] = l; // an isolated leaf is nobody's twin
      continue;
    }
    auto [it, fresh] = classOf.emplace(std::move(key), l);
    repOf[l] = it->second;
  }

  pl.dist.assign(L * S, kInf);
  std::vector<uint32_t> queue(S);
  for (uint32_t l = 0; l < L; ++l)
  {
    uint8_t* row = &pl.dist[size_t(l) * S];
    if (repOf[l] != l)
    {
      const uint8_t* rep = &pl.dist[size_t(repOf[l]) * S];
      std::copy(rep, rep + S, row);
      row[pl.leaves[repOf[l]]] = 2;
      row[pl.leaves[l]] = 0;
      continue;
    }
    size_t head = 0;
    size_t tail = 0;
    row[pl.leaves[l]] = 0;
    queue[tail++] = pl.leaves[l];
    while (head < tail)
    {
      uint32_t s = queue[head++];
      for (uint32_t a = pl.arcStart[s]; a < pl.arcStart[s + 1]; ++a)
      {
        uint32_t t = pl.arcs[a].to;
        // Distances are 8 bits: a switch farther than kInf - 1 hops stays unreachable rather
        // than wrapping to 0 (and being queued again, past the queue's end).
        if (row[t] == kInf && row[s] + 1 < kInf)
        {
          row[t] = static_cast<uint8_t>(row[s] + 1);
          queue[tail++] = t;
        }
      }
    }
  }

  pl.table.clear();
  pl.groupPorts.clear();
  pl.groupStart.assign(1, 0);
  pl.dirty = false;
  if (!m_groups)
  {
    return;
  }

  pl.table.assign(S * L, kNoRoute);
  std::vector<std::vector<uint32_t>> index(size_t(1) << 16);
  std::vector<uint16_t> ports;
  std::vector<std::vector<uint16_t>> toLeaf(S);
  std::vector<uint32_t> touched;
  for (uint32_t l = 0; l < L; ++l)
  {
    const uint8_t* row = DistRow(pl, l);
    const uint32_t self = pl.leaves[l];
    const uint32_t rep = repOf[l];
    if (rep == l)
    {
      for (uint32_t s = 0; s < S; ++s)
      {
        if (s == self)
        {
          pl.table[s * L + l] = kLocal;
          continue;
        }
        if (row[s] == kInf)
        {
          continue;
        }
        ports.clear();
        for (uint32_t a = pl.arcStart[s]; a < pl.arcStart[s + 1]; ++a)
        {
          if (row[pl.arcs[a].to] + 1 == row[s])
          {
            ports.push_back(pl.arcs[a].port);
          }
        }
        pl.table[s * L + l] = Intern(pl, ports, index);
      }
      continue;
    }
    // A twin: the representative's column, except at itself, at the representative (which now
    // reaches it through every switch neighbour) and at its neighbours (one hop: the links to it).
    for (uint32_t s = 0; s < S; ++s)
    {
      pl.table[s * L + l] = pl.table[s * L + rep];
    }
    pl.table[self * L + l] = kLocal;
    const uint32_t repSelf = pl.leaves[rep];
    ports.clear();
    for (uint32_t a = pl.arcStart[repSelf]; a < pl.arcStart[repSelf + 1]; ++a)
    {
      ports.push_back(pl.arcs[a].port);
    }
    pl.table[repSelf * L + l] = Intern(pl, ports, index);
    for (uint32_t a = pl.arcStart[self]; a < pl.arcStart[self + 1]; ++a)
    {
      const Arc& arc = pl.arcs[a];
      if (toLeaf[arc.to].empty())
      {
        touched.push_back(arc.to);
      }
      toLeaf[arc.to].push_back(arc.peerPort);
    }
    for (uint32_t s : touched)
    {
      pl.table[s * L + l] = Intern(pl, toLeaf[s], index);
      toLeaf[s].clear();
    }
    touched.clear();
  }
}

VertexId
FabricRouting::Leaf(int plane, uint32_t i) const
{
  const Plane& pl = m_planes[plane];
  return pl.switches[pl.leaves[i]];
}

int
FabricRouting::Distance(VertexId sw, uint32_t leaf) const
{
  const Plane& pl = m_planes[m_fabric.Node(sw).plane];
  uint8_t d = DistRow(pl, leaf)[m_ordinal[sw]];
  return d == kInf ? -1 : d;
}

PortGroup
FabricRouting::Group(const Plane& pl, uint32_t gid) const
{
  uint32_t b = pl.groupStart[gid];
  return PortGroup{ pl.groupPorts.data() + b, pl.groupStart[gid + 1] - b };
}

PortGroup
FabricRouting::EcmpGroupToLeaf(VertexId sw, uint32_t leaf) const
{
  if (!m_groups)
  {
    throw std::logic_error("FabricRouting built without ECMP groups");
  }
  const Plane& pl = m_planes[m_fabric.Node(sw).plane];
  uint32_t gid = pl.table[size_t(m_ordinal[sw]) * pl.leaves.size() + leaf];
  if (gid == kNoRoute || gid == kLocal)
  {
    return PortGroup{};
  }
  return Group(pl, gid);
}

PortGroup
FabricRouting::EcmpGroup(VertexId sw, uint32_t dstGpu) const
{
  const Attachment& a = Attach(dstGpu, m_fabric.Node(sw).plane);
  if (!a.valid || !m_linkUp[a.link])
  {
    return PortGroup{};
  }
  if (a.leaf == sw)
  {
    return PortGroup{ &a.leafPort, 1 };
  }
  return EcmpGroupToLeaf(sw, a.leafIndex);
}

std::vector<PathHop>
FabricRouting::Path(uint32_t srcGpu, uint32_t dstGpu, int plane, uint64_t choice) const
{
  std::vector<PathHop> path;
  const Attachment& src = Attach(srcGpu, plane);
  if (!src.valid || !m_linkUp[src.link] || srcGpu == dstGpu)
  {
    return path;
  }
  path.reserve(size_t(std::max(1, 2 * m_fabric.NumTiers() - 1))); // up and down: the longest shortest path
  VertexId sw = src.leaf;
  // Shortest paths are loop-free; the bound only guards against corrupt tables.
  for (int hop = 0; hop < 64; ++hop)
  {
    PortGroup g = EcmpGroup(sw, dstGpu);
    if (g.empty())
    {
      return {};
    }
    uint16_t port = g[static_cast<uint32_t>(choice % g.size)];
    choice /= g.size;
    path.push_back(PathHop{ sw, port });
    const VertexId next = m_fabric.PeerNode(sw, port);
    if (m_fabric.Node(next).role == NodeRole::Gpu)
    {
      return path;
    }
    sw = next;
  }
  throw std::logic_error("routing loop from gpu" + std::to_string(srcGpu) + " to gpu" + std::to_string(dstGpu));
}

uint64_t
FabricRouting::PathPeriod(uint32_t srcGpu, uint32_t dstGpu, int plane, uint64_t cap) const
{
  const Attachment& src = Attach(srcGpu, plane);
  if (!src.valid || !m_linkUp[src.link] || srcGpu == dstGpu)
  {
    return 1;
  }
  // As Path walks: a switch's choice is (choice mod group size), the rest goes on divided by it.
  // The period of the walk from `sw` is its group's size times the least common multiple of the
  // periods from the switches its group leads to (1 at the destination's leaf, whose group is the
  // GPU's port). Memoised per switch: the branches of a multi-tier plane meet again.
  std::vector<std::pair<VertexId, uint64_t>> memo;
  auto period = [&](auto& self, VertexId sw, int depth) -> uint64_t
  {
    if (depth >= 64)
    {
      throw std::logic_error("routing loop from gpu" + std::to_string(srcGpu) + " to gpu" + std::to_string(dstGpu));
    }
    for (const auto& [v, p] : memo)
    {
      if (v == sw)
      {
        return p;
      }
    }
    const PortGroup g = EcmpGroup(sw, dstGpu);
    uint64_t below = 1;
    for (uint32_t i = 0; i < g.size && below != 0; ++i)
    {
      const VertexId next = m_fabric.PeerNode(sw, g[i]);
      if (m_fabric.Node(next).role != NodeRole::Gpu)
      {
        const uint64_t p = self(self, next, depth + 1);
        below = p == 0 ? 0 : std::lcm(below, p);
        below = below > cap ? 0 : below;
      }
    }
    const uint64_t p = g.empty() ? 1 : (below == 0 || below * g.size > cap ? 0 : below * g.size);
    memo.emplace_back(sw, p);
    return p;
  };
  return period(period, src.leaf, 0);
}

void
FabricRouting::NewVersion()
{
  static std::atomic<uint64_t> s_versions{ 0 };
  m_version = ++s_versions;
}

std::vector<uint16_t>
FabricRouting::Usids(const std::vector<PathHop>& path, uint32_t dstGpu, int plane) const
{
  std::vector<uint16_t> usids;
  usids.reserve(path.size() + 1);
  for (const PathHop& h : path)
  {
    usids.push_back(PortUsid(h.egressPort));
  }
  usids.push_back(PortUsid(Attach(dstGpu, plane).gpuPort));
  return usids;
}

bool
FabricRouting::Reachable(uint32_t srcGpu, uint32_t dstGpu, int plane) const
{
  const Attachment& s = Attach(srcGpu, plane);
  const Attachment& d = Attach(dstGpu, plane);
  if (!s.valid || !d.valid || !m_linkUp[s.link] || !m_linkUp[d.link])
  {
    return false;
  }
  return Distance(s.leaf, d.leafIndex) >= 0;
}

uint64_t
FabricRouting::CountPaths(uint32_t srcGpu, uint32_t dstGpu, int plane) const
{
  if (!Reachable(srcGpu, dstGpu, plane))
  {
    return 0;
  }
  const Plane& pl = m_planes[plane];
  const Attachment& s = Attach(srcGpu, plane);
  const Attachment& d = Attach(dstGpu, plane);
  const uint8_t* row = DistRow(pl, d.leafIndex);
  const size_t S = pl.switches.size();
  const int far = row[m_ordinal[s.leaf]];
  // Count by increasing distance: paths(x) = sum of paths(y) over live links to y one hop nearer.
  std::vector<std::vector<uint32_t>> byDist(far + 1);
  for (uint32_t x = 0; x < S; ++x)
  {
    if (row[x] <= far)
    {
      byDist[row[x]].push_back(x);
    }
  }
  std::vector<uint64_t> paths(S, 0);
  paths[pl.leaves[d.leafIndex]] = 1;
  for (int k = 1; k <= far; ++k)
  {
    for (uint32_t x : byDist[k])
    {
      uint64_t sum = 0;
      for (uint32_t a = pl.arcStart[x]; a < pl.arcStart[x + 1]; ++a)
      {
        if (row[pl.arcs[a].to] + 1 == k && __builtin_add_overflow(sum, paths[pl.arcs[a].to], &sum))
        {
          sum = UINT64_MAX;
        }
      }
      paths[x] = sum;
    }
  }
  return paths[m_ordinal[s.leaf]];
}

std::string
FabricRouting::CheckPath(const std::vector<PathHop>& path, uint32_t srcGpu, uint32_t dstGpu, int plane) const
{
  if (path.empty())
  {
    return "empty path";
  }
  const Attachment& s = Attach(srcGpu, plane);
  const Attachment& d = Attach(dstGpu, plane);
  if (path.front().node != s.leaf)
  {
    return "path does not start at the source's leaf";
  }
  for (size_t i = 0; i < path.size(); ++i)
  {
    const PathHop& h = path[i];
    if (h.egressPort >= m_fabric.Degree(h.node))
    {
      return "hop " + std::to_string(i) + ": no port " + std::to_string(h.egressPort);
    }
    PortPeer peer = m_fabric.Peer(h.node, h.egressPort);
    if (!m_linkUp[peer.link])
    {
      return "hop " + std::to_string(i) + " uses down link " + std::to_string(peer.link);
    }
    if (m_fabric.Node(h.node).plane != plane)
    {
      return "hop " + std::to_string(i) + " leaves plane " + std::to_string(plane);
    }
    bool last = i + 1 == path.size();
    if (!last && peer.node != path[i + 1].node)
    {
      return "hop " + std::to_string(i) + " does not lead to the next hop";
    }
    if (last && (peer.node != m_fabric.Gpu(dstGpu) || peer.port != d.gpuPort))
    {
      return "path ends at " + m_fabric.VertexName(peer.node) + " port " + std::to_string(peer.port) + ", not gpu" +
             std::to_string(dstGpu) + " port " + std::to_string(d.gpuPort);
    }
  }
  int dist = Distance(s.leaf, d.leafIndex);
  if (static_cast<int>(path.size()) != dist + 1)
  {
    return "path has " + std::to_string(path.size()) + " switches; the shortest has " + std::to_string(dist + 1);
  }
  return "";
}

int
FabricRouting::MaxSwitchHops() const
{
  int best = 0;
  for (const Plane& pl : m_planes)
  {
    for (uint32_t a = 0; a < pl.leaves.size(); ++a)
    {
      const uint8_t* row = DistRow(pl, a);
      for (uint32_t b : pl.leaves)
      {
        if (row[b] != kInf)
        {
          best = std::max(best, row[b] + 1);
        }
      }
    }
  }
  return best;
}

uint32_t
FabricRouting::FarthestLeafFromFirst(int plane) const
{
  const Plane& pl = m_planes[plane];
  uint32_t best = 0;
  int bestDist = -1;
  for (uint32_t l = 0; l < pl.leaves.size(); ++l)
  {
    uint8_t d = DistRow(pl, l)[pl.leaves[0]];
    if (d != kInf && d > bestDist)
    {
      bestDist = d;
      best = l;
    }
  }
  return best;
}

ReachabilityReport
FabricRouting::Reachability() const
{
  ReachabilityReport r;
  const uint64_t n = m_fabric.NumGpus();
  r.pairs = n * (n - 1);
  // GPUs are grouped by their attachment in every plane (leaf, or -1 when detached): pairs of
  // groups are judged once, so the cost grows with groups, not with GPU pairs.
  std::map<std::vector<int64_t>, uint64_t> groups;
  std::vector<int64_t> key(m_numPlanes);
  for (int p = 0; p < m_numPlanes; ++p)
  {
    r.detachedPerPlane.push_back(0);
  }
  for (uint32_t g = 0; g < n; ++g)
  {
    for (int p = 0; p < m_numPlanes; ++p)
    {
      const Attachment& a = Attach(g, p);
      bool live = a.valid && m_linkUp[a.link];
      key[p] = live ? static_cast<int64_t>(a.leafIndex) : -1;
      r.detachedPerPlane[p] += live ? 0 : 1;
    }
    ++groups[key];
  }
  std::vector<std::pair<std::vector<int64_t>, uint64_t>> list(groups.begin(), groups.end());
  r.unreachablePerPlane.assign(m_numPlanes, 0);
  for (size_t i = 0; i < list.size(); ++i)
  {
    for (size_t j = 0; j < list.size(); ++j)
    {
      uint64_t pairs = i == j ? list[i].second * (list[i].second - 1) : list[i].second * list[j].second;
      bool any = false;
      for (int p = 0; p < m_numPlanes; ++p)
      {
        int64_t a = list[i].first[p];
        int64_t b = list[j].first[p];
        bool ok = a >= 0 && b >= 0 && DistRow(m_planes[p], static_cast<uint32_t>(b))[m_planes[p].leaves[a]] != kInf;
        any = any || ok;
        r.unreachablePerPlane[p] += ok ? 0 : pairs;
      }
      r.unreachableInAllPlanes += any ? 0 : pairs;
    }
  }
  return r;
}

std::string
FabricRouting::CheckGroupsAvoidDownLinks() const
{
  for (int p = 0; p < m_numPlanes; ++p)
  {
    const Plane& pl = m_planes[p];
    const size_t L = pl.leaves.size();
    std::vector<uint32_t> gids;
    for (uint32_t s = 0; s < pl.switches.size(); ++s)
    {
      gids.assign(pl.table.begin() + s * L, pl.table.begin() + (s + 1) * L);
      std::sort(gids.begin(), gids.end());
      gids.erase(std::unique(gids.begin(), gids.end()), gids.end());
      for (uint32_t gid : gids)
      {
        if (gid == kLocal || gid == kNoRoute)
        {
          continue;
        }
        PortGroup g = Group(pl, gid);
        for (uint32_t i = 0; i < g.size; ++i)
        {
          const FabricLink& link = m_fabric.LinkAt(pl.switches[s], g[i]);
          if (!m_linkUp[link.id])
          {
            return m_fabric.VertexName(pl.switches[s]) + " port " + std::to_string(g[i]) + " (down link " +
                   std::to_string(link.id) + ") is in an ECMP group";
          }
        }
      }
    }
  }
  return "";
}

size_t
FabricRouting::NumGroups() const
{
  size_t n = 0;
  for (const Plane& pl : m_planes)
  {
    n += pl.groupStart.size() - 1;
  }
  return n;
}

size_t
FabricRouting::MemoryBytes() const
{
  size_t b = m_linkUp.capacity() + m_ordinal.capacity() * 4 + m_attach.capacity() * sizeof(Attachment);
  for (const Plane& pl : m_planes)
  {
    b += pl.switches.capacity() * sizeof(VertexId) + pl.leaves.capacity() * 4 + pl.arcStart.capacity() * 4 +
         pl.arcs.capacity() * sizeof(Arc) + pl.dist.capacity() + pl.table.capacity() * 4 +
         pl.groupPorts.capacity() * 2 + pl.groupStart.capacity() * 4;
  }
  return b;
}

} // namespace mrcsim
