#include "models/engine/fabric-parallel-simulator.h"


#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricParallelSimulatorImpl");

NS_OBJECT_ENSURE_REGISTERED(FabricParallelSimulatorImpl);

namespace
{
/// Destination of a message every other rank gets (ScheduleEverywhere).
constexpr uint32_t kAllRanks = ~0u;
/// Types of the messages between ranks (ExchangeRanks).
constexpr uint8_t kEverywhereMessage = 0; ///< a global event every rank runs
constexpr uint8_t kRemoteMessage = 1;     ///< an event of a node of the receiving rank
constexpr uint8_t kBarrierMessage = 2;    ///< handled at the receiving rank's barrier

template<typename T>
void
Put(std::vector<uint8_t>& out, T value)
{
  const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

template<typename T>
T
Take(const std::vector<uint8_t>& in, std::size_t& at)
{
  NS_ABORT_MSG_IF(at + sizeof(T) > in.size(), "FabricParallelSimulatorImpl: a message between ranks is cut short");
  T value;
  std::memcpy(&value, in.data() + at, sizeof value);
  at += sizeof value;
  return value;
}

/// \brief An event running a handler on bytes that may have come from another rank.
class HandlerEvent : public EventImpl
{
public:
  HandlerEvent(FabricParallelSimulatorImpl::Handler fn, void* object, uint32_t context, std::vector<uint8_t> bytes)
    : m_fn(fn)
    , m_object(object)
    , m_context(context)
    , m_bytes(std::move(bytes))
  {
  }

private:
  void Notify() override { m_fn(m_object, m_context, m_bytes); }
  FabricParallelSimulatorImpl::Handler m_fn;
  void* m_object;
  uint32_t m_context;
  std::vector<uint8_t> m_bytes;
};

std::vector<FabricParallelSimulatorImpl::ThreadHooks>&
Hooks()
{
  static std::vector<FabricParallelSimulatorImpl::ThreadHooks> hooks;
  return hooks;
}
} // namespace

std::vector<FabricParallelSimulatorImpl::Handler>&
LoadHandlers()
{
  static std::vector<FabricParallelSimulatorImpl::Handler> handlers;
  return handlers;
}

uint32_t
FabricParallelSimulatorImpl::AddHandlerAtLoad(Handler fn)
{
  LoadHandlers().push_back(fn);
  return static_cast<uint32_t>(LoadHandlers().size() - 1);
}

void
FabricParallelSimulatorImpl::RegisterThreadHooks(ThreadHooks hooks)
{
  Hooks().push_back(hooks);
}

TypeId
FabricParallelSimulatorImpl::GetTypeId()
{
  static TypeId tid = TypeId("ns3::FabricParallelSimulatorImpl")
                        .SetParent<SimulatorImpl>()
                        .SetGroupName("Core")
                        .AddConstructor<FabricParallelSimulatorImpl>();
  return tid;
}

FabricParallelSimulatorImpl::FabricParallelSimulatorImpl()
{
  m_schedulerFactory.SetTypeId(FabricScheduler::GetTypeId());
  m_global.index = kGlobal;
  m_global.currentContext = Simulator::NO_CONTEXT;
  m_parts.push_back(std::make_unique<Partition>());
  m_parts[0]->currentContext = Simulator::NO_CONTEXT;
  t_current = m_parts[0].get();
  s_active = this;
  for (Handler fn : LoadHandlers())
  {
    m_handlers.push_back(HandlerEntry{ fn, nullptr });
  }
}

FabricParallelSimulatorImpl::~FabricParallelSimulatorImpl()
{
  StopWorkers();
  if (s_active == this)
  {
    s_active = nullptr;
  }
  if (t_current == m_parts[0].get() || t_current == &m_global)
  {
    t_current = nullptr;
  }
}

FabricParallelSimulatorImpl*
FabricParallelSimulatorImpl::Get()
{
  return dynamic_cast<FabricParallelSimulatorImpl*>(PeekPointer(Simulator::GetImplementation()));
}

void
FabricParallelSimulatorImpl::DoDispose()
{
  StopWorkers();
  auto drain = [](Partition& p)
  {
    if (p.events)
    {
      while (!p.events->IsEmpty())
      {
        p.events->RemoveNextOrdered().impl->Unref();
      }
      p.events = nullptr;
    }
    for (const Partition::Remote& r : p.outbox)
    {
      r.impl->Unref();
    }
    p.outbox.clear();
    p.tasks.clear();
    p.windowEnd.clear();
  };
  for (auto& p : m_parts)
  {
    drain(*p);
  }
  drain(m_global);
  {
    std::lock_guard<std::mutex> lock(m_foreignMutex);
    for (const Foreign& f : m_foreign)
    {
      f.impl->Unref();
    }
    m_foreign.clear();
  }
  SimulatorImpl::DoDispose();
}

void
FabricParallelSimulatorImpl::SetPartitions(uint32_t n)
{
  NS_LOG_FUNCTION(this << n);
  NS_ABORT_MSG_IF(n == 0, "FabricParallelSimulatorImpl::SetPartitions: at least one partition");
  NS_ABORT_MSG_IF(!m_workers.empty() || InParallelWindow(),
                  "FabricParallelSimulatorImpl::SetPartitions: while running");
  if (n == m_parts.size())
  {
    return;
  }
  for (Partition* p : AllPartitions())
  {
    NS_ABORT_MSG_IF(!p->outbox.empty() || !p->tasks.empty() || !p->windowEnd.empty(),
                    "FabricParallelSimulatorImpl::SetPartitions: a stopped parallel run left work behind");
  }
  // The clock goes on from partition 0 (a Run may have happened already); pending events wait
  // in the new partition 0 until Run moves them (Redistribute).
  const Partition& old = *m_parts[0];
  std::vector<std::unique_ptr<Partition>> parts;
  for (uint32_t i = 0; i < n; ++i)
  {
    auto p = std::make_unique<Partition>();
    p->index = i;
    p->parallel = n > 1;
    p->currentTs = old.currentTs;
    p->currentOrder = old.currentOrder;
    p->currentContext = Simulator::NO_CONTEXT;
    p->events = NewHeap();
    parts.push_back(std::move(p));
  }
  Partition& first = *parts[0];
  for (Partition* p : AllPartitions())
  {
    MoveEvents(p->events, *first.events);
    first.eventCount += p->eventCount;
  }
  m_global.eventCount = 0;
  m_global.currentTs = old.currentTs;
  m_global.currentOrder = old.currentOrder;
  m_global.events = NewHeap();
  m_parts = std::move(parts);
  for (uint32_t i = 0; i < n; ++i)
  {
    m_parts[i]->local = RankOf(i) == GetRank();
  }
  t_current = n == 1 ? m_parts[0].get() : &m_global;
  m_redistribute = n > 1;
}

void
FabricParallelSimulatorImpl::SetPartitionOf(uint32_t context, uint32_t partition)
{
  NS_ABORT_MSG_IF(partition >= m_parts.size(),
                  "FabricParallelSimulatorImpl::SetPartitionOf: partition " << partition << " of " << m_parts.size());
  NS_ABORT_MSG_IF(context == Simulator::NO_CONTEXT, "FabricParallelSimulatorImpl::SetPartitionOf: NO_CONTEXT");
  NS_ABORT_MSG_IF(!m_workers.empty() || InParallelWindow(),
                  "FabricParallelSimulatorImpl::SetPartitionOf: while running");
  if (context >= m_partitionOf.size())
  {
    m_partitionOf.resize(context + 1, 0);
  }
  m_partitionOf[context] = partition;
  m_redistribute = m_parts.size() > 1;
}

void
FabricParallelSimulatorImpl::Redistribute()
{
  // Order keys stay (EventIds taken at set-up remain valid), and each heap orders its events by
  // (time stamp, order) whatever the order they come in.
  std::vector<FabricScheduler::Ordered> pending;
  for (Partition* p : AllPartitions())
  {
    while (!p->events->IsEmpty())
    {
      pending.push_back(p->events->RemoveNextOrdered());
    }
  }
  for (const FabricScheduler::Ordered& ev : pending)
  {
    const uint32_t owner = OwnerOf(ev.context);
    if (!IsLocalPartition(owner))
    {
      ev.impl->Unref(); // another rank's node: that rank has it
      continue;
    }
    PartitionFor(owner).events->InsertOrdered(ev.ts, ev.order, ev.context, ev.impl);
  }
  m_redistribute = false;
}

void
FabricParallelSimulatorImpl::SetLookahead(Time lookahead)
{
  NS_ABORT_MSG_IF(lookahead.IsNegative(), "FabricParallelSimulatorImpl::SetLookahead: negative lookahead");
  m_lookahead = lookahead;
}

std::vector<FabricParallelSimulatorImpl::Partition*>
FabricParallelSimulatorImpl::AllPartitions()
{
  std::vector<Partition*> all;
  for (auto& p : m_parts)
  {
    all.push_back(p.get());
  }
  all.push_back(&m_global);
  return all;
}

uint32_t
FabricParallelSimulatorImpl::OwnerOf(uint32_t context) const
{
  if (m_parts.size() == 1)
  {
    return 0; // one partition owns every node and the global events (no table read per event)
  }
  if (context == Simulator::NO_CONTEXT)
  {
    return kGlobal;
  }
  return GetPartitionOf(context);
}

Ptr<FabricScheduler>
FabricParallelSimulatorImpl::NewHeap() const
{
  return m_schedulerFactory.Create<FabricScheduler>();
}

uint64_t&
FabricParallelSimulatorImpl::GrowNodeSeq(uint32_t context)
{
  NS_ABORT_MSG_IF(context == kTaskContext,
                  "FabricParallelSimulatorImpl: a barrier or window-end task scheduled an unkeyed event (it has no "
                  "node to order it by: use ScheduleKeyed)");
  NS_ABORT_MSG_IF(InParallelWindow(),
                  "FabricParallelSimulatorImpl: node " << context << " runs an event in a parallel window but "
                                                       << "was not a node when the run started");
  NS_ABORT_MSG_IF(context >= (uint32_t(1) << kSourceBits) - 1,
                  "FabricParallelSimulatorImpl: node " << context << ": at most " << ((1u << kSourceBits) - 2)
                                                       << " nodes");
  m_nodeSeq.resize(context + 1, 0);
  return m_nodeSeq[context];
}

uint64_t
FabricParallelSimulatorImpl::NextOrder(const Partition& p, uint32_t target)
{
  const uint32_t source = p.currentContext;
  if (source == Simulator::NO_CONTEXT)
  {
    return (target == Simulator::NO_CONTEXT ? kGlobalClass : kFromGlobalClass) | m_globalSeq++;
  }
  return (target == Simulator::NO_CONTEXT ? kGlobalClass : kFromNodeClass) | uint64_t(source + 1) << kSeqBits |
         NodeSeq(source)++;
}

void
FabricParallelSimulatorImpl::DeferToBarrier(BarrierTask fn, void* object, uint32_t argument)
{
  if (t_current && t_current->parallel)
  {
    t_current->tasks.push_back(Partition::Task{ fn, object, argument });
  }
  else
  {
    fn(object, argument);
  }
}

void
FabricParallelSimulatorImpl::DeferToWindowEndOf(uint32_t context, BarrierTask fn, void* object, uint32_t argument)
{
  FabricParallelSimulatorImpl* sim = s_active;
  NS_ABORT_MSG_IF(!IsParallel(), "FabricParallelSimulatorImpl::DeferToWindowEndOf: not a parallel run");
  const uint32_t owner = sim->OwnerOf(context);
  NS_ABORT_MSG_IF(owner == kGlobal, "FabricParallelSimulatorImpl::DeferToWindowEndOf: an event of no node");
  if (!sim->IsLocalPartition(owner))
  {
    return; // another rank's node (an idle copy here, touched by a global event)
  }
  NS_ABORT_MSG_IF(InParallelWindow() && owner != t_current->index,
                  "FabricParallelSimulatorImpl::DeferToWindowEndOf: node " << context << " is in partition " << owner
                                                                           << ", not the caller's " << t_current->index);
  sim->m_parts[owner]->windowEnd.push_back(Partition::Task{ fn, object, argument });
}

EventId
FabricParallelSimulatorImpl::ScheduleForNode(uint32_t context, const Time& delay, EventImpl* event)
{
  FabricParallelSimulatorImpl* sim = s_active;
  if (!sim)
  {
    return Simulator::Schedule(delay, Ptr<EventImpl>(event, false));
  }
  NS_ABORT_MSG_IF(delay.IsStrictlyNegative(), "FabricParallelSimulatorImpl::ScheduleForNode: negative delay");
  Partition& p = *t_current;
  const uint32_t owner = sim->OwnerOf(context);
  NS_ABORT_MSG_IF(p.parallel && owner != p.index,
                  "FabricParallelSimulatorImpl::ScheduleForNode: node " << context << " is in partition " << owner
                                                                        << ", not the caller's " << p.index);
  const uint64_t ts = p.currentTs + delay.GetTimeStep();
  const uint64_t order = sim->NextOrder(p, context);
  EventId id = IdOf(event, ts, order);
  if (sim->m_link && !sim->IsLocalPartition(owner))
  {
    event->Unref(); // another rank's node: that rank schedules it itself
    return id;
  }
  sim->PartitionFor(owner).events->InsertOrdered(ts, order, context, event);
  return id;
}

void
FabricParallelSimulatorImpl::ScheduleKeyed(uint32_t context, const Time& delay, EventImpl* event, uint64_t key)
{
  FabricParallelSimulatorImpl* sim = s_active;
  if (!sim)
  {
    Simulator::ScheduleWithContext(context, delay, event);
    return;
  }
  NS_ABORT_MSG_IF(key > kMaxKey, "FabricParallelSimulatorImpl::ScheduleKeyed: key " << key << " above " << kMaxKey);
  sim->Route(*t_current, context, delay, kKeyedClass | key, event);
}

bool
FabricParallelSimulatorImpl::InParallelWindow()
{
  return t_current && t_current->parallel;
}

void
FabricParallelSimulatorImpl::MoveEvents(Ptr<FabricScheduler>& from, FabricScheduler& into)
{
  while (from && !from->IsEmpty())
  {
    const FabricScheduler::Ordered ev = from->RemoveNextOrdered();
    into.InsertOrdered(ev.ts, ev.order, ev.context, ev.impl);
  }
}

EventId
FabricParallelSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
  NS_ABORT_MSG_IF(delay.IsStrictlyNegative(), "FabricParallelSimulatorImpl::Schedule: negative delay " << delay);
  Partition& p = *t_current;
  const uint64_t ts = p.currentTs + delay.GetTimeStep();
  const uint64_t order = NextOrder(p, p.currentContext);
  p.events->InsertOrdered(ts, order, p.currentContext, event);
  return IdOf(event, ts, order);
}

