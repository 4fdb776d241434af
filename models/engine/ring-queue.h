// A double-ended first-in first-out ring that allocates nothing until first used and costs 16
// bytes when empty (an empty std::deque allocates ~600 bytes; thousands of idle queue pairs and
// links cannot afford that). Capacity grows on demand from 1 and 2, then by 1.5x and 1.33x in
// turn (4, 6, 8, 12, 16, 24, ...), never shrinks: a ring's capacity is its own peak, and a large
// run has a million slots in wires and send windows, so doubling (a third of the memory idle on
// average) costs tens of MB. Indices wrap by comparison, not by a mask.
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
#include <stdexcept>
#include <utility>

namespace ns3
{

/// \brief FIFO ring with indexed access (index 0 is the front).
template<typename T>
class RingQueue
{
public:
  RingQueue() : m_size(0), m_step(0) {}

  ~RingQueue() { clear(); }

  RingQueue(RingQueue&& other) noexcept
    : m_ring(other.m_ring)
    , m_head(other.m_head)
    , m_size(other.m_size)
    , m_step(other.m_step)
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
      m_step = other.m_step;
      other.Forget();
    }
    return *this;
  }

  RingQueue(const RingQueue&) = delete;
  RingQueue& operator=(const RingQueue&) = delete;

  bool empty() const { return m_size == 0; }
  uint32_t size() const { return m_size; }

  T& operator[](uint32_t i) { return m_ring[Wrap(m_head + i)]; }
  const T& operator[](uint32_t i) const { return m_ring[Wrap(m_head + i)]; }
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
    ::new (static_cast<void*>(m_ring + Wrap(m_head + m_size))) T(std::move(item));
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
    m_head = m_head + 1 == Capacity() ? 0 : m_head + 1;
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
  /// Capacity of growth step k: 1, 2, 4, 6, 8, 12, 16, 24, ... (k = 0, 1, 2, ...): a ring that
  /// holds one item (a queue pair's one message) takes one slot.
  static uint32_t StepCapacity(uint32_t k) { return k < 2 ? k + 1 : (4u + 2u * (k & 1u)) << ((k - 2) >> 1); }
  uint32_t Capacity() const { return m_ring ? StepCapacity(m_step) : 0; }
  /// i (below twice the capacity) as a slot index.
  uint32_t Wrap(uint32_t i) const
  {
    const uint32_t cap = Capacity();
    return i >= cap ? i - cap : i;
  }

  void Forget()
  {
    m_ring = nullptr;
    m_head = 0;
    m_size = 0;
    m_step = 0;
  }

  void Grow()
  {
    const uint32_t step = m_ring ? m_step + 1u : 0u;
    if (step >= 50 || StepCapacity(step) >= (1u << 26))
    {
      throw std::length_error("RingQueue: more than 2^26 entries");
    }
    T* bigger =
      static_cast<T*>(::operator new(std::size_t(StepCapacity(step)) * sizeof(T), std::align_val_t(alignof(T))));
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
    m_step = step;
    m_head = 0;
  }

  T* m_ring = nullptr;
  uint32_t m_head = 0;
  uint32_t m_size : 26;
  uint32_t m_step : 6; ///< growth step of the capacity (StepCapacity)
};

/// \brief In a non-empty ring ordered by `keyOf`, the index of the last item whose key is at most
/// `key` (0 when none is): e.g. the message that holds a sequence number, among messages in
/// sequence order.
template<typename T, typename KeyOf>
uint32_t
LastAtOrBefore(const RingQueue<T>& ring, uint64_t key, KeyOf keyOf)
{
  uint32_t lo = 0;
  uint32_t hi = ring.size();
  while (hi - lo > 1)
  {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (keyOf(ring[mid]) <= key)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

} // namespace ns3

#endif
