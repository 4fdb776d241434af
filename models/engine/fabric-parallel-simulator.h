// An ns-3 simulator implementation that runs a fabric's nodes in partitions, one thread each,
// synchronised conservatively in windows of one lookahead (the shortest delay of a link between
// partitions): every event a partition schedules for another is at least one lookahead ahead, so
// within a window the partitions cannot affect one another and run in parallel. At the end of a
// window, on one thread, events and link traffic for other partitions are handed over, in partition
// order, so a run is bit-identical from one run to the next and on any machine.
//
// Event order: by time stamp, then by an order key that does not depend on the partitioning, so
// that runs with 1, 2 or 8 partitions run every node's events in the same order and give the
// same results, bit for bit. The key of an event is fixed when it is scheduled, from what
// schedules it: events of no node (global ones) first, then events that global events or set-up
// scheduled for nodes, then events nodes scheduled (by scheduling node, then in the order that
// node scheduled them: each node numbers the events it schedules), then keyed events
// (ScheduleKeyed: by a key the model chooses). A model keys an event whose scheduling point
// depends on the partitioning: a link's arrivals (armed by the sender, the receiver, or at a
// window's end) and a port's wake (which a partition's window end may replace), so that where
// they were armed from does not matter. Nodes of one partition touch each other's state only in
// ways whose outcome does not depend on the order of their simultaneous events (a frame's
// arrival starts the sender's next frames, which start at their own times whoever starts them).
// One partition runs events as a parallel run's partitions do, not as ns-3's
// DefaultSimulatorImpl (which orders simultaneous events by when they were scheduled).
// It always uses FabricScheduler (the SchedulerType global value does not apply; a
// FabricScheduler factory passed to SetScheduler keeps its attributes).
//
// Which partition runs an event: the partition of its context (a node id, mapped by
// SetPartitionOf; unmapped nodes are in partition 0). Simulator::Schedule keeps the running event's
// partition. Events with no context scheduled outside any partition (before Run, or from such an
// event) are global: they run alone, between windows, with all partitions stopped at their time
// stamp (before the partitions' events of the same time stamp). Failure injection and routing
// reconvergence run so. What a global event schedules without a context is global too, so a
// model that arms its own timers from one would serialise the run while they last: FabricPort's
// wake and the MRC and RoCE QP timers use their node's context (ScheduleForNode); DCQCN's are
// armed only by CNPs, inside partitions.
//
// What models must respect when partitions > 1 (checked where it can be): an event for a node of
// another partition is scheduled with ScheduleWithContext and at least one lookahead ahead (else
// the run aborts, naming both); a model touches another node's state only through such events or
// through a link (FabricChannel hands frames over at window ends); Cancel, Remove, IsExpired and
// GetDelayLeft only for events of the calling partition; a barrier or window-end task schedules
// only keyed events (else the run aborts); no ns-3 Packet is made inside a window
// (ns-3's packet free lists and uid counter are unlocked: a packet trace source or pcap aborts
// the run); trace sinks of other kinds run on the partitions' threads. Simulator::Stop from
// inside a partition takes effect at the end of the window (deterministically); a Stop event
// scheduled before Run is global and exact.
//
// Other threads (a watchdog's, say) may call ScheduleWithContext, as with ns-3's
// DefaultSimulatorImpl: the event joins the run between two events (between two windows when
// partitions > 1), `delay` after the simulated time then, as a global event's would. Across
// ranks, such an event runs at once at the next window's end of its rank only, and may only stop
// the run (Simulator::Stop), which every rank then does at the same point.
//
// Across processes (ranks, SetRanks with a RankLink, e.g. MPI's): every rank builds the scenario
// (a fabric may leave out what only other ranks' nodes touch: FabricNetwork) and runs the same
// global events (the state they touch is replicated), but only its own partitions' events; the
// events set-up or a global event schedules for another rank's nodes are dropped there (that rank
// schedules its own). At each window's end the ranks exchange what
// crosses between them, as bytes: frames on links between ranks (SendToRank), events for another
// rank's node (ScheduleRemote) and global events a node schedules (ScheduleEverywhere: every rank
// runs them, at the same time and in the same order), each made from its bytes by a handler
// registered in the same order on every rank (AddHandler). An event closure cannot cross: a node
// event that schedules one for another rank, or a global one, aborts the run, naming both. The
// partitions run in the same order and with the same keys as in one process, so a run in 2 ranks
// gives the results of one process with 2 partitions, bit for bit. A global event that changes
// another rank's node here changes an idle copy: whatever the copy reports (traces, notices) must
// be left to the node's rank (ScheduleEverywhere does; trace sinks check IsLocal). Outside
// windows, IsFinished is a collective: every rank must call it at the same point.
//
// Leaves out: dynamic load balancing, other calls from threads other than the simulator's, more
// than 2^24 - 2 nodes, more than 2^38 events scheduled by one node.
// Select it with GlobalValue "SimulatorImplementationType" = "ns3::FabricParallelSimulatorImpl",
// then SetPartitions, SetPartitionOf and SetLookahead before scheduling (FabricNetwork::Partition
// does all three for a fabric).
#ifndef MRCSIM_MODELS_FABRIC_PARALLEL_SIMULATOR_H
#define MRCSIM_MODELS_FABRIC_PARALLEL_SIMULATOR_H