void
FabricParallelSimulatorImpl::Route(Partition& p, uint32_t context, const Time& delay, uint64_t order, EventImpl* event)
{
  NS_ABORT_MSG_IF(delay.IsStrictlyNegative(),
                  "FabricParallelSimulatorImpl::ScheduleWithContext: negative delay " << delay);
  const uint64_t ts = p.currentTs + delay.GetTimeStep();
  const uint32_t owner = OwnerOf(context);
  if (owner == p.index || !p.parallel)
  {
    // Our own partition, or one thread running (set-up, a global event, a barrier).
    if (m_link && !IsLocalPartition(owner))
    {
      event->Unref(); // another rank's node: that rank schedules it itself (see the file comment)
      return;
    }
    PartitionFor(owner).events->InsertOrdered(ts, order, context, event);
    return;
  }
  NS_ABORT_MSG_IF(m_link && (owner == kGlobal || !IsLocalPartition(owner)),
                  "FabricParallelSimulatorImpl: an event of node "
                    << p.currentContext << " schedules "
                    << (owner == kGlobal ? std::string("a global event") : "an event of node " + std::to_string(context))
                    << " as a closure, which cannot cross between ranks (ScheduleEverywhere, ScheduleRemote)");
  NS_ABORT_MSG_IF(delay < m_lookahead,
                  "FabricParallelSimulatorImpl: an event of partition "
                    << p.index << " for node " << context << " (partition "
                    << (owner == kGlobal ? std::string("global") : std::to_string(owner)) << ") is " << delay
                    << " ahead, less than the lookahead " << m_lookahead);
  p.outbox.push_back(Partition::Remote{ owner, context, ts, order, event });
}

