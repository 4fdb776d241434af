// The ranks' side of FabricParallelSimulatorImpl (a run across processes, see the header's file
// comment): handlers that make events from bytes, the events and frames sent between ranks at
// window ends, and the reductions the runner's metrics use.
#include "models/engine/fabric-parallel-simulator.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace ns3
{

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

} // namespace

std::vector<FabricParallelSimulatorImpl::Handler>&
FabricParallelSimulatorImpl::LoadHandlers()
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

Time
FabricParallelSimulatorImpl::NextEventTime()
{
  FabricParallelSimulatorImpl* sim = s_active;
  if (!sim)
  {
    return Simulator::Now();
  }
  NS_ABORT_MSG_IF(InParallelWindow(), "FabricParallelSimulatorImpl::NextEventTime: inside a window");
  constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  const uint64_t now = Simulator::Now().GetTimeStep();
  uint64_t next = kNone;
  for (Partition* p : sim->AllPartitions())
  {
    if (!p->local || !p->events)
      continue;
    if (!p->events->IsEmpty())
      next = std::min(next, p->events->PeekNextTs());
    if (!p->outbox.empty() || !p->toRanks.empty() || !p->tasks.empty() || !p->windowEnd.empty())
      next = now;
  }
  if (sim->m_foreignPending.load(std::memory_order_relaxed) || !sim->m_barrierToRanks.empty())
    next = now;
  if (sim->m_link)
  {
    std::vector<uint64_t> earliest{ next };
    sim->m_link->Reduce(earliest, true);
    next = earliest[0];
  }
  return next == kNone ? Time::Max() : TimeStep(std::max(next, now));
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
  std::vector<std::vector<uint8_t>> in = sim->m_link->Exchange(std::move(out));
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
    // Emptied for the next window; a burst's capacity is given back rather than kept all run.
    if (from.capacity() > kKeptBufferBytes)
      std::vector<uint8_t>().swap(from);
    else
      from.clear();
  };
  for (auto& p : m_parts)
  {
    split(p->toRanks);
  }
  split(m_barrierToRanks);
  std::vector<std::vector<uint8_t>> in = m_link->Exchange(std::move(out));
  t_current = &m_global;
  for (std::vector<uint8_t>& from : in)
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
    std::vector<uint8_t>().swap(from); // its messages are events now
  }
}


} // namespace ns3
