// The SRv6 paths of MRC EVs between two T0s (leaves) of one plane, shared by every queue pair
// whose GPUs hang off them. A path's uSIDs up to the destination T0 depend only on the source T0,
// the destination T0, the plane and the path index (FabricRouting::Path: a mixed-radix choice at
// each switch), and they repeat with the index's period (FabricRouting::PathPeriod: for a two-tier
// plane, the T0's up-ports); the last two (the destination T0's port to the GPU, the GPU's NIC
// port) are the destination GPU's. A set holds one period of the first part, by column (the
// positions where all its paths agree kept once: the paths of a two-tier plane differ only in
// their T1, 2 bytes each); a queue pair keeps, per NIC port, the set, where its EVs start in it
// (its path offset modulo the period) and the destination's two uSIDs (MrcPortPaths). Sets are
// made on first use and kept by the routing's Version(), source T0 and destination T0 (one
// registry for the process, thread-safe: QPs are set up in their partitions' threads); QPs hold
// them by shared_ptr, so the paths a QP took before a link changed stay with it, as they did when
// each QP copied its own. When the period exceeds kMaxShared, a QP gets a set of its own paths
// (not shared).
#ifndef MRCSIM_MODELS_MRC_PATH_SET_H
#define MRCSIM_MODELS_MRC_PATH_SET_H

#include "models/wire/usid-list.h"

#include "topologies/fabric-routing.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

/// \brief The uSIDs before the destination's of the paths srcGpu -> dstGpu in one plane for
/// `Size()` consecutive path indices (see the file comment); immutable once made.
class MrcPathSet
{
public:
  /// \brief The paths of indices first, first + 1, ..., first + count - 1.
  MrcPathSet(const mrcsim::FabricRouting& routing,
             uint32_t srcGpu,
             uint32_t dstGpu,
             int plane,
             uint64_t first,
             uint32_t count);

  uint32_t Size() const { return static_cast<uint32_t>(m_counts.size()); }
  /// \brief Whether path `i` exists (else the EV taking it is denied).
  bool HasPath(uint32_t i) const { return m_counts[i] != 0; }
  /// \brief Writes the uSIDs of path `i` before the destination's two into `out` (at most
  /// UsidList::kCapacity - 2); returns how many.
  uint32_t Write(uint32_t i, uint16_t* out) const
  {
    const uint32_t count = m_counts[i] - 1u;
    const uint16_t* var = m_var.data() + std::size_t(i) * m_varCount;
    for (uint32_t k = 0; k < count; ++k)
    {
      out[k] = (m_varMask >> k & 1) ? *var++ : m_common[k];
    }
    return count;
  }
  /// \brief Positions (of UsidList::kCapacity) where the paths differ.
  uint32_t VaryingPositions() const { return m_varCount; }
  /// \brief Bytes held, the object included.
  std::size_t MemoryBytes() const { return sizeof(*this) + m_counts.capacity() + 2 * m_var.capacity(); }

private:
  std::vector<uint8_t> m_counts; ///< per path: its uSIDs before the destination's plus one; 0: no path
  std::vector<uint16_t> m_var;   ///< the uSIDs at the varying positions, path by path
  std::array<uint16_t, UsidList::kCapacity> m_common{}; ///< the uSIDs all paths share, by position
  uint8_t m_varMask = 0;  ///< positions kept per path
  uint8_t m_varCount = 0; ///< popcount of m_varMask
};

/// \brief Where the EVs of one NIC port of a queue pair find their paths: EV k of the port takes
/// path (base + k) mod the set's size, then the destination's two uSIDs.
struct MrcPortPaths
{
  std::shared_ptr<const MrcPathSet> set; ///< null: no EV of the port has a path
  uint32_t base = 0;
  std::array<uint16_t, 2> tail{}; ///< the destination T0's port to the GPU, the GPU's NIC port

  /// \brief The path of the port's EV `k`, or -1 if it has none.
  int64_t PathOf(uint32_t k) const
  {
    if (!set)
    {
      return -1;
    }
    uint32_t i = base + k;
    if (i >= set->Size())
    {
      i %= set->Size();
    }
    return set->HasPath(i) ? int64_t(i) : -1;
  }
  /// \brief The uSIDs of the port's EV `k` (empty if it has no path).
  UsidList Usids(uint32_t k) const
  {
    const int64_t i = PathOf(k);
    if (i < 0)
    {
      return UsidList();
    }
    uint16_t usids[UsidList::kCapacity];
    const uint32_t n = set->Write(static_cast<uint32_t>(i), usids);
    usids[n] = tail[0];
    usids[n + 1] = tail[1];
    return UsidList(usids, usids + n + 2);
  }
};

/// \brief The process's shared path sets (see the file comment).
class MrcPathSets
{
public:
  /// \brief Largest period shared; beyond it a QP keeps its own paths.
  static constexpr uint64_t kMaxShared = 4096;
  /// \brief The paths of a QP srcGpu -> dstGpu whose EV k on a NIC port of `plane` takes path
  /// index offset + k (k < count), as FabricRouting::Path and Usids give them now.
  static MrcPortPaths Get(const mrcsim::FabricRouting& routing,
                          uint32_t srcGpu,
                          uint32_t dstGpu,
                          int plane,
                          uint64_t offset,
                          uint32_t count);
  /// \brief Sets the registry holds now (those of the latest routing version seen).
  static std::size_t Kept();
};

} // namespace ns3

#endif
