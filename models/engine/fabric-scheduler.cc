#include "models/engine/fabric-scheduler.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/boolean.h"
#include "ns3/log.h"

#include <cstring>
#include <new>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricScheduler");

NS_OBJECT_ENSURE_REGISTERED(FabricScheduler);

namespace
{

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "FabricScheduler reads its keys as little-endian integers");

__extension__ typedef unsigned __int128 Key;

/// The heap's allocation starts on a cache line.
constexpr std::size_t kLine = 64;
/// Entries before the root in the allocation (see m_heap).
constexpr std::size_t kRootOffset = 1;

/// \brief The order of an entry: time stamp, then order.
template<typename E>
inline Key
KeyOf(const E& e)
{
  static_assert(offsetof(E, order) == 0 && offsetof(E, ts) == 8 && sizeof(E) == 32,
                "FabricScheduler::Entry: the key is the first 16 bytes, four entries two lines");
  Key k;
  std::memcpy(&k, &e, sizeof(k));
  return k;
}

constexpr uintptr_t kPrefetching = 1;

template<typename E>
inline Scheduler::Event
ToEvent(const E& e)
{
  Scheduler::Event ev;
  ev.impl = reinterpret_cast<EventImpl*>(e.impl & ~kPrefetching);
  ev.key.m_ts = e.ts;
  ev.key.m_uid = static_cast<uint32_t>(e.order >> 32);
  ev.key.m_context = e.context;
  return ev;
}

} // namespace

TypeId
FabricScheduler::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::FabricScheduler")
      .SetParent<Scheduler>()
      .AddConstructor<FabricScheduler>()
      .AddAttribute("PrefetchLists",
                    "Prefetch the memory PrefetchingEvents list before they run (off: only the "
                    "event objects are prefetched; for measuring what the lists gain).",
                    BooleanValue(true),
                    MakeBooleanAccessor(&FabricScheduler::m_prefetchLists),
                    MakeBooleanChecker());
  return tid;
}

FabricScheduler::FabricScheduler() = default;

FabricScheduler::~FabricScheduler()
{
  if (m_buffer)
  {
    ::operator delete(m_buffer, std::align_val_t(kLine));
  }
}

void
FabricScheduler::Grow()
{
  const std::size_t capacity = m_capacity ? 2 * m_capacity : 64;
  void* raw = ::operator new((capacity + kRootOffset) * sizeof(Entry), std::align_val_t(kLine));
  Entry* buffer = static_cast<Entry*>(raw);
  Entry* heap = buffer + kRootOffset;
  if (m_size)
  {
    std::memcpy(static_cast<void*>(heap), m_heap, m_size * sizeof(Entry));
  }
  if (m_buffer)
  {
    ::operator delete(m_buffer, std::align_val_t(kLine));
  }
  m_buffer = buffer;
  m_heap = heap;
  m_capacity = capacity;
}

// The heap algorithms are defined inline: within a shared library, an ordinary member function is
// called through the symbol table rather than inlined into Insert and RemoveNext.

inline std::size_t
FabricScheduler::EarliestChild(std::size_t i) const
{
  const Entry* h = m_heap;
  const std::size_t c = 4 * i + 1;
  if (c + 3 < m_size)
  {
    // The level below: the 16 grandchildren (eight cache lines) are fetched while this level is
    // compared, so that a deep heap's cache misses overlap instead of queueing.
    if (4 * c + 16 < m_size)
    {
      const char* g = reinterpret_cast<const char*>(h + 4 * c + 1);
      for (std::size_t b = 0; b < 16 * sizeof(Entry); b += kLine)
      {
        __builtin_prefetch(g + b);
      }
    }
    // Branch-free: which sibling is earliest is a coin toss for the branch predictor.
    const std::size_t m01 = c + (KeyOf(h[c + 1]) < KeyOf(h[c]));
    const std::size_t m23 = c + 2 + (KeyOf(h[c + 3]) < KeyOf(h[c + 2]));
    return m01 ^ ((m01 ^ m23) & (std::size_t(0) - (KeyOf(h[m23]) < KeyOf(h[m01]))));
  }
  std::size_t m = c;
  for (std::size_t j = c + 1; j < m_size; ++j)
  {
    m = KeyOf(h[j]) < KeyOf(h[m]) ? j : m;
  }
  return m;
}

inline void
FabricScheduler::SiftUp(std::size_t i, const Entry& e)
{
  const Key k = KeyOf(e);
  while (i > 0)
  {
    const std::size_t parent = (i - 1) / 4;
    if (!(k < KeyOf(m_heap[parent])))
    {
      break;
    }
    m_heap[i] = m_heap[parent];
    i = parent;
  }
  m_heap[i] = e;
}

inline void
FabricScheduler::SiftDown(std::size_t i, const Entry& e)
{
  const Key k = KeyOf(e);
  while (4 * i + 1 < m_size)
  {
    const std::size_t m = EarliestChild(i);
    if (!(KeyOf(m_heap[m]) < k))
    {
      break;
    }
    m_heap[i] = m_heap[m];
    i = m;
  }
  m_heap[i] = e;
}

