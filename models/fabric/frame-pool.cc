// The frame pools: one reserved address range (the arena), slabs carved from it, a free list per
// frame size and thread (see FramePtr in fabric-frame.h).
#include "models/fabric/fabric-frame.h"

#include "models/engine/fabric-parallel-simulator.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FramePool");

static_assert(std::is_trivially_default_constructible<FabricFrame>::value &&
                std::is_trivially_copyable<FabricFrame>::value,
              "FabricFrame is made in place by zeroing its bytes");

namespace
{

/// The frame arena: one address range reserved at load time (MAP_NORESERVE: memory is taken only
/// as slabs are touched), in 16-byte units, so that a frame is named by the 32-bit number of its
/// first unit (FramePtr). Slabs are carved from it in order and live as long as the process, so
/// a run's peak frame count bounds the frames' memory. Its pages are transparent huge pages
/// (madvise) unless MRCSIM_HUGE_PAGES=0: a large run's frames are touched all over the range.
struct FrameArena
{
  static constexpr uint64_t kUnit = 16;
  static constexpr uint32_t kSlab = 512; ///< frames per slab
  unsigned char* base = nullptr;
  uint64_t units = 0;                ///< reserved
  std::atomic<uint64_t> carved{ 1 }; ///< units handed out as slabs (unit 0 is the null FramePtr)

  FrameArena()
  {
    // 2^32 units (64 GiB of address space) and, where that is refused, less.
    for (uint64_t want = uint64_t(1) << 32; want >= (uint64_t(1) << 22) && !base; want >>= 1)
    {
      void* at =
        mmap(nullptr, want * kUnit, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (at != MAP_FAILED)
      {
        base = static_cast<unsigned char*>(at);
        units = want - (want >> 32); // unit 2^32 would not fit a FramePtr
      }
    }
    NS_ABORT_MSG_IF(!base, "FramePtr: could not reserve 64 MiB of address space for frames");
    const char* hugePages = std::getenv("MRCSIM_HUGE_PAGES");
    if (!hugePages || std::strcmp(hugePages, "0") != 0)
    {
      madvise(base, units * kUnit, MADV_HUGEPAGE);
    }
  }

  /// \brief The first unit of a new slab of frames of `frameUnits` units each.
  uint32_t CarveSlab(uint32_t frameUnits)
  {
    const uint64_t n = uint64_t(kSlab) * frameUnits;
    const uint64_t first = carved.fetch_add(n, std::memory_order_relaxed);
    NS_ABORT_MSG_IF(first + n > units,
                    "FramePtr: the frame arena is full (" << units * kUnit / 1048576
                                                          << " MiB reserved); too many frames in flight");
    return static_cast<uint32_t>(first);
  }
};

FrameArena&
Arena()
{
  static FrameArena arena;
  return arena;
}

/// Frames are taken from slabs and returned to a free list threaded through the free frames, one
/// list per size (small, big). One pool per thread of a parallel run (FramePtr::UsePool), so
/// taking and returning a frame never synchronises: a frame taken from one pool and returned on
/// another thread joins that thread's free list. `live` counts per pool and may go negative;
/// their sum is exact. Traffic that flows one way between threads would empty one pool and fill
/// another: BalancePools, run at a parallel run's window ends, moves a surplus back.
struct FramePool
{
  static constexpr int64_t kSlab = FrameArena::kSlab;
  static constexpr uint32_t kUnits[2] = { FabricFrame::kSmallBytes / FrameArena::kUnit,
                                          FabricFrame::kBigBytes / FrameArena::kUnit };
  static FabricFrame* At(unsigned char* base, uint32_t unit)
  {
    return reinterpret_cast<FabricFrame*>(base + uint64_t(unit) * FrameArena::kUnit);
  }
  /// A free frame holds the first unit of the next free one of its size in its first 4 bytes.
  static uint32_t& Next(unsigned char* base, uint32_t unit) { return *reinterpret_cast<uint32_t*>(At(base, unit)); }
  uint32_t free[2] = { 0, 0 };     ///< first free frame of each size (0: none)
  int64_t freeCount[2] = { 0, 0 }; ///< frames in `free`
  int64_t live = 0;

