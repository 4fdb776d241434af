#include "models/mrc/mrc-path-set.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>

namespace ns3
{

MrcPathSet::MrcPathSet(const mrcsim::FabricRouting& routing,
                       uint32_t srcGpu,
                       uint32_t dstGpu,
                       int plane,
                       uint64_t first,
                       uint32_t count)
  : m_size(count)
{
  // The paths' uSIDs before the destination's two, by index.
  std::vector<UsidList> paths(count);
  m_counts.assign(count, 0);
  for (uint32_t i = 0; i < count; ++i)
  {
    const auto path = routing.Path(srcGpu, dstGpu, plane, first + i);
    if (!path.empty())
    {
      const UsidList whole = routing.Usids(path, dstGpu, plane); // aborts if it does not fit
      paths[i] = UsidList(whole.begin(), whole.end() - 2);
      m_counts[i] = static_cast<uint8_t>(paths[i].size() + 1);
    }
  }
  // Positions where the paths differ are kept per path; a position a path does not reach
  // counts as uSID 0.
  auto usidAt = [](const UsidList& p, uint32_t k) -> uint16_t { return k < p.size() ? p[k] : 0; };
  for (uint32_t k = 0; k < UsidList::kCapacity && count > 0; ++k)
  {
    m_common[k] = usidAt(paths[0], k);
    for (const auto& p : paths)
    {
      if (usidAt(p, k) != m_common[k])
      {
        m_varMask |= uint8_t(1u << k);
        break;
      }
    }
  }
  m_varCount = static_cast<uint8_t>(__builtin_popcount(m_varMask));
  m_var.reserve(std::size_t(count) * m_varCount);
  for (const auto& p : paths)
  {
    for (uint32_t k = 0; k < UsidList::kCapacity; ++k)
    {
      if (m_varMask >> k & 1)
        m_var.push_back(usidAt(p, k));
    }
  }
}

std::shared_ptr<const MrcPathSet>
MrcPathSet::ByHops(const mrcsim::FabricRouting& routing, uint32_t srcGpu, uint32_t dstGpu, int plane)
{
  // As FabricRouting::Path walks, for all indices at once: the switches the walks reach at each
  // hop (the frontier), which must share one group toward the destination.
  const mrcsim::Attachment& src = routing.Attach(srcGpu, plane);
  const mrcsim::Attachment& dst = routing.Attach(dstGpu, plane);
  const mrcsim::Fabric& fabric = routing.GetFabric();
  auto set = std::shared_ptr<MrcPathSet>(new MrcPathSet());
  set->m_byHops = true;
  set->m_hopsHavePath = true;
  std::vector<mrcsim::VertexId> frontier{ src.leaf };
  uint64_t size = 1;
  while (frontier.front() != dst.leaf)
  {
    if (set->m_radix.size() + 2 >= UsidList::kCapacity)
    {
      return nullptr; // too long for a UsidList (or a loop): made as rows, it aborts as before
    }
    const mrcsim::PortGroup g = routing.EcmpGroup(frontier.front(), dstGpu);
    std::vector<mrcsim::VertexId> next;
    for (mrcsim::VertexId sw : frontier)
    {
      const mrcsim::PortGroup h = routing.EcmpGroup(sw, dstGpu);
      if (h.size != g.size || !std::equal(h.ports, h.ports + h.size, g.ports))
      {
        return nullptr;
      }
      for (uint32_t i = 0; i < g.size; ++i)
      {
        next.push_back(fabric.PeerNode(sw, g[i]));
      }
    }
    if (g.empty())
    {
      // No index has a path (Path is empty for all).
      set->m_hopsHavePath = false;
      set->m_radix.clear();
      set->m_hopUsids.clear();
      size = 1;
      break;
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    if (next.size() > 1 && std::find(next.begin(), next.end(), dst.leaf) != next.end())
    {
      return nullptr; // some walks arrive sooner than others
    }
    for (uint32_t i = 0; i < g.size; ++i)
    {
      set->m_hopUsids.push_back(mrcsim::FabricRouting::PortUsid(g[i]));
    }
    set->m_radix.push_back(g.size);
    size *= g.size;
    if (size > kMaxSize)
    {
      return nullptr;
    }
    frontier.swap(next);
  }
  set->m_size = static_cast<uint32_t>(size);
  return set;
}

namespace
{

/// The sets of the latest routing version seen, by (source T0, destination T0) vertex, and the
/// blocks of a QP's ports' sets made of them (MrcPathSets::Share), by their sets.
struct Registry
{
  std::mutex mutex;
  uint64_t version = 0;
  std::unordered_map<uint64_t, std::shared_ptr<const MrcPathSet>> sets;
  std::map<std::vector<const MrcPathSet*>, SharedValue<MrcPortSets>> blocks;

  /// Forgets the sets and blocks of an older routing version (the QPs that took them keep theirs).
  void Follow(uint64_t now)
  {
    if (version != now)
    {
      sets.clear();
      blocks.clear();
      version = now;
    }
  }
};

Registry&
TheRegistry()
{
  static Registry r;
  return r;
}

} // namespace

MrcPortPaths
MrcPathSets::Get(const mrcsim::FabricRouting& routing,
                 uint32_t srcGpu,
                 uint32_t dstGpu,
                 int plane,
                 uint64_t offset,
                 uint32_t count)
{
  MrcPortPaths out;
  const mrcsim::Attachment& src = routing.Attach(srcGpu, plane);
  const mrcsim::Attachment& dst = routing.Attach(dstGpu, plane);
  // Where FabricRouting::Path is empty whatever the index: no EV of the port has a path.
  if (!src.valid || !dst.valid || !routing.IsLinkUp(src.link) || !routing.IsLinkUp(dst.link) || srcGpu == dstGpu)
  {
    return out;
  }
  out.place.tail = { mrcsim::FabricRouting::PortUsid(dst.leafPort), mrcsim::FabricRouting::PortUsid(dst.gpuPort) };
  Registry& r = TheRegistry();
  const uint64_t key = (uint64_t(src.leaf) << 32) | dst.leaf;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.Follow(routing.Version());
    auto& set = r.sets[key];
    if (!set)
    {
      set = MrcPathSet::ByHops(routing, srcGpu, dstGpu, plane);
    }
    if (!set)
    {
      const uint64_t period = routing.PathPeriod(srcGpu, dstGpu, plane, kMaxShared);
      if (period != 0)
      {
        set = std::make_shared<const MrcPathSet>(routing, srcGpu, dstGpu, plane, 0, static_cast<uint32_t>(period));
      }
    }
    if (set)
    {
      out.set = set;
      out.place.base = static_cast<uint32_t>(offset % set->Size());
      out.shared = true;
      return out;
    }
    r.sets.erase(key);
  }
  out.set = std::make_shared<const MrcPathSet>(routing, srcGpu, dstGpu, plane, offset, count);
  return out;
}

void
MrcPortPlaces::Assign(const std::vector<MrcPortPaths>& ports)
{
  Release();
  bool one = true;
  const MrcPortPlace* first = nullptr;
  for (std::size_t p = 0; p < ports.size() && one; ++p)
  {
    if (!ports[p].set)
    {
      continue;
    }
    const MrcPortPlace& place = ports[p].place;
    if (!first)
    {
      first = &place;
    }
    one = place.base == first->base && place.tail[0] == first->tail[0] &&
          place.tail[1] == mrcsim::FabricRouting::PortUsid(static_cast<uint16_t>(p));
  }
  if (one)
  {
    m_word = kInline;
    if (first)
    {
      m_word |= (uint64_t(first->base) << 32) | (uint64_t(first->tail[0]) << 16);
    }
    return;
  }
  auto* places = new MrcPortPlace[ports.size()];
  for (std::size_t p = 0; p < ports.size(); ++p)
  {
    places[p] = ports[p].place;
  }
  m_word = reinterpret_cast<uint64_t>(places);
}

void
MrcPortPlaces::Release()
{
  if (m_word && !(m_word & kInline))
  {
    delete[] reinterpret_cast<MrcPortPlace*>(m_word);
  }
  m_word = 0;
}

SharedValue<MrcPortSets>
MrcPathSets::Share(const mrcsim::FabricRouting& routing, const std::vector<MrcPortPaths>& ports)
{
  MrcPortSets sets;
  std::vector<const MrcPathSet*> key;
  bool own = false;
  for (const MrcPortPaths& p : ports)
  {
    sets.push_back(p.set);
    key.push_back(p.set.get());
    own = own || (p.set && !p.shared);
  }
  if (own)
  {
    return SharedValue<MrcPortSets>::Make(std::move(sets)); // never another QP's
  }
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.Follow(routing.Version());
  SharedValue<MrcPortSets>& block = r.blocks[key];
  if (!block)
  {
    block = SharedValue<MrcPortSets>::Make(std::move(sets));
  }
  return block;
}

std::size_t
MrcPathSets::Kept()
{
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.sets.size();
}

} // namespace ns3
