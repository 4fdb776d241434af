// How FabricParallelSimulatorImpl runs (see the header's file comment): one partition as ns-3's
// default simulator does, several in windows on worker threads, synchronised at each window's end
// (and, across processes, exchanging with the other ranks), and the events other threads schedule.
#include "models/engine/fabric-parallel-simulator.h"

#include "ns3/abort.h"
#include "ns3/node-list.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace ns3
{

void
FabricParallelSimulatorImpl::ProcessOneEvent(Partition& p)
{
  const FabricScheduler::Ordered next = p.events->RemoveNextOrdered();
  ++p.eventCount;
  p.currentTs = next.ts;
  p.currentOrder = next.order;
  p.currentContext = next.context;
  // The scheduler's reference, released even when the event throws (a run that stops on an
  // error, such as a connector's, is emptied by Simulator::Destroy and must not leak the event).
  const Ptr<EventImpl> event(next.impl, false);
  event->Invoke();
}

void
FabricParallelSimulatorImpl::RunUntil(Partition& p, uint64_t end)
{
  while (!p.events->IsEmpty() && p.events->PeekNextTs() < end)
  {
    ProcessOneEvent(p);
  }
  if (!p.windowEnd.empty())
  {
    // The clock moves to the window's end (no event of this partition is earlier than that now).
    p.currentTs = end;
    p.currentOrder = 0;
    p.currentContext = kTaskContext;
    std::vector<Partition::Task> tasks;
    tasks.swap(p.windowEnd);
    for (std::size_t i = 0; i < tasks.size(); ++i)
    {
      // The objects are scattered (a partition's ports): fetch two tasks ahead.
      if (i + 2 < tasks.size())
      {
        const auto* next = static_cast<const char*>(tasks[i + 2].object);
        for (int line = 0; line < 4; ++line)
        {
          __builtin_prefetch(next + 64 * line);
        }
      }
      tasks[i].fn(tasks[i].object, tasks[i].argument);
    }
  }
}

void
FabricParallelSimulatorImpl::Run()
{
  m_stop.store(false, std::memory_order_relaxed);
  // Every node's sequence counter exists before partitions' threads use them.
  const std::size_t nodes = std::max<std::size_t>(NodeList::GetNNodes(), m_partitionOf.size());
  if (nodes > m_nodeSeq.size())
  {
    GrowNodeSeq(static_cast<uint32_t>(nodes - 1));
  }
  if (m_parts.size() == 1)
  {
    // As DefaultSimulatorImpl::Run.
    Partition& p = *m_parts[0];
    t_current = &p;
    while (!m_stop.load(std::memory_order_relaxed))
    {
      if (m_foreignPending.load(std::memory_order_relaxed))
      {
        TakeForeign();
      }
      if (p.events->IsEmpty())
      {
        break;
      }
      ProcessOneEvent(p);
    }
    return;
  }
  RunParallel();
}

void
FabricParallelSimulatorImpl::Synchronise(uint64_t now)
{
  t_current = &m_global;
  m_global.currentTs = std::max(m_global.currentTs, now);
  for (auto& p : m_parts)
  {
    for (const Partition::Remote& r : p->outbox)
    {
      PartitionFor(r.partition).events->InsertOrdered(r.ts, r.order, r.context, r.impl);
    }
    p->outbox.clear();
  }
  for (const ThreadHooks& h : Hooks())
  {
    h.onBarrier();
  }
  m_global.currentContext = kTaskContext;
  for (auto& p : m_parts)
  {
    // A task may defer no further (one thread now: DeferToBarrier runs it at once).
    std::vector<Partition::Task> tasks;
    tasks.swap(p->tasks);
    for (const Partition::Task& t : tasks)
    {
      t.fn(t.object, t.argument);
    }
  }
  m_global.currentContext = Simulator::NO_CONTEXT;
}

void
FabricParallelSimulatorImpl::RunParallel()
{
  NS_ABORT_MSG_IF(!m_lookahead.IsStrictlyPositive(),
                  "FabricParallelSimulatorImpl: " << m_parts.size() << " partitions need a positive lookahead");
  const uint64_t lookahead = m_lookahead.GetTimeStep();
  if (m_redistribute)
  {
    Redistribute();
  }
  m_quit = false;
  m_running = 0;
  // This process's partitions: the first runs on this thread, the others on workers.
  std::vector<uint32_t> local;
  for (uint32_t i = 0; i < m_parts.size(); ++i)
  {
    if (m_parts[i]->local)
    {
      local.push_back(i);
    }
  }
  NS_ABORT_MSG_IF(local.empty(), "FabricParallelSimulatorImpl: rank " << GetRank() << " has no partition");
  Partition& first = *m_parts[local[0]];
  for (std::size_t i = 1; i < local.size(); ++i)
  {
    m_workers.emplace_back(&FabricParallelSimulatorImpl::WorkerLoop, this, local[i], m_generation);
  }
  constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  uint64_t lastGlobal = 0; // time stamp of the last global event run
  while (true)
  {
    Synchronise(m_global.currentTs);
    if (m_link)
    {
      ExchangeRanks();
    }
    if (m_foreignPending.load(std::memory_order_relaxed))
    {
      TakeForeign();
    }
    uint64_t next = kNone;
    for (const auto& p : m_parts)
    {
      if (!p->local)
      {
        continue; // another rank's (empty here)
      }
      if (!p->events->IsEmpty())
      {
        next = std::min(next, p->events->PeekNextTs());
      }
      if (!p->windowEnd.empty())
      {
        next = std::min(next, m_global.currentTs); // work left for the end of a window from now
      }
    }
    if (m_link)
    {
      // One reduction: the earliest event of any rank, and whether any rank stops.
      std::vector<uint64_t> agreed{ next, m_stop.load(std::memory_order_relaxed) ? 0u : 1u };
      m_link->Reduce(agreed, true);
      next = agreed[0];
      if (agreed[1] == 0)
      {
        m_stop.store(true, std::memory_order_relaxed);
      }
      else
      {
        m_stop.store(false, std::memory_order_relaxed); // decided together: none stopped
      }
    }
    if (m_stop.load(std::memory_order_relaxed))
    {
      break;
    }
    const uint64_t global = m_global.events->IsEmpty() ? kNone : m_global.events->PeekNextTs();
    if (next == kNone && global == kNone)
    {
      break;
    }
    if (global <= next)
    {
      // Global events run alone, before the partitions' events of the same time stamp.
      ProcessOneEvent(m_global);
      lastGlobal = m_global.currentTs;
      continue;
    }
    const uint64_t end = std::min(lookahead > kNone - next ? kNone : next + lookahead, global);
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_windowEnd = end;
      m_running = static_cast<uint32_t>(m_workers.size());
      ++m_generation;
    }
    m_wake.notify_all();
    t_current = &first;
    RunUntil(first, end);
    const auto idle = std::chrono::steady_clock::now();
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_done.wait(lock, [this] { return m_running == 0; });
    }
    first.waitSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - idle).count();
    ++m_windows;
    // Between windows the clock on this thread reads the end of the last window; after the
    // run, the time of the last event.
    m_global.currentTs = end;
  }
  StopWorkers();
  t_current = &m_global;
  uint64_t last = lastGlobal;
  for (const auto& p : m_parts)
  {
    last = std::max(last, p->currentTs);
  }
  if (m_link)
  {
    std::vector<uint64_t> latest{ kNone - last }; // the latest over the ranks, as a minimum
    m_link->Reduce(latest, true);
    last = kNone - latest[0];
  }
  m_global.currentTs = last;
}

