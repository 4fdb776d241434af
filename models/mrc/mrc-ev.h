// An MRC entropy value (EV): one path of a queue pair, in one plane, and its health. In SRv6
// mode the EV is a uSID path (the topology's path function with a path index); in entropy mode
// it is a UDP source port that switches hash with ECMP.
#ifndef MRCSIM_MODELS_MRC_EV_H
#define MRCSIM_MODELS_MRC_EV_H

#include "models/wire/udp-entropy.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>

namespace ns3
{

/// \brief Health of an EV (docs/MODEL.md): only GOOD EVs carry data.
enum class EvState : uint8_t // two bits (MrcEvStates)
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

/// \brief The states of a queue pair's entropy values, by EV id: two bits each (four EVs a byte),
/// as a QP has 128-256 EVs and a large run millions of QPs. Until an EV's state first differs
/// from the others' (most QPs of a large run never see one change), no bits are kept: one state
/// stands for all. Everything else about an EV follows from its index in the QP's EV table (its
/// id, echoed in SACK/NACK): its NIC port and plane (the EVs are numbered port by port:
/// MrcEvTable::PortOfEv, EvPlane), its SRv6 path (MrcEvTable::EvUsids, from paths shared between
/// QPs: MrcPathSet), its UDP source port (EvEntropy::Encode(id)), and whether it sprays or waits
/// as a backup (the table's lists, kept apart once they leave their first shape).
class MrcEvStates
{
public:
  MrcEvStates() = default;
  /// \brief `count` EVs, each `state`.
  explicit MrcEvStates(uint32_t count, EvState state = EvState::Good) { Assign(count, state); }
  MrcEvStates(const MrcEvStates& o) { *this = o; }
  MrcEvStates& operator=(const MrcEvStates& o)
  {
    if (this != &o)
    {
      Assign(o.m_size, o.m_all);
      if (o.m_bits)
      {
        m_bits = std::make_unique<uint8_t[]>(Bytes());
        std::copy(o.m_bits.get(), o.m_bits.get() + Bytes(), m_bits.get());
      }
    }
    return *this;
  }
  MrcEvStates(MrcEvStates&&) = default;
  MrcEvStates& operator=(MrcEvStates&&) = default;

  /// \brief Makes the table `count` EVs, each `state`.
  void Assign(uint32_t count, EvState state)
  {
    m_size = count;
    m_all = state;
    m_bits.reset();
  }
  uint32_t size() const { return m_size; }
  EvState operator[](uint32_t id) const
  {
    return m_bits ? static_cast<EvState>((m_bits[id >> 2] >> ((id & 3) * 2)) & 3) : m_all;
  }
  void Set(uint32_t id, EvState state)
  {
    if (!m_bits)
    {
      if (state == m_all)
      {
        return;
      }
      const uint8_t s = static_cast<uint8_t>(m_all);
      m_bits = std::make_unique<uint8_t[]>(Bytes());
      std::fill(m_bits.get(), m_bits.get() + Bytes(), static_cast<uint8_t>(s | s << 2 | s << 4 | s << 6));
    }
    uint8_t& byte = m_bits[id >> 2];
    const int shift = (id & 3) * 2;
    byte = static_cast<uint8_t>((byte & ~(3 << shift)) | static_cast<uint8_t>(state) << shift);
  }

private:
  uint32_t Bytes() const { return (m_size + 3) / 4; }

  std::unique_ptr<uint8_t[]> m_bits; ///< null: every EV is m_all
  uint32_t m_size = 0;
  EvState m_all = EvState::Good;
};

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
