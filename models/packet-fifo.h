// A first-in first-out ring of queued frames that allocates nothing until first used and costs
// 16 bytes when empty (an empty std::deque allocates ~600 bytes; millions of idle ports cannot
// afford that).
#ifndef MRCSIM_MODELS_PACKET_FIFO_H
#define MRCSIM_MODELS_PACKET_FIFO_H

#include "models/fabric-frame.h"

#include <memory>

namespace ns3
{

class FabricPort;

/// \brief A frame waiting in an egress queue, with the port it came in on (PFC accounting).
struct QueuedPacket
{
  FramePtr frame;
  FabricPort* ingress = nullptr; ///< for lossless (PFC) classes; null if sent by the node itself
};

/// \brief Ring buffer of QueuedPacket, capacity a power of two, grown on demand.
class PacketFifo
{
public:
  bool Empty() const { return m_size == 0; }
  uint32_t Size() const { return m_size; }

  void Push(QueuedPacket item)
  {
    if (m_size == Capacity())
    {
      Grow();
    }
    m_ring[(m_head + m_size) & (Capacity() - 1)] = std::move(item);
    ++m_size;
  }

  QueuedPacket Pop()
  {
    QueuedPacket item = std::move(m_ring[m_head]);
    m_ring[m_head] = QueuedPacket{};
    m_head = (m_head + 1) & (Capacity() - 1);
    --m_size;
    return item;
  }

  const QueuedPacket& Front() const { return m_ring[m_head]; }

  void Clear()
  {
    m_ring.reset();
    m_log2 = 0;
    m_head = 0;
    m_size = 0;
  }

private:
  uint32_t Capacity() const { return m_ring ? 1u << m_log2 : 0; }

  void Grow()
  {
    uint32_t cap = Capacity();
    uint8_t log2 = m_ring ? uint8_t(m_log2 + 1) : 2;
    auto bigger = std::make_unique<QueuedPacket[]>(size_t(1) << log2);
    for (uint32_t i = 0; i < m_size; ++i)
    {
      bigger[i] = std::move(m_ring[(m_head + i) & (cap - 1)]);
    }
    m_ring = std::move(bigger);
    m_log2 = log2;
    m_head = 0;
  }

  std::unique_ptr<QueuedPacket[]> m_ring;
  uint32_t m_head = 0;
  uint32_t m_size : 27;
  uint32_t m_log2 : 5;

public:
  PacketFifo() : m_size(0), m_log2(0) {}
};

} // namespace ns3

#endif