  uint32_t Take(unsigned char* base, bool big)
  {
    uint32_t& head = free[big];
    if (!head)
    {
      const uint32_t first = Arena().CarveSlab(kUnits[big]);
      for (uint32_t i = kSlab; i-- > 0;)
      {
        const uint32_t unit = first + i * kUnits[big];
        Next(base, unit) = head;
        head = unit;
      }
      freeCount[big] += kSlab;
    }
    const uint32_t unit = head;
    head = Next(base, unit);
    --freeCount[big];
    ++live;
    FabricFrame* f = At(base, unit);
    std::memset(static_cast<void*>(f), 0, big ? FabricFrame::kBigBytes : FabricFrame::kSmallBytes);
    f->big = big;
    return unit;
  }

  void Give(unsigned char* base, uint32_t unit)
  {
    const bool big = At(base, unit)->big;
    Next(base, unit) = free[big];
    free[big] = unit;
    ++freeCount[big];
    --live;
  }
};

/// The pools, by index; they live as long as the process (frames outlive the threads that
/// took them).
struct PoolRegistry
{
  std::mutex mutex;
  std::vector<std::unique_ptr<FramePool>> pools;

  FramePool* At(std::size_t index)
  {
    std::lock_guard<std::mutex> lock(mutex);
    while (pools.size() <= index)
    {
      pools.push_back(std::make_unique<FramePool>());
    }
    return pools[index].get();
  }
};

PoolRegistry&
Registry()
{
  static PoolRegistry registry;
  return registry;
}

__attribute__((tls_model("initial-exec"))) thread_local FramePool* t_pool = nullptr;

FramePool&
Pool()
{
  if (!t_pool)
  {
    t_pool = Registry().At(0);
  }
  return *t_pool;
}

unsigned char*
ArenaBase()
{
  return Arena().base;
}

} // namespace

// Reserved when the library is loaded (address space only), so that no thread ever writes it.
FramePtr::Unit* FramePtr::s_arena = reinterpret_cast<FramePtr::Unit*>(ArenaBase());

namespace
{
// A parallel run's threads each take frames from a pool of their own; window ends rebalance.
const bool g_poolHooks = (FabricParallelSimulatorImpl::RegisterThreadHooks(
                            { [](uint32_t partition) { FramePtr::UsePool(partition); },
                              [] { FramePtr::BalancePools(); } }),
                          true);
} // namespace

void
FramePtr::UsePool(std::size_t index)
{
  t_pool = Registry().At(index);
}

FramePtr
FramePtr::Make(bool big)
{
  FramePtr p;
  p.m_slot = Pool().Take(reinterpret_cast<unsigned char*>(s_arena), big);
  return p;
}

void
FramePtr::Give(uint32_t slot)
{
  Pool().Give(reinterpret_cast<unsigned char*>(s_arena), slot);
}

void
FramePtr::BalancePools()
{
  PoolRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.pools.size() < 2)
  {
    return;
  }
  unsigned char* const base = reinterpret_cast<unsigned char*>(s_arena);
  for (int big = 0; big < 2; ++big)
  {
    int64_t total = 0;
    for (const auto& p : r.pools)
    {
      total += p->freeCount[big];
    }
    const int64_t target = total / int64_t(r.pools.size());
    // Only a surplus of more than a slab moves: steady symmetric traffic moves nothing.
    constexpr int64_t kSlack = FramePool::kSlab;
    uint32_t spare = 0;
    for (const auto& p : r.pools)
    {
      if (p->freeCount[big] <= target + kSlack)
      {
        continue;
      }
      while (p->freeCount[big] > target)
      {
        const uint32_t s = p->free[big];
        p->free[big] = FramePool::Next(base, s);
        --p->freeCount[big];
        FramePool::Next(base, s) = spare;
        spare = s;
      }
    }
    // The short pools are filled up to the average; the remainder (less than one frame per
    // pool) goes to the first.
    auto give = [&spare, base, big](FramePool& p)
    {
      const uint32_t s = spare;
      spare = FramePool::Next(base, s);
      FramePool::Next(base, s) = p.free[big];
      p.free[big] = s;
      ++p.freeCount[big];
    };
    for (const auto& p : r.pools)
    {
      while (spare && p->freeCount[big] < target)
      {
        give(*p);
      }
    }
    while (spare)
    {
      give(*r.pools[0]);
    }
  }
}

std::vector<int64_t>
FramePtr::FreePerPool()
{
  PoolRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<int64_t> free;
  for (const auto& p : r.pools)
  {
    free.push_back(p->freeCount[0] + p->freeCount[1]);
  }
  return free;
}

uint64_t
FramePtr::Live()
{
  PoolRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  int64_t live = 0;
  for (const auto& p : r.pools)
  {
    live += p->live;
  }
  return static_cast<uint64_t>(live);
}

} // namespace ns3
