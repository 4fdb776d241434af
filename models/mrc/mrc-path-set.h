// The SRv6 paths of MRC EVs between two T0s (leaves) of one plane, shared by every queue pair
// whose GPUs hang off them. A path's uSIDs up to the destination T0 depend only on the source T0,
// the destination T0, the plane and the path index (FabricRouting::Path: at each switch, the index
// modulo its group's size picks the port and the quotient goes on); the last two (the destination
// T0's port to the GPU, the GPU's NIC port) are the destination GPU's. When every switch a walk
// reaches at the same hop has the same group toward the destination T0 (as in a regular two-tier
// plane: the T0's up-ports, then each T1's links to the destination T0), a set keeps just those
// groups, one per hop, and a path's uSID at hop j is group j's port at digit j of the index in
// their mixed radix: 2 bytes per port of each group instead of a row per index (multiplane-8k:
// 256 up-ports and 16 links per T0-T1 pair, 4,096 indices). Otherwise a set holds one period of
// the index (FabricRouting::PathPeriod) by column, the positions where all its paths agree kept
// once. A queue pair keeps, per NIC port, the set, where its EVs start in it (its path offset
// modulo the set's size) and the destination's two uSIDs (MrcPortPlace; all its ports' in 8 bytes
// where the planes agree, MrcPortPlaces), and its ports' sets as one block shared with the QPs
// whose ports have the same sets (MrcPortSets). Sets are made on first
// use and kept by the routing's Version(), source T0 and destination T0 (one registry for the
// process, thread-safe: QPs are set up in their partitions' threads); QPs hold them by
// shared_ptr, so the paths a QP took before a link changed stay with it, as they did when each QP
// copied its own. When neither form fits (groups that differ by branch and a period above
// kMaxShared), a QP gets a set of its own paths (not shared).
#ifndef MRCSIM_MODELS_MRC_PATH_SET_H
#define MRCSIM_MODELS_MRC_PATH_SET_H

#include "models/engine/shared-value.h"
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
  /// \brief The paths of indices first, first + 1, ..., first + count - 1, a row each.
  MrcPathSet(const mrcsim::FabricRouting& routing,
             uint32_t srcGpu,
             uint32_t dstGpu,
             int plane,
             uint64_t first,
             uint32_t count);
  /// \brief The paths by hop groups, if every switch a walk reaches at the same hop has the same
  /// group toward the destination and the walks all reach it after as many hops; else null.
  static std::shared_ptr<const MrcPathSet> ByHops(const mrcsim::FabricRouting& routing,
                                                  uint32_t srcGpu,
                                                  uint32_t dstGpu,
                                                  int plane);

  uint32_t Size() const { return m_size; }
  /// \brief Whether path `i` exists (else the EV taking it is denied).
  bool HasPath(uint32_t i) const { return m_byHops ? m_hopsHavePath : m_counts[i] != 0; }
  /// \brief Writes the uSIDs of path `i` before the destination's two into `out` (at most
  /// UsidList::kCapacity - 2); returns how many.
  uint32_t Write(uint32_t i, uint16_t* out) const
  {
    if (m_byHops)
    {
      const uint16_t* group = m_hopUsids.data();
      for (uint32_t j = 0; j < m_radix.size(); ++j)
      {
        const uint32_t n = m_radix[j];
        out[j] = group[i % n];
        i /= n;
        group += n;
      }
      return static_cast<uint32_t>(m_radix.size());
    }
    const uint32_t count = m_counts[i] - 1u;
    const uint16_t* var = m_var.data() + std::size_t(i) * m_varCount;
    for (uint32_t k = 0; k < count; ++k)
    {
      out[k] = (m_varMask >> k & 1) ? *var++ : m_common[k];
    }
    return count;
  }
  /// \brief Whether the set keeps hop groups (else a row per path).
  bool ByHopGroups() const { return m_byHops; }
  /// \brief Positions (of UsidList::kCapacity) where the paths differ (rows only).
  uint32_t VaryingPositions() const { return m_varCount; }
  /// \brief Bytes held, the object included.
  std::size_t MemoryBytes() const
  {
    return sizeof(*this) + m_counts.capacity() + 2 * m_var.capacity() + 4 * m_radix.capacity() +
           2 * m_hopUsids.capacity();
  }

