// A value that objects a run makes millions of share, at the cost of one pointer each: a queue
// pair's configuration (SharedConfig, shared-config.h), the path sets of the QPs between the same
// T0s. A std::shared_ptr takes two pointers, as its count lives apart from the value; here the
// count lives with the value. Holders may be made and dropped on the partitions' threads at once
// (a QP is set up at its first message), so the count is atomic (ns-3's SimpleRefCount counts
// without atomics).
#ifndef MRCSIM_MODELS_ENGINE_SHARED_VALUE_H
#define MRCSIM_MODELS_ENGINE_SHARED_VALUE_H

#include <atomic>
#include <cstdint>
#include <utility>

namespace ns3
{

/// \brief A value of type T shared by the copies of its holder (null until made). The holders
/// read it; Own() gives one holder a value of its own to write, copied first when it is shared,
/// so a write never changes another holder's.
template<typename T>
class SharedValue
{
public:
  SharedValue() = default;
  /// \brief A holder of a new value, shared by the copies made of the holder.
  static SharedValue Make(T value)
  {
    SharedValue made;
    made.m_block = new Block(std::move(value));
    return made;
  }
  SharedValue(const SharedValue& other) : m_block(other.m_block) { Acquire(); }
  SharedValue(SharedValue&& other) noexcept : m_block(std::exchange(other.m_block, nullptr)) {}
  SharedValue& operator=(SharedValue other) noexcept
  {
    std::swap(m_block, other.m_block);
    return *this;
  }
  ~SharedValue() { Release(); }

  explicit operator bool() const { return m_block != nullptr; }
  /// \brief Whether two holders share one value (as std::shared_ptr compares, by identity).
  friend bool operator==(const SharedValue& x, const SharedValue& y) { return x.m_block == y.m_block; }
  friend bool operator!=(const SharedValue& x, const SharedValue& y) { return x.m_block != y.m_block; }
  const T* operator->() const { return &m_block->value; }
  const T& operator*() const { return m_block->value; }
  /// \brief This holder's own value, to write (it must hold one): a copy when it was shared.
  T& Own()
  {
    if (m_block->sharers.load(std::memory_order_acquire) > 1)
    {
      Block* own = new Block(m_block->value);
      Release();
      m_block = own;
    }
    return m_block->value;
  }

private:
  struct Block
  {
    explicit Block(T v) : value(std::move(v)) {}
    std::atomic<uint32_t> sharers{ 1 };
    T value;
  };
  void Acquire()
  {
    if (m_block)
      m_block->sharers.fetch_add(1, std::memory_order_relaxed);
  }
  void Release()
  {
    if (m_block && m_block->sharers.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete m_block;
    m_block = nullptr;
  }

  Block* m_block = nullptr;
};

} // namespace ns3

#endif
