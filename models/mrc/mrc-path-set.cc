#include "models/mrc/mrc-path-set.h"

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

namespace
{

/// The sets of the latest routing version seen, by (source T0, destination T0) vertex.
struct Registry
{
  std::mutex mutex;
  uint64_t version = 0;
  std::unordered_map<uint64_t, std::shared_ptr<const MrcPathSet>> sets;
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
  out.tail = { mrcsim::FabricRouting::PortUsid(dst.leafPort), mrcsim::FabricRouting::PortUsid(dst.gpuPort) };
  const uint64_t period = routing.PathPeriod(srcGpu, dstGpu, plane, kMaxShared);
  if (period == 0)
  {
    out.set = std::make_shared<const MrcPathSet>(routing, srcGpu, dstGpu, plane, offset, count);
    return out;
  }
  out.base = static_cast<uint32_t>(offset % period);
  Registry& r = TheRegistry();
  const uint64_t key = (uint64_t(src.leaf) << 32) | dst.leaf;
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.version != routing.Version())
  {
    r.sets.clear(); // the QPs that took them keep theirs
    r.version = routing.Version();
  }
  auto& set = r.sets[key];
  if (!set)
  {
    set = std::make_shared<const MrcPathSet>(routing, srcGpu, dstGpu, plane, 0, static_cast<uint32_t>(period));
  }
  out.set = set;
  return out;
}

std::size_t
MrcPathSets::Kept()
{
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.sets.size();
}

} // namespace ns3
