// A first-in first-out ring of queued packets that allocates nothing until first used (an empty
// std::deque allocates ~600 bytes, which millions of idle ports cannot afford).
#ifndef MRCSIM_MODELS_PACKET_FIFO_H
#define MRCSIM_MODELS_PACKET_FIFO_H

#include "ns3/packet.h"

#include <vector>

namespace ns3
{

class FabricPort;

/// \brief A packet waiting in an egress queue, with what the port needs to account for it.
struct QueuedPacket
{
  Ptr<Packet> packet;
  FabricPort* ingress = nullptr; ///< port it arrived on (PFC accounting), null if locally sent
  uint16_t protocol = 0;         ///< EtherType it will carry
};

/// \brief Ring buffer of QueuedPacket, capacity a power of two, grown on demand.
class PacketFifo
{
public:
  bool Empty() const { return m_size == 0; }
  uint32_t Size() const { return m_size; }

  void Push(QueuedPacket item)
  {
    if (m_size == m_ring.size())
    {
      Grow();
    }
    m_ring[(m_head + m_size) & (m_ring.size() - 1)] = std::move(item);
    ++m_size;
  }

  QueuedPacket Pop()
  {
    QueuedPacket item = std::move(m_ring[m_head]);
    m_ring[m_head] = QueuedPacket{};
    m_head = (m_head + 1) & (m_ring.size() - 1);
    --m_size;
    return item;
  }

  const QueuedPacket& Front() const { return m_ring[m_head]; }

  void Clear()
  {
    m_ring.clear();
    m_ring.shrink_to_fit();
    m_head = 0;
    m_size = 0;
  }

private:
  void Grow()
  {
    std::vector<QueuedPacket> bigger(m_ring.empty() ? 4 : m_ring.size() * 2);
    for (uint32_t i = 0; i < m_size; ++i)
    {
      bigger[i] = std::move(m_ring[(m_head + i) & (m_ring.size() - 1)]);
    }
    m_ring.swap(bigger);
    m_head = 0;
  }

  std::vector<QueuedPacket> m_ring;
  uint32_t m_head = 0;
  uint32_t m_size = 0;
};

} // namespace ns3

#endif
