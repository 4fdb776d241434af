// An MRC entropy value (EV): one path of a queue pair, in one plane, and its health. In SRv6
// mode the EV is a uSID path (the topology's path function with a path index); in entropy mode
// it is a UDP source port that switches hash with ECMP.
#ifndef MRCSIM_MODELS_MRC_EV_H
#define MRCSIM_MODELS_MRC_EV_H

#include "models/wire/udp-entropy.h"

#include <cstdint>
#include <iterator>

namespace ns3
{

/// \brief Health of an EV (docs/MODEL.md): only GOOD EVs carry data.
enum class EvState : uint8_t
{
  Good,       ///< usable
  Skip,       ///< congestion seen (ECN echo, trim): skipped for one rotation, then GOOD
  AssumedBad, ///< a loss without a trim: replaced by a backup of its plane, probed
  Denied,     ///< its plane is unusable (local or remote NIC port down)
};

inline const char*
EvStateName(EvState s)
{
  switch (s)
  {
    case EvState::Good:
      return "GOOD";
    case EvState::Skip:
      return "SKIP";
    case EvState::AssumedBad:
      return "ASSUMED_BAD";
    case EvState::Denied:
      return "DENIED";
  }
  return "?";
}

/// \brief The state of one entropy value of a queue pair: one byte, as a QP has 128-256 EVs and
/// a large run hundreds of thousands of QPs. Everything else about an EV follows from its index in
/// the QP's EV table (its id, echoed in SACK/NACK): its NIC port and plane (the EVs are numbered
/// port by port: MrcEvTable::PortOfEv, EvPlane), its SRv6 path (MrcEvTable::EvUsids, from paths
/// shared between QPs: MrcPathSet), its UDP source port (EvEntropy::Encode(id)), and whether it
/// sprays or waits as a backup (the table's lists, kept apart once they leave their first shape).
struct MrcEv
{
  EvState state = EvState::Good;
};

static_assert(sizeof(MrcEv) == 1, "MrcEv: keep the EV table small");

/// \brief EV ids (indices into a QP's EV table), e.g. a NIC port's active EVs: a view that stays
/// valid until the table changes its lists.
class MrcEvIds
{
public:
  MrcEvIds() = default;
  MrcEvIds(const uint16_t* data, uint32_t size) : m_data(data), m_size(size) {}
  uint32_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }
  uint16_t operator[](uint32_t i) const { return m_data[i]; }
  uint16_t front() const { return m_data[0]; }
  uint16_t back() const { return m_data[m_size - 1]; }
  const uint16_t* begin() const { return m_data; }
  const uint16_t* end() const { return m_data + m_size; }
  std::reverse_iterator<const uint16_t*> rbegin() const { return std::reverse_iterator<const uint16_t*>(end()); }
  std::reverse_iterator<const uint16_t*> rend() const { return std::reverse_iterator<const uint16_t*>(begin()); }

private:
  const uint16_t* m_data = nullptr;
  uint32_t m_size = 0;
};

} // namespace ns3

#endif
