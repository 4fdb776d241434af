// An ns-3 event scheduler for large fabrics (tens of thousands of pending events): an implicit
// 4-ary min-heap of the pending events in one contiguous, cache-line-aligned array. Nothing is
// allocated per event (the array grows by doubling and never shrinks; MapScheduler allocates a
// tree node per event), the tree is half as deep as a binary heap's, an event's (time stamp, uid)
// compares as one 128-bit integer, and the memory latency of a heap larger than the caches is
// hidden by prefetching: the next level of the heap on the way down, and the EventImpl of the next
// event, which the simulator invokes right after the current one.
// Through ns-3's Scheduler interface, events leave in exactly the (time stamp, uid) order of
// ns-3's other schedulers, so a run is bit-identical to one with MapScheduler. Its own interface
// (InsertOrdered, RemoveNextOrdered) orders by (time stamp, a 64-bit order key the caller
// chooses): FabricParallelSimulatorImpl's partition-independent event order.
// An event can also name the memory it will touch when it runs (a PrefetchingEvent, scheduled
// right after FabricScheduler::ExpectPrefetching): that memory is prefetched one event ahead, when
// the event reaches the root, and the list itself two events ahead, when it is a child of the
// root. On a fabric of thousands of links every hop of a frame touches state no cache holds (the
// link, the frame, both ports): this overlaps those misses with the events that run before.
// Leaves out: a fast Remove (a linear search: the simulator only calls it for Simulator::Remove,
// which the models do not use, as they cancel instead) and giving memory back after a peak.
// Select it with Simulator::SetScheduler and the TypeId "ns3::FabricScheduler".
#ifndef MRCSIM_MODELS_FABRIC_SCHEDULER_H
#define MRCSIM_MODELS_FABRIC_SCHEDULER_H

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/scheduler.h"

#include <algorithm>
#include <initializer_list>

#include <cstddef>
#include <cstdint>

namespace ns3
{

/// \brief An event that lists the memory it will touch (see the file comment). The list may name
/// memory freed meanwhile: a prefetch never faults.
///
/// Two cache lines with the EventImpl and 16 bytes left for a subclass's members: kEntries
/// entries of one word each, an address with up to six of the lines from its own on in the low
/// six bits (Lines), so that a run of lines (a port's four, say) takes one entry.
class alignas(64) PrefetchingEvent : public EventImpl
{
public:
  static constexpr std::size_t kEntries = 12;

  /// \brief The entry for the lines of `p` + 64 i, for each bit i of `lines` (bits 0 to 5); 0,
  /// which lists nothing, for a null `p`.
  static uintptr_t Lines(const void* p, unsigned lines = 1)
  {
    NS_ABORT_MSG_IF(lines == 0 || lines > 63, "PrefetchingEvent: lines mask " << lines << ", 1 to 63");
    return p ? (reinterpret_cast<uintptr_t>(p) & ~uintptr_t(63)) | lines : 0;
  }

  /// \brief Sets the list: the given entries (Lines), the others cleared.
  void SetPrefetch(std::initializer_list<uintptr_t> entries)
  {
    SetPrefetchEntries(0, entries);
    std::fill(m_prefetch + entries.size(), m_prefetch + kEntries, 0);
  }

  /// \brief Sets entries [first, first + entries.size()), leaving the others as they are.
  void SetPrefetchEntries(std::size_t first, std::initializer_list<uintptr_t> entries)
  {
    NS_ABORT_MSG_IF(first + entries.size() > kEntries,
                    "PrefetchingEvent: entries " << first << " to " << first + entries.size() << ", at most "
                                                 << kEntries);
    std::copy(entries.begin(), entries.end(), m_prefetch + first);
  }

  /// \brief Prefetches what the list names.
  void Prefetch() const
  {
    for (const uintptr_t entry : m_prefetch)
    {
      const char* base = reinterpret_cast<const char*>(entry & ~uintptr_t(63));
      for (unsigned lines = entry & 63; lines; lines &= lines - 1)
      {
        __builtin_prefetch(base + 64 * __builtin_ctz(lines));
      }
    }
  }

