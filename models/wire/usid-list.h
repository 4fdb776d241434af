// A uSID path short enough for one IPv6 destination address (at most six uSIDs after the
// locator), held inline: 14 bytes, no heap allocation, so a queue pair's EV table and every
// packet spec can carry one by value.
#ifndef MRCSIM_MODELS_USID_LIST_H
#define MRCSIM_MODELS_USID_LIST_H

#include "ns3/abort.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/// \brief Up to kCapacity uSIDs in travel order (assigned from FabricRouting::Usids).
class UsidList
{
public:
  /// \brief As many uSIDs as fit after a 32-bit locator (Ipv6UsidHeader::kMaxUsids).
  static constexpr uint32_t kCapacity = 6;

  UsidList() = default;
  UsidList(const std::vector<uint16_t>& usids) { *this = usids; }
  /// \brief The uSIDs in [first, last) (at most kCapacity).
  UsidList(const uint16_t* first, const uint16_t* last)
  {
    NS_ABORT_MSG_IF(last - first > std::ptrdiff_t(kCapacity), "UsidList: more than " << kCapacity << " uSIDs");
    m_size = static_cast<uint8_t>(last - first);
    std::copy(first, last, m_usids.begin());
  }

  /// \brief Aborts if `usids` does not fit in one destination address.
  UsidList& operator=(const std::vector<uint16_t>& usids)
  {
    NS_ABORT_MSG_IF(usids.size() > kCapacity,
                    "UsidList: " << usids.size() << " uSIDs, at most " << kCapacity
                                 << " fit after a 32-bit locator; use an SRH");
    m_size = static_cast<uint8_t>(usids.size());
    for (uint32_t k = 0; k < m_size; ++k)
    {
      m_usids[k] = usids[k];
    }
    return *this;
  }

  bool empty() const { return m_size == 0; }
  uint32_t size() const { return m_size; }
  uint16_t operator[](uint32_t k) const { return m_usids[k]; }
  const uint16_t* begin() const { return m_usids.data(); }
  const uint16_t* end() const { return m_usids.data() + m_size; }
  std::vector<uint16_t> ToVector() const { return std::vector<uint16_t>(begin(), end()); }

private:
  std::array<uint16_t, kCapacity> m_usids{};
  uint8_t m_size = 0;
};

} // namespace ns3

#endif