void
FabricParallelSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
  if (!t_current)
  {
    // Another thread than the simulator's (see the file comment).
    std::lock_guard<std::mutex> lock(m_foreignMutex);
    m_foreign.push_back(Foreign{ context, delay, event });
    m_foreignPending.store(true, std::memory_order_release);
    return;
  }
  Partition& p = *t_current;
  Route(p, context, delay, NextOrder(p, context), event);
}

EventId
FabricParallelSimulatorImpl::ScheduleNow(EventImpl* event)
{
  return Schedule(Time(0), event);
}

EventId
FabricParallelSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
  NS_ABORT_MSG_IF(InParallelWindow(), "FabricParallelSimulatorImpl::ScheduleDestroy: not from a partition's thread");
  EventId id(Ptr<EventImpl>(event, false), t_current->currentTs, Simulator::NO_CONTEXT, EventId::UID::DESTROY);
  m_destroyEvents.push_back(id);
  return id;
}

void
FabricParallelSimulatorImpl::Remove(const EventId& id)
{
  if (IsDestroyId(id))
  {
    auto it = std::find(m_destroyEvents.begin(), m_destroyEvents.end(), id);
    if (it != m_destroyEvents.end())
    {
      m_destroyEvents.erase(it);
    }
    return;
  }
  if (IsExpired(id))
  {
    return;
  }
  // The calling partition's event; between windows (one thread), whichever heap holds it.
  EventImpl* impl = id.PeekEventImpl();
  bool found = t_current->events->RemoveImpl(id.GetTs(), impl);
  for (auto it = m_parts.begin(); !found && !InParallelWindow() && it != m_parts.end(); ++it)
  {
    found = (*it)->events->RemoveImpl(id.GetTs(), impl);
  }
  // Across ranks, an event set-up or a global event scheduled for another rank's node was dropped.
  NS_ABORT_MSG_IF(!found && !(m_link && !InParallelWindow()),
                  "FabricParallelSimulatorImpl::Remove: the event is not pending in the caller's partition");
  if (!found)
  {
    impl->Cancel();
    return;
  }
  impl->Cancel();
  impl->Unref(); // the scheduler's reference
}