private:
  MrcPathSet() = default;
  /// Largest number of indices a set by hops covers (EV k then takes (base + k) in 32 bits).
  static constexpr uint64_t kMaxSize = uint64_t(1) << 30;

  uint32_t m_size = 0;
  bool m_byHops = false;
  bool m_hopsHavePath = false;         ///< by hops: whether the paths exist (all or none)
  std::vector<uint32_t> m_radix;       ///< by hops: each hop's group size
  std::vector<uint16_t> m_hopUsids;    ///< by hops: each hop's group, as uSIDs, hop after hop
  std::vector<uint8_t> m_counts; ///< rows: per path, its uSIDs before the destination's plus one; 0: no path
  std::vector<uint16_t> m_var;   ///< rows: the uSIDs at the varying positions, path by path
  std::array<uint16_t, UsidList::kCapacity> m_common{}; ///< rows: the uSIDs all paths share, by position
  uint8_t m_varMask = 0;  ///< rows: positions kept per path
  uint8_t m_varCount = 0; ///< popcount of m_varMask
};

/// \brief Where the EVs of one NIC port of a queue pair start in the port's path set, and the
/// destination's two uSIDs: EV k of the port takes path (base + k) mod the set's size, then
/// `tail`. What a QP keeps per NIC port, beside its ports' sets (MrcPortSets).
struct MrcPortPlace
{
  uint32_t base = 0;
  std::array<uint16_t, 2> tail{}; ///< the destination T0's port to the GPU, the GPU's NIC port

  /// \brief The path of the port's EV `k` in `set` (null: no EV of the port has a path), or -1
  /// if it has none.
  int64_t PathOf(const MrcPathSet* set, uint32_t k) const
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
  /// \brief The uSIDs of the port's EV `k` in `set` (empty if it has no path).
  UsidList Usids(const MrcPathSet* set, uint32_t k) const
  {
    const int64_t i = PathOf(set, k);
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

/// \brief Where the EVs of one NIC port of a queue pair find their paths (MrcPathSets::Get).
struct MrcPortPaths
{
  std::shared_ptr<const MrcPathSet> set; ///< null: no EV of the port has a path
  MrcPortPlace place;
  bool shared = false; ///< the registry's set (QPs between the same two T0s have it), not the QP's own

  int64_t PathOf(uint32_t k) const { return place.PathOf(set.get(), k); }
  UsidList Usids(uint32_t k) const { return place.Usids(set.get(), k); }
};

/// \brief The places of a queue pair's NIC ports (MrcPortPlace, by port) in 8 bytes. On a
/// multiplane fabric they share one form: the same base in every port's set (the planes' sets have
/// the same size), the same port at the destination T0, and the destination's NIC port in each
/// plane numbered as the QP's own port of that plane. Then the base and the T0's port are kept
/// in place of an array (8 bytes a port, each allocated per QP: 64 for 8 ports, millions of QPs);
/// otherwise the array. Ports without a set are left out of the comparison (no EV of theirs
/// has a path, so their place is never read).
class MrcPortPlaces
{
public:
  MrcPortPlaces() = default;
  ~MrcPortPlaces() { Release(); }
  MrcPortPlaces(const MrcPortPlaces&) = delete;
  MrcPortPlaces& operator=(const MrcPortPlaces&) = delete;

  /// \brief Keeps the places of `ports` (a QP's, by NIC port: MrcPathSets::Get).
  void Assign(const std::vector<MrcPortPaths>& ports);
  /// \brief Port `port`'s place (one of those assigned).
  MrcPortPlace At(uint16_t port) const
  {
    if (m_word & kInline)
    {
      MrcPortPlace place;
      place.base = static_cast<uint32_t>(m_word >> 32);
      place.tail = { static_cast<uint16_t>(m_word >> 16), mrcsim::FabricRouting::PortUsid(port) };
      return place;
    }
    return reinterpret_cast<const MrcPortPlace*>(m_word)[port];
  }
  /// \brief Whether the places are kept in the one form (no array).
  bool Compact() const { return (m_word & kInline) != 0; }

private:
  void Release();
  /// Bit 0 set: the one form, base in bits 32 to 63 and the destination T0's port uSID in bits 16
  /// to 31; else the array's address (MrcPortPlace is 4-byte aligned: bit 0 is clear), or 0.
  static constexpr uint64_t kInline = 1;
  uint64_t m_word = 0;
};

/// \brief The path sets of a queue pair's NIC ports, by port (null: none for that port), as one
/// block that the QPs whose ports have the same sets share (MrcPathSets::Share): a QP keeps a
/// pointer to it and its ports' places (MrcPortPlaces), not a set pointer per port.
using MrcPortSets = std::vector<std::shared_ptr<const MrcPathSet>>;

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
  /// \brief The sets of `ports` (a QP's, by NIC port, from Get in the routing's current version)
  /// as one block: the registry's, shared with every QP whose ports have the same sets, unless a
  /// port has a set of its own (then the QP's own block).
  static SharedValue<MrcPortSets> Share(const mrcsim::FabricRouting& routing,
                                                  const std::vector<MrcPortPaths>& ports);
  /// \brief Sets the registry holds now (those of the latest routing version seen).
  static std::size_t Kept();
};

} // namespace ns3

#endif