  uintptr_t m_prefetch[kEntries] = {};
};

static_assert(sizeof(PrefetchingEvent) == 128, "a PrefetchingEvent is two cache lines");

/// \brief 4-ary heap event scheduler: Insert and RemoveNext in O(log n), Remove in O(n) (a
/// search) plus O(log n), PeekNext and IsEmpty in O(1); 32 bytes per pending event.
///
/// Heap node i (the root is 0) has children 4i+1..4i+4. RemoveNext moves the hole left at the
/// root down to the bottom along the earliest children and then lifts the last event into it
/// from there (Floyd's method): a comparison per level fewer than sifting the last event down
/// from the root, as it is usually among the latest events and belongs near the bottom anyway.
class FabricScheduler : public Scheduler
{
public:
  static TypeId GetTypeId();
  FabricScheduler();
  ~FabricScheduler() override;

  FabricScheduler(const FabricScheduler&) = delete;
  FabricScheduler& operator=(const FabricScheduler&) = delete;

  void Insert(const Scheduler::Event& ev) override;
  bool IsEmpty() const override;
  Scheduler::Event PeekNext() const override;
  Scheduler::Event RemoveNext() override;
  void Remove(const Scheduler::Event& ev) override;

  /// \brief Number of pending events.
  std::size_t Size() const { return m_size; }

  /// \brief A pending event in the scheduler's own order: time stamp, then `order`.
  struct Ordered
  {
    uint64_t ts;
    uint64_t order; ///< unique among pending events of one time stamp
    uint32_t context;
    EventImpl* impl;
  };
  /// \brief Inserts an event ordered by (ts, order) (with Insert's events, whose order is
  /// uid * 2^32 + context).
  void InsertOrdered(uint64_t ts, uint64_t order, uint32_t context, EventImpl* impl);
  /// \brief Removes the earliest event (the scheduler must not be empty).
  Ordered RemoveNextOrdered();
  /// \brief The earliest event's time stamp (the scheduler must not be empty).
  uint64_t PeekNextTs() const { return m_heap[0].ts; }
  /// \brief Removes the pending event `impl` at `ts` (a linear search); false if there is none.
  bool RemoveImpl(uint64_t ts, const EventImpl* impl);

  /// \brief The next event inserted, if it is `event`, is a PrefetchingEvent (called right before
  /// scheduling it; with any other scheduler this does nothing).
  static void ExpectPrefetching(const PrefetchingEvent* event) { s_expected = event; }

private:
  /// \brief A pending event as the heap stores it. Its first 16 bytes, read as a little-endian
  /// 128-bit integer, are ts * 2^64 + order. Through the Scheduler interface the order is
  /// uid * 2^32 + context: as uids are unique, integer order is then Scheduler::EventKey order
  /// (time stamp, then uid), and the context never decides. The lowest bit of `impl` (an
  /// EventImpl is aligned) marks a PrefetchingEvent. 32 bytes: four siblings are two cache lines.
  struct Entry
  {
    uint64_t order;
    uint64_t ts;
    uintptr_t impl;
    uint32_t context;
    uint32_t unused;
  };
  /// \brief Puts `e` in the heap (growing it), tagging it if it is the expected PrefetchingEvent.
  void Push(uint64_t ts, uint64_t order, uint32_t context, EventImpl* impl);
  /// \brief Takes the root out and restores the heap.
  Entry Pop();

  /// \brief Prefetches for the events at and near the root (see the file comment).
  void PrefetchAhead() const;

  /// See ExpectPrefetching; per thread, as each partition of a parallel run has its scheduler.
  __attribute__((tls_model("initial-exec"))) static inline thread_local const PrefetchingEvent* s_expected = nullptr;

  /// \brief Makes room for at least one more event (doubling, at least 64 events).
  void Grow();
  /// \brief Index of the earliest child of node `i`, which has at least one.
  std::size_t EarliestChild(std::size_t i) const;
  /// \brief Puts `e` at node `i` or above it, moving later ancestors down.
  void SiftUp(std::size_t i, const Entry& e);
  /// \brief Puts `e` at node `i` or below it, moving earlier descendants up.
  void SiftDown(std::size_t i, const Entry& e);

  /// The heap, m_heap[0] the root. It sits one entry past a cache-line boundary, so that every
  /// group of four siblings (128 bytes) is exactly two cache lines.
  Entry* m_heap = nullptr;
  Entry* m_buffer = nullptr; ///< the allocation m_heap points into
  std::size_t m_size = 0;
  std::size_t m_capacity = 0; ///< entries m_heap can hold
  bool m_prefetchLists = true; ///< see the PrefetchLists attribute
};

} // namespace ns3

#endif // MRCSIM_MODELS_FABRIC_SCHEDULER_H