void
FabricParallelSimulatorImpl::Cancel(const EventId& id)
{
  if (!IsExpired(id))
  {
    id.PeekEventImpl()->Cancel();
  }
}

bool
FabricParallelSimulatorImpl::IsExpired(const EventId& id) const
{
  if (IsDestroyId(id))
  {
    if (id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled())
    {
      return true;
    }
    return std::find(m_destroyEvents.begin(), m_destroyEvents.end(), id) == m_destroyEvents.end();
  }
  // Events run in (time stamp, order) order: an event no later than the caller's is past.
  const Partition& p = *t_current;
  return id.PeekEventImpl() == nullptr || id.GetTs() < p.currentTs ||
         (id.GetTs() == p.currentTs && OrderOf(id) <= p.currentOrder) || id.PeekEventImpl()->IsCancelled();
}

Time
FabricParallelSimulatorImpl::Now() const
{
  return TimeStep(t_current->currentTs);
}

Time
FabricParallelSimulatorImpl::GetDelayLeft(const EventId& id) const
{
  if (IsExpired(id))
  {
    return TimeStep(0);
  }
  return TimeStep(id.GetTs() - t_current->currentTs); // the caller's clock
}

Time
FabricParallelSimulatorImpl::GetMaximumSimulationTime() const
{
  return TimeStep(std::numeric_limits<int64_t>::max());
}

