#include "models/engine/fabric-parallel-simulator.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricParallelSimulatorImpl");

NS_OBJECT_ENSURE_REGISTERED(FabricParallelSimulatorImpl);

std::vector<FabricParallelSimulatorImpl::ThreadHooks>&
FabricParallelSimulatorImpl::Hooks()
{
  static std::vector<ThreadHooks> hooks;
  return hooks;
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
FabricParallelSimulatorImpl::GlobalEventsScheduled()
{
  return s_active ? s_active->m_globalEvents : 0;
}

uint64_t
FabricParallelSimulatorImpl::NextOrder(const Partition& p, uint32_t target)
{
  const uint32_t source = p.currentContext;
  if (source == Simulator::NO_CONTEXT)
  {
    if (target == Simulator::NO_CONTEXT)
    {
      ++m_globalEvents;
      return kGlobalClass | m_globalSeq++;
    }
    return kFromGlobalClass | m_globalSeq++;
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
FabricParallelSimulatorImpl::ScheduleKeyed(uint32_t context,
                                           const Time& delay,
                                           EventImpl* event,
                                           KeySpace space,
                                           uint64_t object,
                                           uint32_t part)
{
  FabricParallelSimulatorImpl* sim = s_active;
  if (!sim)
  {
    Simulator::ScheduleWithContext(context, delay, event);
    return;
  }
  // 62 bits below the class: the space (2), the object (36), the part (24).
  constexpr unsigned kPartBits = 24;
  constexpr unsigned kObjectBits = 36;
  NS_ABORT_MSG_IF(object >> kObjectBits || part >> kPartBits,
                  "FabricParallelSimulatorImpl::ScheduleKeyed: object " << object << " or part " << part
                                                                        << " out of its key's bits");
  const uint64_t key = uint64_t(space) << (kObjectBits + kPartBits) | object << kPartBits | part;
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

} // namespace ns3
