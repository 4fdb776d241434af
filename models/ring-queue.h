// A double-ended first-in first-out ring that allocates nothing until first used and costs 16
// bytes when empty (an empty std::deque allocates ~600 bytes; thousands of idle queue pairs and
// links cannot afford that). Capacity is a power of two, doubled on demand, never shrunk.
#ifndef MRCSIM_MODELS_RING_QUEUE_H
#define MRCSIM_MODELS_RING_QUEUE_H

#include <cstdint>
#include <memory>
#include <utility>

namespace ns3
{

/// \brief FIFO ring with indexed access (index 0 is the front).
template<typename T>
class RingQueue
{
public:
  bool empty() const { return m_size == 0; }
  uint32_t size() const { return m_size; }

  T& operator[](uint32_t i) { return m_ring[(m_head + i) & m_mask]; }
  const T& operator[](uint32_t i) const { return m_ring[(m_head + i) & m_mask]; }
  T& front() { return m_ring[m_head]; }
  const T& front() const { return m_ring[m_head]; }
  T& back() { return (*this)[m_size - 1]; }
  const T& back() const { return (*this)[m_size - 1]; }

  void push_back(T item)
  {
    if (!m_ring || m_size == m_mask + 1)
    {
      Grow();
    }
    m_ring[(m_head + m_size) & m_mask] = std::move(item);
    ++m_size;
  }

  /// \brief Appends a default-constructed element and returns it.
  T& emplace_back()
  {
    push_back(T{});
    return back();
  }

  void pop_front()
  {
    m_ring[m_head] = T{}; // releases what the element holds (packets) now
    m_head = (m_head + 1) & m_mask;
    --m_size;
  }

  void clear()
  {
    m_ring.reset();
    m_mask = 0;
    m_head = 0;
    m_size = 0;
  }

private:
  void Grow()
  {
    const uint32_t cap = m_ring ? (m_mask + 1) * 2 : 4;
    auto bigger = std::make_unique<T[]>(cap);
    for (uint32_t i = 0; i < m_size; ++i)
    {
      bigger[i] = std::move((*this)[i]);
    }
    m_ring = std::move(bigger);
    m_mask = cap - 1;
    m_head = 0;
  }

  std::unique_ptr<T[]> m_ring;
  uint32_t m_mask = 0;
  uint32_t m_head = 0;
  uint32_t m_size = 0;
};

} // namespace ns3

#endif