void
FabricParallelSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
  // Always a FabricScheduler (see the file comment): its order key is what makes runs
  // independent of the partitioning. ns-3 passes the SchedulerType global value's factory
  // (MapScheduler, unless set) when it makes the simulator.
  if (schedulerFactory.GetTypeId() == FabricScheduler::GetTypeId())
  {
    m_schedulerFactory = schedulerFactory;
  }
  auto replace = [&](Partition& p)
  {
    Ptr<FabricScheduler> events = NewHeap();
    MoveEvents(p.events, *events);
    p.events = events;
  };
  for (auto& p : m_parts)
  {
    replace(*p);
  }
  replace(m_global);
}

uint32_t
FabricParallelSimulatorImpl::GetSystemId() const
{
  return 0;
}

uint32_t
FabricParallelSimulatorImpl::GetContext() const
{
  return t_current->currentContext;
}

uint64_t
FabricParallelSimulatorImpl::GetEventCount() const
{
  // Across ranks, every rank runs the global events: rank 0 counts them (so that the ranks' counts
  // add up to one process's).
  uint64_t n = GetRank() == 0 ? m_global.eventCount : 0;
  for (const auto& p : m_parts)
  {
    n += p->eventCount;
  }
  return n;
}

bool
FabricParallelSimulatorImpl::IsFinished() const
{
  auto empty = [](const Partition& p)
  { return (!p.events || p.events->IsEmpty()) && p.outbox.empty() && p.windowEnd.empty(); };
  bool finished = m_stop.load(std::memory_order_relaxed) ||
                  (empty(m_global) && std::all_of(m_parts.begin(), m_parts.end(), [&](const auto& p) { return empty(*p); }));
  if (m_link && !InParallelWindow())
  {
    // Every rank asks at the same point (a global event, or after the run): finished on all.
    std::vector<uint64_t> all{ finished ? 1u : 0u };
    m_link->Reduce(all, true);
    finished = all[0] == 1;
  }
  return finished;
}

