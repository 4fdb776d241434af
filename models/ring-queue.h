// A double-ended first-in first-out ring that allocates nothing until first used and costs 16
// bytes when empty (an empty std::deque allocates ~600 bytes; thousands of idle queue pairs and
// links cannot afford that). Capacity is a power of two, doubled on demand, never shrunk.
//
// Slots outside [front, back] hold no object: push_back constructs into its slot without reading
// it. On a large fabric the slot behind a queue's tail is usually out of the caches, and a store
// to it does not stall the way a load does (assigning to a live slot would read it first).
#ifndef MRCSIM_MODELS_RING_QUEUE_H
#define MRCSIM_MODELS_RING_QUEUE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

namespace ns3
{

/// \brief FIFO ring with indexed access (index 0 is the front).
template<typename T>
class RingQueue
{
public:
  RingQueue() : m_size(0), m_log2(0) {}

  ~RingQueue() { clear(); }

  RingQueue(RingQueue&& other) noexcept
    : m_ring(other.m_ring)
    , m_head(other.m_head)
    , m_size(other.m_size)
    , m_log2(other.m_log2)
  {
    other.Forget();
  }

  RingQueue& operator=(RingQueue&& other) noexcept
  {
    if (this != &other)
    {
      clear();
      m_ring = other.m_ring;
      m_head = other.m_head;
      m_size = other.m_size;
      m_log2 = other.m_log2;
      other.Forget();
    }
    return *this;
  }

  RingQueue(const RingQueue&) = delete;
  RingQueue& operator=(const RingQueue&) = delete;

  bool empty() const { return m_size == 0; }
  uint32_t size() const { return m_size; }

  T& operator[](uint32_t i) { return m_ring[(m_head + i) & Mask()]; }
  const T& operator[](uint32_t i) const { return m_ring[(m_head + i) & Mask()]; }
  T& front() { return m_ring[m_head]; }
  const T& front() const { return m_ring[m_head]; }
  T& back() { return (*this)[m_size - 1]; }
  const T& back() const { return (*this)[m_size - 1]; }

  void push_back(T item)
  {
    if (m_size == Capacity())
    {
      Grow();
    }
    ::new (static_cast<void*>(m_ring + ((m_head + m_size) & Mask()))) T(std::move(item));
    ++m_size;
  }

  /// \brief Appends a default-constructed element and returns it.
  T& emplace_back()
  {
    push_back(T{});
    return back();
  }

  /// \brief Removes the front element (releasing what it holds now) and returns it.
  T take_front()
  {
    T item = std::move(m_ring[m_head]);
    pop_front();
    return item;
  }

  void pop_front()
  {
    std::destroy_at(m_ring + m_head);
    m_head = (m_head + 1) & Mask();
    --m_size;
  }

  void clear()
  {
    while (m_size)
    {
      pop_front();
    }
    if (m_ring)
    {
      ::operator delete(m_ring, std::align_val_t(alignof(T)));
    }
    Forget();
  }

private:
  uint32_t Capacity() const { return m_ring ? 1u << m_log2 : 0; }
  uint32_t Mask() const { return Capacity() - 1; }

  void Forget()
  {
    m_ring = nullptr;
    m_head = 0;
    m_size = 0;
    m_log2 = 0;
  }

  void Grow()
  {
    const uint8_t log2 = m_ring ? uint8_t(m_log2 + 1) : 2;
    T* bigger = static_cast<T*>(::operator new((std::size_t(1) << log2) * sizeof(T), std::align_val_t(alignof(T))));
    const uint32_t n = m_size;
    for (uint32_t i = 0; i < n; ++i)
    {
      T& from = (*this)[i];
      ::new (static_cast<void*>(bigger + i)) T(std::move(from));
      std::destroy_at(&from);
    }
    if (m_ring)
    {
      ::operator delete(m_ring, std::align_val_t(alignof(T)));
    }
    m_ring = bigger;
    m_log2 = log2;
    m_head = 0;
  }

  T* m_ring = nullptr;
  uint32_t m_head = 0;
  uint32_t m_size : 27;
  uint32_t m_log2 : 5;
};

} // namespace ns3

#endif