inline void
FabricScheduler::Push(uint64_t ts, uint64_t order, uint32_t context, EventImpl* event)
{
  if (m_size == m_capacity)
  {
    Grow();
  }
  static_assert(alignof(EventImpl) > 1, "the low bit of an EventImpl pointer is free");
  uintptr_t impl = reinterpret_cast<uintptr_t>(event);
  if (event == s_expected && m_prefetchLists)
  {
    impl |= kPrefetching;
    s_expected = nullptr;
  }
  SiftUp(m_size++, Entry{ order, ts, impl, context, 0 });
}

void
FabricScheduler::Insert(const Scheduler::Event& ev)
{
  Push(ev.key.m_ts, uint64_t(ev.key.m_uid) << 32 | ev.key.m_context, ev.key.m_context, ev.impl);
}

void
FabricScheduler::InsertOrdered(uint64_t ts, uint64_t order, uint32_t context, EventImpl* impl)
{
  Push(ts, order, context, impl);
}

bool
FabricScheduler::IsEmpty() const
{
  return m_size == 0;
}

Scheduler::Event
FabricScheduler::PeekNext() const
{
  NS_ASSERT(m_size > 0);
  return ToEvent(m_heap[0]);
}

Scheduler::Event
FabricScheduler::RemoveNext()
{
  return ToEvent(Pop());
}

FabricScheduler::Ordered
FabricScheduler::RemoveNextOrdered()
{
  const Entry e = Pop();
  return Ordered{ e.ts, e.order, e.context, reinterpret_cast<EventImpl*>(e.impl & ~kPrefetching) };
}

inline FabricScheduler::Entry
FabricScheduler::Pop()
{
  NS_ASSERT(m_size > 0);
  const Entry root = m_heap[0];
  --m_size;
  if (m_size > 0)
  {
    // Floyd: the hole at the root follows the earliest child down to the bottom, then the last
    // event rises from there to its place (usually at once: it is among the latest events).
    std::size_t hole = 0;
    while (4 * hole + 1 < m_size)
    {
      const std::size_t m = EarliestChild(hole);
      m_heap[hole] = m_heap[m];
      hole = m;
    }
    const Entry last = m_heap[m_size];
    SiftUp(hole, last);
    PrefetchAhead();
  }
  return root;
}

void
FabricScheduler::PrefetchAhead() const
{
  // The simulator invokes the root right after this event (unless this one schedules an even
  // earlier one): what it will touch loads while this one runs. Its list was fetched when it was
  // a child of the root, as the next root always is.
  const Entry& root = m_heap[0];
  const auto* next = reinterpret_cast<const EventImpl*>(root.impl & ~kPrefetching);
  __builtin_prefetch(next);
  if (root.impl & kPrefetching)
  {
    static_cast<const PrefetchingEvent*>(next)->Prefetch();
  }
  // The earliest of the root's children is the event after it (unless one sooner is scheduled
  // meanwhile): its EventImpl (and list), one step earlier. Only that one: the other children
  // are seldom next, and each would cost two prefetches.
  if (m_size > 1)
  {
    const Entry& after = m_heap[EarliestChild(0)];
    const char* impl = reinterpret_cast<const char*>(after.impl & ~kPrefetching);
    __builtin_prefetch(impl);
    if (after.impl & kPrefetching)
    {
      // The whole object: the list, and the members of the event's class that follow it (the
      // class is line-aligned, and a subclass's few members fit in its last line).
      for (std::size_t line = 64; line < sizeof(PrefetchingEvent); line += 64)
      {
        __builtin_prefetch(impl + line);
      }
    }
  }
}

void
FabricScheduler::Remove(const Scheduler::Event& ev)
{
  NS_ABORT_MSG_IF(!RemoveImpl(ev.key.m_ts, ev.impl),
                  "FabricScheduler::Remove: event " << ev.key.m_uid << " is not pending");
}

bool
FabricScheduler::RemoveImpl(uint64_t ts, const EventImpl* impl)
{
  // Rare (Simulator::Remove only): a linear search, as in HeapScheduler. A pending event is
  // pending once (an EventImpl is scheduled again only after it ran).
  std::size_t i = 0;
  while (i < m_size &&
         (m_heap[i].ts != ts || (m_heap[i].impl & ~kPrefetching) != reinterpret_cast<uintptr_t>(impl)))
  {
    ++i;
  }
  if (i == m_size)
  {
    return false;
  }
  --m_size;
  if (i == m_size)
  {
    return true;
  }
  // The last event takes the removed one's place and moves whichever way restores the order.
  const Entry last = m_heap[m_size];
  if (i > 0 && KeyOf(last) < KeyOf(m_heap[(i - 1) / 4]))
  {
    SiftUp(i, last);
  }
  else
  {
    SiftDown(i, last);
  }
  return true;
}

} // namespace ns3