void
FabricParallelSimulatorImpl::Stop()
{
  m_stop.store(true, std::memory_order_relaxed);
}

void
FabricParallelSimulatorImpl::Stop(const Time& delay)
{
  Simulator::Schedule(delay, &Simulator::Stop);
}

void
FabricParallelSimulatorImpl::Destroy()
{
  while (!m_destroyEvents.empty())
  {
    Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
    m_destroyEvents.pop_front();
    if (!ev->IsCancelled())
    {
      ev->Invoke();
    }
  }
}

void
FabricParallelSimulatorImpl::ProcessOneEvent(Partition& p)
{
  const FabricScheduler::Ordered next = p.events->RemoveNextOrdered();
  ++p.eventCount;
  p.currentTs = next.ts;
  p.currentOrder = next.order;
  p.currentContext = next.context;
  next.impl->Invoke();
  next.impl->Unref();
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
FabricParallelSimulatorImpl::SetRanks(RankLink* link)
{
  NS_ABORT_MSG_IF(!m_workers.empty() || InParallelWindow(), "FabricParallelSimulatorImpl::SetRanks: while running");
  NS_ABORT_MSG_IF(link && link->Ranks() > m_parts.size(),
                  "FabricParallelSimulatorImpl::SetRanks: " << link->Ranks() << " ranks need at least as many "
                                                            << "partitions (" << m_parts.size() << ")");
  m_link = link && link->Ranks() > 1 ? link : nullptr;
  for (uint32_t i = 0; i < m_parts.size(); ++i)
  {
    m_parts[i]->local = RankOf(i) == GetRank();
  }
  m_redistribute = m_parts.size() > 1;
}

void
FabricParallelSimulatorImpl::SumOverRanks(std::vector<uint64_t>& values)
{
  FabricParallelSimulatorImpl* sim = s_active;
  if (sim && sim->m_link)
  {
    NS_ABORT_MSG_IF(InParallelWindow(), "FabricParallelSimulatorImpl::SumOverRanks: inside a window");
    sim->m_link->Reduce(values, false);
  }
}

std::vector<std::vector<uint8_t>>
FabricParallelSimulatorImpl::GatherOnRankZero(std::vector<uint8_t> bytes)
{
  FabricParallelSimulatorImpl* sim = s_active;
  if (!sim || !sim->m_link)
  {
    return { std::move(bytes) };
  }
  std::vector<std::vector<uint8_t>> out(sim->m_link->Ranks());
  if (sim->GetRank() != 0)
  {
    out[0] = std::move(bytes);
  }
  std::vector<std::vector<uint8_t>> in = sim->m_link->Exchange(out);
  if (sim->GetRank() != 0)
  {
    return {};
  }
  in[0] = std::move(bytes);
  return in;
}

uint32_t
FabricParallelSimulatorImpl::AddHandler(Handler fn, void* object)
{
  m_handlers.push_back(HandlerEntry{ fn, object });
  return static_cast<uint32_t>(m_handlers.size() - 1);
}

EventImpl*
FabricParallelSimulatorImpl::MakeHandlerEvent(uint32_t kind, uint32_t context, std::vector<uint8_t> bytes)
{
  NS_ABORT_MSG_IF(kind >= m_handlers.size(), "FabricParallelSimulatorImpl: no handler of kind " << kind);
  return new HandlerEvent(m_handlers[kind].fn, m_handlers[kind].object, context, std::move(bytes));
}

void
FabricParallelSimulatorImpl::PutMessage(std::vector<uint8_t>& out,
                                        uint32_t rank,
                                        uint8_t type,
                                        uint32_t kind,
                                        uint32_t context,
                                        uint64_t ts,
                                        uint64_t order,
                                        const std::vector<uint8_t>& bytes)
{
  Put(out, rank);
  Put(out, type);
  Put(out, kind);
  Put(out, context);
  Put(out, ts);
  Put(out, order);
  Put(out, static_cast<uint32_t>(bytes.size()));
  out.insert(out.end(), bytes.begin(), bytes.end());
}

void
FabricParallelSimulatorImpl::ScheduleEverywhere(uint32_t node, uint32_t kind, const Time& delay, std::vector<uint8_t> bytes)
{
  FabricParallelSimulatorImpl* sim = s_active;
  NS_ABORT_MSG_IF(!sim, "FabricParallelSimulatorImpl::ScheduleEverywhere: another simulator implementation runs");
  NS_ABORT_MSG_IF(delay.IsStrictlyNegative(), "FabricParallelSimulatorImpl::ScheduleEverywhere: negative delay");
  Partition& p = *t_current;
  const uint64_t ts = p.currentTs + delay.GetTimeStep();
  if (!p.parallel)
  {
    // Set-up or a global event (one partition: any event): only node's rank has its true state,
    // so only that rank schedules it, numbered by the node as if the node had (the node's
    // partition is stopped), and sends it to the others at the next exchange.
    if (sim->m_link && !sim->IsLocal(node))
    {
      return;
    }
    const uint64_t order = p.currentContext == Simulator::NO_CONTEXT || p.currentContext == kTaskContext
                             ? kGlobalClass | uint64_t(node + 1) << kSeqBits | sim->NodeSeq(node)++
                             : sim->NextOrder(p, Simulator::NO_CONTEXT);
    if (sim->m_link)
    {
      PutMessage(sim->m_barrierToRanks, kAllRanks, kEverywhereMessage, kind, Simulator::NO_CONTEXT, ts, order, bytes);
    }
    sim->PartitionFor(sim->OwnerOf(Simulator::NO_CONTEXT))
      .events->InsertOrdered(ts, order, Simulator::NO_CONTEXT,
                             sim->MakeHandlerEvent(kind, Simulator::NO_CONTEXT, std::move(bytes)));
    return;
  }
  NS_ABORT_MSG_IF(p.currentContext != node && sim->OwnerOf(node) != p.index,
                  "FabricParallelSimulatorImpl::ScheduleEverywhere: node " << node << " is not in partition " << p.index);
  const uint64_t order = sim->NextOrder(p, Simulator::NO_CONTEXT);
  NS_ABORT_MSG_IF(delay < sim->m_lookahead,
                  "FabricParallelSimulatorImpl: a global event of node " << p.currentContext << " is " << delay
                                                                          << " ahead, less than the lookahead "
                                                                          << sim->m_lookahead);
  if (sim->m_link)
  {
    PutMessage(p.toRanks, kAllRanks, kEverywhereMessage, kind, Simulator::NO_CONTEXT, ts, order, bytes);
  }
  p.outbox.push_back(Partition::Remote{ kGlobal, Simulator::NO_CONTEXT, ts, order,
                                        sim->MakeHandlerEvent(kind, Simulator::NO_CONTEXT, std::move(bytes)) });
}

void
FabricParallelSimulatorImpl::ScheduleRemote(uint32_t kind, uint32_t context, const Time& delay, std::vector<uint8_t> bytes)
{
  FabricParallelSimulatorImpl* sim = s_active;
  if (!sim)
  {
    // Another simulator implementation: one process, handlers registered at load time only.
    NS_ABORT_MSG_IF(kind >= LoadHandlers().size(),
                    "FabricParallelSimulatorImpl::ScheduleRemote: kind " << kind << " is not registered at load time");
    Simulator::ScheduleWithContext(context, delay, new HandlerEvent(LoadHandlers()[kind], nullptr, context, std::move(bytes)));
    return;
  }
  Partition& p = *t_current;
  const uint32_t owner = sim->OwnerOf(context);
  const uint64_t order = sim->NextOrder(p, context);
  if (sim->IsLocalPartition(owner) || !p.parallel)
  {
    // Here (Route checks the lookahead), or set-up or a global event (Route drops it on ranks
    // other than the node's).
    sim->Route(p, context, delay, order, sim->MakeHandlerEvent(kind, context, std::move(bytes)));
    return;
  }
  NS_ABORT_MSG_IF(delay < sim->m_lookahead,
                  "FabricParallelSimulatorImpl: an event of node " << p.currentContext << " for node " << context
                                                                   << " on another rank is " << delay
                                                                   << " ahead, less than the lookahead "
                                                                   << sim->m_lookahead);
  PutMessage(p.toRanks, sim->RankOf(owner), kRemoteMessage, kind, context, p.currentTs + delay.GetTimeStep(), order,
             bytes);
}

void
FabricParallelSimulatorImpl::SendToRank(uint32_t kind, uint32_t context, std::vector<uint8_t> bytes)
{
  FabricParallelSimulatorImpl* sim = s_active;
  NS_ABORT_MSG_IF(!sim || InParallelWindow(), "FabricParallelSimulatorImpl::SendToRank: from a barrier task only");
  const uint32_t rank = sim->RankOf(sim->OwnerOf(context));
  if (rank == sim->GetRank())
  {
    sim->m_handlers.at(kind).fn(sim->m_handlers[kind].object, context, bytes);
    return;
  }
  PutMessage(sim->m_barrierToRanks, rank, kBarrierMessage, kind, context, 0, 0, bytes);
}

void
FabricParallelSimulatorImpl::ExchangeRanks()
{
  const uint32_t me = GetRank();
  std::vector<std::vector<uint8_t>> out(m_link->Ranks());
  // Strips each message's destination and appends it to its rank's (every other rank's for
  // kAllRanks), keeping the order: partitions in order, then the barrier's.
  auto split = [&](std::vector<uint8_t>& from)
  {
    std::size_t at = 0;
    while (at < from.size())
    {
      const uint32_t rank = Take<uint32_t>(from, at);
      const std::size_t start = at;
      at += sizeof(uint8_t) + 3 * sizeof(uint32_t) + 2 * sizeof(uint64_t);
      std::size_t lenAt = at - sizeof(uint32_t);
      const uint32_t len = Take<uint32_t>(from, lenAt);
      at += len;
      for (uint32_t r = 0; r < out.size(); ++r)
      {
        if (r != me && (rank == kAllRanks || rank == r))
        {
          out[r].insert(out[r].end(), from.begin() + start, from.begin() + at);
        }
      }
    }
    from.clear();
  };
  for (auto& p : m_parts)
  {
    split(p->toRanks);
  }
  split(m_barrierToRanks);
  const std::vector<std::vector<uint8_t>> in = m_link->Exchange(out);
  t_current = &m_global;
  for (const std::vector<uint8_t>& from : in)
  {
    std::size_t at = 0;
    while (at < from.size())
    {
      const auto type = Take<uint8_t>(from, at);
      const auto kind = Take<uint32_t>(from, at);
      const auto context = Take<uint32_t>(from, at);
      const auto ts = Take<uint64_t>(from, at);
      const auto order = Take<uint64_t>(from, at);
      const auto len = Take<uint32_t>(from, at);
      NS_ABORT_MSG_IF(at + len > from.size(), "FabricParallelSimulatorImpl: a message between ranks is cut short");
      std::vector<uint8_t> bytes(from.begin() + at, from.begin() + at + len);
      at += len;
      if (type == kBarrierMessage)
      {
        m_global.currentContext = kTaskContext;
        m_handlers.at(kind).fn(m_handlers[kind].object, context, bytes);
        m_global.currentContext = Simulator::NO_CONTEXT;
        continue;
      }
      const uint32_t owner = type == kEverywhereMessage ? kGlobal : OwnerOf(context);
      NS_ABORT_MSG_IF(!IsLocalPartition(owner), "FabricParallelSimulatorImpl: rank " << me << " got an event of node "
                                                                                    << context << " of another rank");
      PartitionFor(owner).events->InsertOrdered(ts, order, context, MakeHandlerEvent(kind, context, std::move(bytes)));
    }
  }
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
