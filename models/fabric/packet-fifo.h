// The first-in first-out queue of frames waiting at a port: a RingQueue, which allocates nothing
// until first used and costs 16 bytes when empty (an empty std::deque allocates ~600 bytes;
// millions of idle ports cannot afford that).
#ifndef MRCSIM_MODELS_PACKET_FIFO_H
#define MRCSIM_MODELS_PACKET_FIFO_H

#include "models/fabric/fabric-frame.h"
#include "models/engine/ring-queue.h"

namespace ns3
{

class FabricPort;

/// \brief A frame waiting in an egress queue, with the port it came in on (PFC accounting).
/// 8 bytes: a large run has hundreds of thousands queued.
struct QueuedPacket
{
  FramePtr frame;
  /// For lossless (PFC) classes, the ingress port's interface index + 1 on the same switch (see
  /// FabricPfcAccountant); 0 if the frame is not lossless or was sent by the node itself.
  uint32_t ingress = 0;
};

static_assert(sizeof(QueuedPacket) == 8, "QueuedPacket: keep queues small");

/// \brief FIFO of QueuedPacket (a RingQueue: 16 bytes when empty, no load of the slot it fills).
class PacketFifo
{
public:
  bool Empty() const { return m_ring.empty(); }
  uint32_t Size() const { return m_ring.size(); }
  void Push(QueuedPacket item) { m_ring.push_back(std::move(item)); }
  QueuedPacket Pop() { return m_ring.take_front(); }
  const QueuedPacket& Front() const { return m_ring.front(); }
  /// \brief The i-th packet from the front (i < Size()).
  const QueuedPacket& At(uint32_t i) const { return m_ring[i]; }
  void Clear() { m_ring.clear(); }

private:
  RingQueue<QueuedPacket> m_ring;
};

} // namespace ns3

#endif
