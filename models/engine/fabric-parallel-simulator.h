// An ns-3 simulator implementation that runs a fabric's nodes in partitions, one thread each,
// synchronised conservatively in windows of one lookahead (the shortest delay of a link between
// partitions): every event a partition schedules for another is at least one lookahead ahead, so
// within a window the partitions cannot affect one another and run in parallel. At the end of a
// window, on one thread, events and link traffic for other partitions are handed over, in partition
// order, so a run is bit-identical from one run to the next and on any machine.
//
// With one partition (the default) it behaves exactly as ns-3's DefaultSimulatorImpl: same event
// order (time stamp, then uid), same uids, same event count. With more, each partition orders its
// own events by (time stamp, uid) with uids of its own, so runs with different partition counts
// deliver the same traffic but may order simultaneous events differently (and so, for example,
// coalesce SACKs differently). A lossy link between partitions draws its losses at window ends,
// in hand-over order: the same rate, not the same packets as with one partition.
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
// GetDelayLeft only for events of the calling partition; no ns-3 Packet is made inside a window
// (ns-3's packet free lists and uid counter are unlocked: a packet trace source or pcap aborts
// the run); trace sinks of other kinds run on the partitions' threads. Simulator::Stop from
// inside a partition takes effect at the end of the window (deterministically); a Stop event
// scheduled before Run is global and exact.
//
// Leaves out: partitioning across processes (MPI), dynamic load balancing, scheduling from
// threads other than the simulator's.
// Select it with GlobalValue "SimulatorImplementationType" = "ns3::FabricParallelSimulatorImpl",
// then SetPartitions, SetPartitionOf and SetLookahead before scheduling (FabricNetwork::Partition
// does all three for a fabric).
#ifndef MRCSIM_MODELS_FABRIC_PARALLEL_SIMULATOR_H
#define MRCSIM_MODELS_FABRIC_PARALLEL_SIMULATOR_H

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
  /// \brief Work for the calling partition's thread once it has run the window's events, with
  /// its clock at the window's end (before the barrier, in parallel with the other partitions).
  /// Each task runs once; it may defer itself again, to the next window's end. A deferred task
  /// keeps the run going (as an event would). Only inside a partition's window (InParallelWindow).
  static void DeferToWindowEnd(BarrierTask fn, void* object, uint32_t argument);
  /// \brief Whether the calling thread runs one partition of several (so that state shared
  /// with other partitions must wait for the barrier).
  static bool InParallelWindow();

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
    Ptr<Scheduler> events;
    uint64_t currentTs = 0;
    uint32_t currentUid = 0;
    uint32_t currentContext = 0;
    /// The counter this partition's uids come from: its own (ownUid) while running, one shared by
    /// all partitions before the first parallel Run, so that events scheduled at set-up keep
    /// unique uids (and their EventIds stay valid) when Run moves them to their partitions.
    uint32_t ownUid = 4; ///< next uid (0-3 are EventId's reserved values), as in DefaultSimulatorImpl
    uint32_t* uid = &ownUid;
    uint64_t eventCount = 0;
    double waitSeconds = 0; ///< wall time spent waiting at window ends
    /// Events for other partitions, handed over at the end of the window.
    struct Remote
    {
      uint32_t partition; ///< m_parts index, or kGlobal
      uint32_t context;
      uint64_t ts;
      EventImpl* impl;
    };
    std::vector<Remote> outbox;
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
  /// The partition the calling thread runs (the global one on the main thread between windows,
  /// when partitions > 1). Initial-exec: Now() reads it with one %fs-relative load.
  __attribute__((tls_model("initial-exec"))) static inline thread_local Partition* t_current = nullptr;
  /// The simulator implementation alive now, if it is this class (ScheduleForNode).
  static inline FabricParallelSimulatorImpl* s_active = nullptr;

  Partition& PartitionFor(uint32_t index) { return index == kGlobal ? m_global : *m_parts[index]; }
  /// \brief The partitions, then the global one.
  std::vector<Partition*> AllPartitions();
  /// \brief The partition that owns events of `context` (the global one for NO_CONTEXT when
  /// partitions > 1).
  uint32_t OwnerOf(uint32_t context) const;
  const Partition& OwnerOfEvent(const EventId& id) const;
  /// \brief Puts `event` in p's heap with the next uid of p's counter; returns the uid.
  uint32_t Enqueue(Partition& p, uint64_t ts, uint32_t context, EventImpl* event);
  /// \brief Enqueue, and the EventId of the event.
  EventId Insert(Partition& p, uint64_t ts, uint32_t context, EventImpl* event);
  /// \brief Moves every event of `from` (if any) to `into`, keeping its key.
  static void MoveEvents(Ptr<Scheduler>& from, Scheduler& into);
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
  void StopWorkers();

  std::vector<std::unique_ptr<Partition>> m_parts;
  Partition m_global;
  std::vector<uint32_t> m_partitionOf; ///< by context (node id)
  Time m_lookahead;
  ObjectFactory m_schedulerFactory;
  std::list<EventId> m_destroyEvents;
  std::atomic<bool> m_stop{ false };
  uint64_t m_windows = 0;
  bool m_redistribute = false; ///< pending events may sit in the wrong partition
  uint32_t m_setupUid = 4;     ///< the shared uid counter of set-up (see Partition::uid)

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