#include "models/engine/fabric-scheduler.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"

#include <atomic>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ns3
{

/// \brief What a run across processes needs of its transport between them (MPI's in the runner;
/// the engine knows no MPI). Every rank calls every method at the same point of the run.
class RankLink
{
public:
  virtual ~RankLink() = default;
  virtual uint32_t Rank() const = 0;
  virtual uint32_t Ranks() const = 0;
  /// \brief Sends out[r] to rank r (out[Rank()] is empty) and returns, by rank, what each sent
  /// this one. `out` is the exchange's to free as it goes: a window after a burst of messages can
  /// carry megabytes, and copies of them need not all be held at once.
  virtual std::vector<std::vector<uint8_t>> Exchange(std::vector<std::vector<uint8_t>> out) = 0;
  /// \brief Element-wise minimum (min) or sum (!min) of `values` over the ranks, in place.
  virtual void Reduce(std::vector<uint64_t>& values, bool min) = 0;
};

/// \brief Conservative, window-synchronised parallel simulator (see the file comment).
class FabricParallelSimulatorImpl : public SimulatorImpl
{
public:
  static TypeId GetTypeId();
  FabricParallelSimulatorImpl();
  ~FabricParallelSimulatorImpl() override;

  /// \brief The running simulator implementation, if it is this class; else null.
  static FabricParallelSimulatorImpl* Get();

  /// \brief Splits the run into `n` partitions (at least 1), each run by a thread of its own.
  /// Not while running. Events already pending (ns-3 schedules each node's initialisation
  /// when the node is made) move to their partitions when Run starts.
  void SetPartitions(uint32_t n);
  uint32_t GetPartitions() const { return static_cast<uint32_t>(m_parts.size()); }
  /// \brief Events with context `context` (a node id) run in `partition`. Not while running.
  void SetPartitionOf(uint32_t context, uint32_t partition);
  uint32_t GetPartitionOf(uint32_t context) const
  {
    return context < m_partitionOf.size() ? m_partitionOf[context] : 0;
  }
  /// \brief The smallest delay of any event one partition schedules for another (must be > 0
  /// when partitions > 1).
  void SetLookahead(Time lookahead);
  Time GetLookahead() const { return m_lookahead; }
  /// \brief The rank that runs partition `partition` of `partitions` in a run of `ranks` ranks.
  static uint32_t RankOfPartition(uint32_t partition, uint32_t partitions, uint32_t ranks)
  {
    return static_cast<uint32_t>(uint64_t(partition) * ranks / partitions);
  }
  /// \brief Runs this process as rank link->Rank() of link->Ranks() (see the file comment):
  /// partition i runs on rank i * Ranks() / GetPartitions(), so the partitions must be at least
  /// the ranks. Before scheduling anything; the link must outlive the run.
  void SetRanks(RankLink* link);
  uint32_t GetRank() const { return m_link ? m_link->Rank() : 0; }
  uint32_t GetRanks() const { return m_link ? m_link->Ranks() : 1; }
  /// \brief Whether events of node `context` run in this process.
  bool IsLocal(uint32_t context) const { return RankOf(GetPartitionOf(context)) == GetRank(); }
  /// \brief IsLocal of the running simulator (true with any other simulator, or one process).
  static bool RunsHere(uint32_t context) { return !s_active || !s_active->m_link || s_active->IsLocal(context); }
  /// \brief Element-wise sum over the ranks of `values`, in place (nothing with one rank). From
  /// set-up, a global event or after the run: every rank must call it at the same point.
  static void SumOverRanks(std::vector<uint64_t>& values);
  /// \brief The time of the earliest work pending anywhere (every partition's and global event,
  /// on every rank), besides the global event running: now when work is due at once or waits
  /// for a window's end or barrier, Time::Max() when nothing is pending, and now when the
  /// simulator is not this class (it cannot tell). Until then nothing can change. From a global
  /// event: every rank must call it at the same point.
  static Time NextEventTime();
  /// \brief Per-rank bytes to rank 0: returns every rank's `bytes` on rank 0 (by rank), nothing
  /// elsewhere. After the run; every rank must call it.
  static std::vector<std::vector<uint8_t>> GatherOnRankZero(std::vector<uint8_t> bytes);

  /// \brief What makes an event from bytes sent between ranks: fn(object, context, bytes), run
  /// as the event (or, for SendToRank, at the barrier).
  using Handler = void (*)(void* object, uint32_t context, const std::vector<uint8_t>& bytes);
  /// \brief Registers a handler on this simulator; returns its kind. Every rank must register
  /// the same handlers in the same order (at set-up).
  uint32_t AddHandler(Handler fn, void* object);
  /// \brief Registers a handler of every simulator made from now on (at load time: static
  /// initialisation, so that every rank's kinds agree); its object is null.
  static uint32_t AddHandlerAtLoad(Handler fn);
  /// \brief A global event node `node` causes, `delay` from now (at least a lookahead from inside
  /// a window), running handler `kind` on `bytes` on every rank (see the file comment). From the
  /// node's event; or from set-up or a global event touching the node's state (a link failure
  /// failing a QP, say), where only the node's rank schedules it, numbered by the node, and
  /// sends it to the others at the next window's end. Needs this simulator.
  static void ScheduleEverywhere(uint32_t node, uint32_t kind, const Time& delay, std::vector<uint8_t> bytes);
  /// \brief An event of node `context`, `delay` from now (at least a lookahead when the node is
  /// in another partition), running handler `kind` on `bytes` on the node's rank. With any other
  /// simulator, Simulator::ScheduleWithContext (of a handler registered at load time).
  static void ScheduleRemote(uint32_t kind, uint32_t context, const Time& delay, std::vector<uint8_t> bytes);
  /// \brief From a barrier task: runs handler `kind` on `bytes` at this window's barrier on the
  /// rank of node `context` (at once if it is this one). Messages from one rank arrive in the
  /// order sent.
  static void SendToRank(uint32_t kind, uint32_t context, std::vector<uint8_t> bytes);

  /// \brief Windows run so far (one per synchronisation of the partitions).
  uint64_t GetWindows() const { return m_windows; }
  /// \brief Wall-clock seconds partition `i` spent waiting for the others at window ends (a
  /// measure of imbalance; not a simulation result).
  double GetWaitSeconds(uint32_t i) const { return m_parts[i]->waitSeconds; }

  /// \brief Work to do at the end of the current window, on one thread, once all partitions have
  /// stopped: fn(object, argument). Tasks run in partition order, then in the order deferred.
  /// Outside a partition's window (one partition, or a global event) it runs at once.
  using BarrierTask = void (*)(void* object, uint32_t argument);
  static void DeferToBarrier(BarrierTask fn, void* object, uint32_t argument);
  /// \brief Work for the thread of node `context`'s partition once it has run a window's events,
  /// with its clock at the window's end (before the barrier, in parallel with the other
  /// partitions): the current window's, from inside it (the caller's partition must own the
  /// node), or the next one's, with the partitions stopped (a global event, a barrier). Each task
  /// runs once; it may defer itself again, to the next window's end. A deferred task keeps the
  /// run going (as an event would). Only when IsParallel().
  static void DeferToWindowEndOf(uint32_t context, BarrierTask fn, void* object, uint32_t argument);
  /// \brief Whether the running simulator is this class with more than one partition.
  static bool IsParallel() { return s_active && s_active->m_parts.size() > 1; }
  /// \brief Whether the calling thread runs one partition of several (so that state shared
  /// with other partitions must wait for the barrier).
  static bool InParallelWindow();
  /// \brief The partition whose event or task the calling thread runs: 0 outside a parallel
  /// window (one partition, set-up, global events, barriers) and with any other simulator.
  static uint32_t CurrentPartition() { return t_current && t_current->parallel ? t_current->index : 0; }

  /// \brief Hooks of per-thread resources (a model's object pools): `onThreadStart(i)` runs on
  /// partition i's thread before it runs any event, `onBarrier()` at every window's end on one
  /// thread, after remote events are handed over and before deferred tasks. Registered at load
  /// time (static initialisation), so the engine knows no model type.
  struct ThreadHooks
  {
    void (*onThreadStart)(uint32_t partition);
    void (*onBarrier)();
  };
  static void RegisterThreadHooks(ThreadHooks hooks);

  /// \brief As Simulator::Schedule (the returned EventId cancels it), for an event of node
  /// `context`'s own: scheduled from a global event or at set-up of a parallel run, it goes to
  /// the node's partition instead of staying global (a timer armed by a link failure, say, would
  /// otherwise serialise the run). With any other simulator, or inside a partition, it is
  /// Simulator::Schedule.
  static EventId ScheduleForNode(uint32_t context, const Time& delay, EventImpl* event);

  /// \brief How many events of no node (global events) set-up and global events have scheduled
  /// so far (0 with another simulator). Global events of one time stamp run in the order they were
  /// scheduled, before anything else of that time stamp, so those scheduled while this stood
  /// still are consecutive: a model may run them as one event (NetworkService batches posts).
  static uint64_t GlobalEventsScheduled();

  /// \brief The kinds of keyed events: each has a key space of its own, so that keys of different
  /// kinds never meet (at most 4).
  enum class KeySpace : uint64_t
  {
    LinkArrival = 0, ///< a link direction's arrivals: object the link's id, part the direction
    PortWake = 1,    ///< a port's wake: object the node's id, part the port's index
  };
  /// \brief As Simulator::ScheduleWithContext, ordered among the events of its time stamp by its
  /// key (after all unkeyed events; see the file comment) instead of by where it was scheduled
  /// from: part `part` (below 2^24) of object `object` (below 2^36) in `space`, keys ordered by
  /// (space, object, part). Keys must be unique among the pending events of one time stamp: a
  /// model names the object that schedules (an id of its own) and keeps at most one such event
  /// pending per key. With any other simulator it is Simulator::ScheduleWithContext.
  static void ScheduleKeyed(uint32_t context,
                            const Time& delay,
                            EventImpl* event,
                            KeySpace space,
                            uint64_t object,
                            uint32_t part);

  // SimulatorImpl
  void Destroy() override;
  bool IsFinished() const override;
  void Stop() override;
  void Stop(const Time& delay) override;
  EventId Schedule(const Time& delay, EventImpl* event) override;
  void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
  EventId ScheduleNow(EventImpl* event) override;
  EventId ScheduleDestroy(EventImpl* event) override;
  void Remove(const EventId& id) override;
  void Cancel(const EventId& id) override;
  bool IsExpired(const EventId& id) const override;
  void Run() override;
  Time Now() const override;
  Time GetDelayLeft(const EventId& id) const override;
  Time GetMaximumSimulationTime() const override;
  void SetScheduler(ObjectFactory schedulerFactory) override;
  uint32_t GetSystemId() const override;
  uint32_t GetContext() const override;
  uint64_t GetEventCount() const override;

private:
  void DoDispose() override;

  /// \brief A partition: its events and its clock. m_parts[i] for partition i; m_global for the
  /// global events (see the file comment).
  struct alignas(64) Partition // line-aligned: the partitions' threads write their own
  {
    uint32_t index = 0;
    bool parallel = false; ///< one of several partitions, each on a thread of its own
    bool local = true;     ///< runs in this process (see SetRanks)
    Ptr<FabricScheduler> events;
    uint64_t currentTs = 0;
    uint64_t currentOrder = 0; ///< of the event running or run last (IsExpired)
    uint32_t currentContext = 0;
    uint64_t eventCount = 0;
    double waitSeconds = 0; ///< wall time spent waiting at window ends
    /// Events for other partitions, handed over at the end of the window.
    struct Remote
    {
      uint32_t partition; ///< m_parts index, or kGlobal
      uint32_t context;
      uint64_t ts;
      uint64_t order;
      EventImpl* impl;
    };
    std::vector<Remote> outbox;
    /// Events for other ranks (ScheduleRemote, ScheduleEverywhere), sent at the window's end.
    std::vector<uint8_t> toRanks;
    struct Task
    {
      BarrierTask fn;
      void* object;
      uint32_t argument;
    };
    std::vector<Task> tasks;     ///< for the barrier
    std::vector<Task> windowEnd; ///< for the end of the window, on this partition's thread
  };
  static constexpr uint32_t kGlobal = ~0u;
  /// The context a barrier or window-end task runs with: it has no node to number its events.
  static constexpr uint32_t kTaskContext = ~1u;
  /// Order key layout (see the file comment): class in the top 2 bits; for unkeyed events the
  /// scheduling node + 1 (0: none) in the next kSourceBits, its sequence number in the low kSeqBits.
  static constexpr unsigned kSeqBits = 38;
  static constexpr unsigned kSourceBits = 24;
  static constexpr uint64_t kGlobalClass = uint64_t(0) << 62;   ///< events of no node
  static constexpr uint64_t kFromGlobalClass = uint64_t(1) << 62; ///< scheduled by set-up or a global event
  static constexpr uint64_t kFromNodeClass = uint64_t(2) << 62; ///< scheduled by a node's event
  static constexpr uint64_t kKeyedClass = uint64_t(3) << 62;    ///< ScheduleKeyed
  /// \brief The order key of an event for `target` scheduled now by p's running event.
  uint64_t NextOrder(const Partition& p, uint32_t target);
  /// \brief The sequence counter of node `context` (growing the table outside parallel windows).
  uint64_t& NodeSeq(uint32_t context)
  {
    return context < m_nodeSeq.size() ? m_nodeSeq[context] : GrowNodeSeq(context);
  }
  uint64_t& GrowNodeSeq(uint32_t context);
  /// \brief Routes an event with its order to the partition owning `context` (through p's
  /// outbox inside a parallel window, checking the lookahead).
  void Route(Partition& p, uint32_t context, const Time& delay, uint64_t order, EventImpl* event);
  static EventId IdOf(EventImpl* event, uint64_t ts, uint64_t order)
  {
    return EventId(event, ts, static_cast<uint32_t>(order >> 32), static_cast<uint32_t>(order));
  }
  static uint64_t OrderOf(const EventId& id) { return uint64_t(id.GetContext()) << 32 | id.GetUid(); }
  static bool IsDestroyId(const EventId& id)
  {
    return id.GetUid() == EventId::UID::DESTROY && id.GetContext() == 0xffffffffu;
  }
  /// The partition the calling thread runs (the global one on the main thread between windows,
  /// when partitions > 1). Initial-exec: Now() reads it with one %fs-relative load.
  __attribute__((tls_model("initial-exec"))) static inline thread_local Partition* t_current = nullptr;
  /// The simulator implementation alive now, if it is this class (ScheduleForNode).
  static inline FabricParallelSimulatorImpl* s_active = nullptr;

  Partition& PartitionFor(uint32_t index) { return index == kGlobal ? m_global : *m_parts[index]; }
  uint32_t RankOf(uint32_t partition) const
  {
    return m_link ? RankOfPartition(partition, static_cast<uint32_t>(m_parts.size()), m_link->Ranks()) : 0;
  }
  /// \brief Whether partition `index` (or the global one) runs here.
  bool IsLocalPartition(uint32_t index) const { return index == kGlobal || m_parts[index]->local; }
  /// \brief An event that runs handler `kind` on `bytes`.
  EventImpl* MakeHandlerEvent(uint32_t kind, uint32_t context, std::vector<uint8_t> bytes);
  /// A rank's outgoing buffer keeps at most this much capacity from one window to the next.
  static constexpr std::size_t kKeptBufferBytes = std::size_t(1) << 20;
  /// \brief Appends one message for another rank to `out` (see ExchangeRanks).
  static void PutMessage(std::vector<uint8_t>& out,
                         uint32_t rank,
                         uint8_t type,
                         uint32_t kind,
                         uint32_t context,
                         uint64_t ts,
                         uint64_t order,
                         const std::vector<uint8_t>& bytes);
  /// \brief Sends every partition's and the barrier's messages to their ranks and takes in
  /// theirs (one thread, all partitions stopped).
  void ExchangeRanks();

  /// \brief The partitions, then the global one.
  std::vector<Partition*> AllPartitions();
  /// \brief The partition that owns events of `context` (the global one for NO_CONTEXT when
  /// partitions > 1).
  uint32_t OwnerOf(uint32_t context) const;
  /// \brief A new event heap (m_schedulerFactory's FabricScheduler).
  Ptr<FabricScheduler> NewHeap() const;
  /// \brief Moves every event of `from` (if any) to `into`, keeping its key.
  static void MoveEvents(Ptr<FabricScheduler>& from, FabricScheduler& into);
  void ProcessOneEvent(Partition& p);
  /// \brief Runs partition p's events earlier than `end` (stopping early on Stop when alone).
  void RunUntil(Partition& p, uint64_t end);
  /// \brief Hands over outboxes and runs barrier tasks (one thread, all partitions stopped).
  void Synchronise(uint64_t now);
  void RunParallel();
  /// \brief Moves every pending event to the partition that owns it now (after the partition
  /// count or the mapping changed), keeping their order.
  void Redistribute();
  void WorkerLoop(uint32_t index, uint64_t generation);
  /// \brief Moves the events other threads scheduled into the run (one thread running).
  void TakeForeign();
  void StopWorkers();

  std::vector<std::unique_ptr<Partition>> m_parts;
  Partition m_global;
  RankLink* m_link = nullptr; ///< null: one process
  struct HandlerEntry
  {
    Handler fn;
    void* object;
  };
  std::vector<HandlerEntry> m_handlers;
  /// The thread hooks registered (RegisterThreadHooks).
  static std::vector<ThreadHooks>& Hooks();
  /// The handlers registered at load time (AddHandlerAtLoad), which every simulator starts with.
  static std::vector<Handler>& LoadHandlers();
  std::vector<uint8_t> m_barrierToRanks; ///< SendToRank's messages of this window
  std::vector<uint32_t> m_partitionOf; ///< by context (node id)
  Time m_lookahead;
  ObjectFactory m_schedulerFactory;
  std::list<EventId> m_destroyEvents;
  std::atomic<bool> m_stop{ false };
  uint64_t m_windows = 0;
  bool m_redistribute = false; ///< pending events may sit in the wrong partition
  uint64_t m_globalSeq = 0;    ///< sequence of events scheduled by set-up and global events
  uint64_t m_globalEvents = 0; ///< those of them that are global events (GlobalEventsScheduled)
  std::vector<uint64_t> m_nodeSeq; ///< sequence of events each node scheduled, by context
  /// Events scheduled by threads other than the simulator's, waiting for TakeForeign.
  struct Foreign
  {
    uint32_t context;
    Time delay;
    EventImpl* impl;
  };
  std::mutex m_foreignMutex;
  std::vector<Foreign> m_foreign;
  std::atomic<bool> m_foreignPending{ false };

  // Workers: partition i > 0 runs on m_workers[i - 1]. Each window the main thread publishes
  // its end (m_windowEnd), bumps m_generation and waits until m_running is back to zero.
  std::vector<std::thread> m_workers;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::condition_variable m_done;
  uint64_t m_generation = 0;
  uint64_t m_windowEnd = 0;
  uint32_t m_running = 0;
  bool m_quit = false;
};

} // namespace ns3

#endif // MRCSIM_MODELS_FABRIC_PARALLEL_SIMULATOR_H