void
FabricParallelSimulatorImpl::TakeForeign()
{
  std::vector<Foreign> events;
  {
    std::lock_guard<std::mutex> lock(m_foreignMutex);
    events.swap(m_foreign);
    m_foreignPending.store(false, std::memory_order_relaxed);
  }
  if (m_link)
  {
    // Across ranks only this rank has them: they run at once, between windows, and may only
    // stop the run, which the ranks then agree on (RunParallel).
    for (const Foreign& f : events)
    {
      f.impl->Invoke();
      f.impl->Unref();
    }
    return;
  }
  // Numbered as a global event's (a node's counter stays as the node's own events left it).
  const Partition& now = *t_current;
  for (const Foreign& f : events)
  {
    m_globalEvents += f.context == Simulator::NO_CONTEXT ? 1 : 0;
    const uint64_t order = (f.context == Simulator::NO_CONTEXT ? kGlobalClass : kFromGlobalClass) | m_globalSeq++;
    PartitionFor(OwnerOf(f.context))
      .events->InsertOrdered(now.currentTs + f.delay.GetTimeStep(), order, f.context, f.impl);
  }
}

void
FabricParallelSimulatorImpl::WorkerLoop(uint32_t index, uint64_t generation)
{
  Partition& p = *m_parts[index];
  t_current = &p;
  for (const ThreadHooks& h : Hooks())
  {
    h.onThreadStart(index);
  }
  uint64_t seen = generation;
  while (true)
  {
    uint64_t end;
    const auto idle = std::chrono::steady_clock::now();
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_wake.wait(lock, [&] { return m_quit || m_generation != seen; });
      if (m_quit)
      {
        return;
      }
      seen = m_generation;
      end = m_windowEnd;
    }
    p.waitSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - idle).count();
    RunUntil(p, end);
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      if (--m_running == 0)
      {
        m_done.notify_one();
      }
    }
  }
}

void
FabricParallelSimulatorImpl::StopWorkers()
{
  if (m_workers.empty())
  {
    return;
  }
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_quit = true;
  }
  m_wake.notify_all();
  for (auto& t : m_workers)
  {
    t.join();
  }
  m_workers.clear();
}

} // namespace ns3
