// FabricParallelSimulatorImpl: every node runs its events in the same order whatever the number
// of partitions and the mapping of nodes to them; events handed between partitions at their exact
// time, global events alone between windows, Stop, and a partitioned MRC permutation that
// completes, repeats bit-identically and agrees with the one-partition run.
#include "tests/models/fabric-test-fixture.h"

#include "models/fabric/fabric-frame.h"
#include "models/engine/fabric-parallel-simulator.h"
#include "models/mrc/mrc-queue-pair.h"
#include "models/mrc/mrc-connect.h"
#include "models/engine/splitmix.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/make-event.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// Makes the simulator a FabricParallelSimulatorImpl for the scope, then ns-3's default again.
class ParallelSimulator
{
public:
  explicit ParallelSimulator(const std::string& scheduler = "ns3::FabricScheduler")
  {
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricParallelSimulatorImpl"));
    ObjectFactory factory;
    factory.SetTypeId(scheduler);
    Simulator::SetScheduler(factory);
  }
  ~ParallelSimulator()
  {
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
  }
  ParallelSimulator(const ParallelSimulator&) = delete;
  ParallelSimulator& operator=(const ParallelSimulator&) = delete;

  FabricParallelSimulatorImpl& Impl() const { return *FabricParallelSimulatorImpl::Get(); }
};

/// An actor on node `context` of a partitioned run: ticks every 100 ns until `until`, and on
/// every third tick sends an event to `peer` (another node) one lookahead plus a few ns ahead.
/// Each actor only writes its own log, so partitions never share what they write.
struct Actor
{
  uint32_t context = 0;
  uint32_t peer = 0;
  Time lookahead;
  Time until;
  uint32_t ticks = 0;
  std::vector<std::tuple<int64_t, int, uint32_t>> log; ///< (time, kind: 0 tick, 1 received, tag)
  std::vector<int64_t> expected;                       ///< when sent events are due at the peer
  std::thread::id thread;
  Actor* peerActor = nullptr;
  uint32_t wrongContext = 0; ///< events that ran with another context (checked after the run:
                             ///< a failed REQUIRE on a partition's thread would only terminate)

  void Tick()
  {
    thread = std::this_thread::get_id();
    wrongContext += Simulator::GetContext() != context;
    log.emplace_back(Simulator::Now().GetTimeStep(), 0, ticks);
    if (ticks % 3 == 0)
    {
      const Time delay = lookahead + NanoSeconds(ticks % 5);
      expected.push_back((Simulator::Now() + delay).GetTimeStep());
      Simulator::ScheduleWithContext(peer, delay, &Actor::Receive, peerActor, ticks);
    }
    ++ticks;
    if (Simulator::Now() + NanoSeconds(100) < until)
    {
      Simulator::Schedule(NanoSeconds(100), &Actor::Tick, this);
    }
  }

  void Receive(uint32_t tag)
  {
    wrongContext += Simulator::GetContext() != context;
    log.emplace_back(Simulator::Now().GetTimeStep(), 1, tag);
  }
};

/// Two partitions (nodes 1 and 2, lookahead 1 us) and an actor on each, ticking from `stagger`
/// times its index until `until`.
void
StartTwoActors(FabricParallelSimulatorImpl& impl, std::vector<Actor>& actors, Time until, Time stagger)
{
  impl.SetPartitions(2);
  impl.SetPartitionOf(1, 0);
  impl.SetPartitionOf(2, 1);
  impl.SetLookahead(MicroSeconds(1));
  actors.resize(2);
  for (uint32_t i = 0; i < 2; ++i)
  {
    actors[i].context = i + 1;
    actors[i].peer = 2 - i;
    actors[i].lookahead = MicroSeconds(1);
    actors[i].until = until;
    actors[i].peerActor = &actors[1 - i];
    Simulator::ScheduleWithContext(actors[i].context, stagger * int64_t(i), &Actor::Tick, &actors[i]);
  }
}

/// Node `self` of a web of nodes that schedule for themselves (often at the same time stamp) and
/// for each other (one lookahead plus 0-3 ns ahead, so that events from several nodes meet), and
/// cancel some of their own events. Each node logs what it runs and draws from its own RNG: its
/// log is the same in any partitioning exactly when its events run in the same order.
struct WebNode
{
  uint32_t self = 0;
  std::vector<WebNode>* web = nullptr;
  uint64_t rng = 0;
  uint32_t sent = 0;
  std::vector<std::tuple<int64_t, uint32_t, uint32_t>> log; ///< (time, from node, its tag)
  std::vector<EventId> own;

  void Run(uint32_t from, uint32_t tag)
  {
    log.emplace_back(Simulator::Now().GetTimeStep(), from, tag);
    const uint64_t r = SplitMix64(rng);
    if (r % 5 == 0 && !own.empty())
    {
      // Run or pending: either way well defined.
      const EventId& id = own[(r >> 8) % own.size()];
      (r >> 3) % 2 ? Simulator::Cancel(id) : Simulator::Remove(id);
    }
    if (sent >= 3000)
    {
      return;
    }
    for (uint32_t i = 0, n = 1 + (r >> 20) % 2; i < n; ++i)
    {
      own.push_back(Simulator::Schedule(NanoSeconds((r >> (24 + 2 * i)) % 3), &WebNode::Run, this, self, sent++));
    }
    if ((r >> 40) % 3 == 0)
    {
      WebNode& to = (*web)[(r >> 44) % web->size()];
      Simulator::ScheduleWithContext(to.self, MicroSeconds(1) + NanoSeconds((r >> 50) % 4), &WebNode::Run, &to, self,
                                     sent++);
    }
  }
};

/// Runs a web of 8 nodes (contexts 1 to 8) with `parts` partitions, node i in partOf(i); the
/// nodes' logs.
template<typename PartOf>
std::vector<std::vector<std::tuple<int64_t, uint32_t, uint32_t>>>
RunWeb(uint32_t parts, PartOf partOf)
{
  ParallelSimulator sim;
  std::vector<WebNode> web(8);
  sim.Impl().SetPartitions(parts);
  sim.Impl().SetLookahead(MicroSeconds(1));
  for (uint32_t i = 0; i < web.size(); ++i)
  {
    web[i].self = i + 1;
    web[i].web = &web;
    web[i].rng = 100 + i;
    if (parts > 1)
    {
      sim.Impl().SetPartitionOf(i + 1, partOf(i));
    }
    // Two starts per node, the second at the same time stamp as another node's first.
    Simulator::ScheduleWithContext(i + 1, NanoSeconds(i % 3), &WebNode::Run, &web[i], 0u, ~0u);
    Simulator::ScheduleWithContext(i + 1, NanoSeconds((i + 1) % 3), &WebNode::Run, &web[i], 0u, ~1u);
  }
  Simulator::Run();
  std::vector<std::vector<std::tuple<int64_t, uint32_t, uint32_t>>> logs;
  for (const WebNode& n : web)
  {
    logs.push_back(n.log);
  }
  return logs;
}

} // namespace

TEST_CASE("parallel simulator: every node runs its events in the same order with 1, 2, 3 or 8 partitions",
          "[parallel]")
{
  const auto one = RunWeb(1, [](uint32_t) { return 0u; });
  std::size_t events = 0;
  for (const auto& log : one)
  {
    events += log.size();
    REQUIRE(log.size() > 1000);
  }
  INFO(events << " events");
  CHECK(RunWeb(2, [](uint32_t i) { return i % 2; }) == one);
  CHECK(RunWeb(2, [](uint32_t i) { return i / 4; }) == one);
  CHECK(RunWeb(3, [](uint32_t i) { return (i * 7) % 3; }) == one);
  CHECK(RunWeb(8, [](uint32_t i) { return i; }) == one);
}

TEST_CASE("parallel simulator: events of one time stamp from one node run in the order it scheduled them",
          "[parallel]")
{
  ParallelSimulator sim;
  std::vector<int> order;
  Simulator::ScheduleWithContext(3, NanoSeconds(5),
                                 [&order]
                                 {
                                   for (int i = 0; i < 4; ++i)
                                   {
                                     i % 2 ? Simulator::ScheduleNow([&order, i] { order.push_back(i); })
                                           : Simulator::Schedule(Time(0), [&order, i] { order.push_back(i); });
                                   }
                                 });
  Simulator::Run();
  CHECK(order == std::vector<int>{ 0, 1, 2, 3 });
}

TEST_CASE("parallel simulator: partitions run on their own threads and receive each other's events at their time",
          "[parallel]")
{
  auto runOnce = [](std::vector<Actor>& actors)
  {
    ParallelSimulator sim;
    FabricParallelSimulatorImpl& impl = sim.Impl();
    StartTwoActors(impl, actors, MicroSeconds(20), NanoSeconds(1));
    Simulator::Run();
    const uint64_t events = Simulator::GetEventCount();
    const uint64_t windows = impl.GetWindows();
    return std::make_pair(events, windows);
  };
  std::vector<Actor> a;
  const auto [events, windows] = runOnce(a);
  // 20 us of events in windows of one lookahead (1 us), each starting at the earliest event
  CHECK(windows >= 20);
  CHECK(windows <= 21);
  CHECK(a[0].thread != a[1].thread);
  CHECK((a[0].thread == std::this_thread::get_id() || a[1].thread == std::this_thread::get_id()));
  for (uint32_t i = 0; i < 2; ++i)
  {
    CHECK(a[i].ticks == 200);
    CHECK(a[i].wrongContext == 0);
    // Every event sent to this actor ran at its time stamp, in time order.
    std::vector<int64_t> received;
    for (const auto& [t, kind, tag] : a[i].log)
    {
      if (kind == 1)
      {
        received.push_back(t);
      }
    }
    CHECK(received == a[1 - i].expected);
    CHECK(std::is_sorted(
      a[i].log.begin(), a[i].log.end(), [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); }));
  }
  CHECK(events == a[0].log.size() + a[1].log.size());

  SECTION("and a second run is identical")
  {
    std::vector<Actor> b;
    const auto again = runOnce(b);
    CHECK(again.first == events);
    CHECK(again.second == windows);
    CHECK(b[0].log == a[0].log);
    CHECK(b[1].log == a[1].log);
  }
}

namespace
{

struct Probe
{
  std::vector<Actor>* actors = nullptr;
  std::vector<uint32_t> seen; ///< ticks of each actor when the global event ran
  std::thread::id thread;
  void Look()
  {
    thread = std::this_thread::get_id();
    for (const Actor& a : *actors)
    {
      seen.push_back(a.ticks);
    }
  }
};

} // namespace

TEST_CASE("parallel simulator: a global event runs alone, after the partitions' earlier events and before their "
          "simultaneous ones; Stop ends the run at its time",
          "[parallel]")
{
  ParallelSimulator sim;
  std::vector<Actor> actors;
  StartTwoActors(sim.Impl(), actors, MicroSeconds(50), Time(0));
  Probe probe;
  probe.actors = &actors;
  // Scheduled outside any partition with no context: global. Ticks are at 0, 100, ... ns: at
  // 2.5 us, 25 ticks have run (0 .. 2.4 us), the one at 2.5 us has not.
  Simulator::Schedule(NanoSeconds(2500), &Probe::Look, &probe);
  Simulator::Stop(MicroSeconds(10));
  Simulator::Run();
  CHECK(probe.seen == std::vector<uint32_t>{ 25, 25 });
  CHECK(probe.thread == std::this_thread::get_id());
  // Stopped at 10 us: ticks at 0 .. 9.9 us ran.
  CHECK(actors[0].ticks == 100);
  CHECK(actors[1].ticks == 100);
  CHECK(Simulator::Now() == MicroSeconds(10));
}

TEST_CASE("parallel simulator: GlobalEventsScheduled counts the global events set-up and global events schedule, "
          "and nothing else",
          "[parallel]")
{
  ParallelSimulator sim;
  const uint64_t start = FabricParallelSimulatorImpl::GlobalEventsScheduled();
  std::vector<uint64_t> seen;
  auto look = [&seen] { seen.push_back(FabricParallelSimulatorImpl::GlobalEventsScheduled()); };
  Simulator::Schedule(NanoSeconds(10), look); // global, from set-up: counted
  Simulator::ScheduleWithContext(3, NanoSeconds(10), [] {}); // a node's event: not counted
  CHECK(FabricParallelSimulatorImpl::GlobalEventsScheduled() == start + 1);
  Simulator::Schedule(NanoSeconds(20),
                      [&]
                      {
                        look();
                        Simulator::Schedule(NanoSeconds(5), look); // global, from a global event
                        Simulator::ScheduleWithContext(4, NanoSeconds(5), [] {}); // for a node
                        look();
                      });
  // A node's events schedule no global event here: the count moves only with the two above.
  Simulator::ScheduleWithContext(5, NanoSeconds(30), [&] { Simulator::ScheduleWithContext(5, NanoSeconds(1), [] {}); });
  Simulator::Run();
  CHECK(seen == std::vector<uint64_t>{ start + 2, start + 2, start + 3, start + 3 });
}

TEST_CASE("parallel simulator: EventIds taken before the partitions were set still cancel their events", "[parallel]")
{
  ParallelSimulator sim;
  bool fired = false;
  bool runningWhenCancelled = false;
  // Both at 10 ns with no context (global once partitioned); the canceller was scheduled first,
  // so it runs first. Partitioning moves both: their EventIds must still name them.
  EventId timer;
  Simulator::Schedule(NanoSeconds(10),
                      [&]
                      {
                        runningWhenCancelled = timer.IsRunning();
                        Simulator::Cancel(timer);
                      });
  timer = Simulator::Schedule(NanoSeconds(10), [&] { fired = true; });
  // And a node's event in partition 1, so that there are partitions to move to.
  bool nodeRan = false;
  Simulator::ScheduleWithContext(2, NanoSeconds(20), [&] { nodeRan = true; });
  FabricParallelSimulatorImpl& impl = sim.Impl();
  impl.SetPartitions(2);
  impl.SetPartitionOf(1, 0);
  impl.SetPartitionOf(2, 1);
  impl.SetLookahead(MicroSeconds(1));
  Simulator::Run();
  CHECK(runningWhenCancelled);
  CHECK_FALSE(fired);
  CHECK(nodeRan);
  CHECK(Simulator::GetEventCount() == 3);
}

TEST_CASE("parallel simulator: a node's timer armed by a global event runs in the node's partition", "[parallel]")
{
  ParallelSimulator sim;
  std::vector<Actor> actors;
  StartTwoActors(sim.Impl(), actors, MicroSeconds(5), Time(0));
  struct Timer
  {
    uint32_t context = 0;
    std::thread::id thread;
    int64_t at = -1;
    bool cancelled = false;
  } timer;
  // A global event (scheduled at set-up, no context) arms a timer of node 2, and one it cancels.
  Simulator::Schedule(NanoSeconds(1500),
                      [&timer]
                      {
                        FabricParallelSimulatorImpl::ScheduleForNode(2,
                                                                     NanoSeconds(250),
                                                                     MakeEvent(
                                                                       [&timer]
                                                                       {
                                                                         timer.context = Simulator::GetContext();
                                                                         timer.thread = std::this_thread::get_id();
                                                                         timer.at = Simulator::Now().GetTimeStep();
                                                                       }));
                        EventId doomed = FabricParallelSimulatorImpl::ScheduleForNode(2,
                                                                                      NanoSeconds(300),
                                                                                      MakeEvent(
                                                                                        [&timer]
                                                                                        {
                                                                                          timer.cancelled =
                                                                                            false; // must not run
                                                                                        }));
                        timer.cancelled = true;
                        Simulator::Cancel(doomed);
                      });
  Simulator::Run();
  CHECK(timer.context == 2);
  CHECK(timer.at == NanoSeconds(1750).GetTimeStep());
  CHECK(timer.thread == actors[1].thread); // node 2's partition's thread
  CHECK(timer.thread != std::this_thread::get_id());
  CHECK(timer.cancelled);
}

TEST_CASE("frame pools: frames freed on another thread go back where they are short", "[parallel]")
{
  const uint64_t live = FramePtr::Live();
  std::vector<FramePtr> frames;
  for (int i = 0; i < 20000; ++i)
  {
    frames.push_back(FramePtr::Make()); // from pool 0 (this thread's)
  }
  std::thread other(
    [&frames]
    {
      FramePtr::UsePool(1);
      frames.clear(); // returned to pool 1
    });
  other.join();
  CHECK(FramePtr::Live() == live);
  std::vector<int64_t> free = FramePtr::FreePerPool();
  REQUIRE(free.size() >= 2);
  CHECK(free[1] >= 20000);
  FramePtr::BalancePools();
  const std::vector<int64_t> balanced = FramePtr::FreePerPool();
  REQUIRE(balanced.size() == free.size());
  int64_t total = 0;
  for (std::size_t i = 0; i < free.size(); ++i)
  {
    total += free[i];
    CHECK(balanced[i] <= *std::min_element(balanced.begin(), balanced.end()) + 2048 + 1);
  }
  int64_t after = 0;
  for (int64_t f : balanced)
  {
    after += f;
  }
  CHECK(after == total); // moved, not lost or made
}

namespace
{

struct PermResult
{
  std::vector<int64_t> done; ///< completion time of each flow (time steps), -1 if none
  uint64_t hops = 0;
  uint64_t dataPackets = 0;
};

void
FlowDone(int64_t* slot, uint32_t, uint64_t, uint64_t, Time)
{
  *slot = Simulator::Now().GetTimeStep();
}

/// MRC on a random permutation of a preset's fabric, `bytes` per flow, in `partitions`; only
/// flow 0 (GPU 0 to the last GPU) if `single`.
PermResult
RunPermutation(const std::string& preset, uint32_t partitions, uint64_t bytes, bool single = false, bool lazy = true)
{
  ParallelSimulator sim;
  Config::SetDefault("ns3::FabricPort::LazyStart", BooleanValue(lazy));
  mrcsim::test::FabricFixture fx(mrcsim::PresetSpec(preset));
  FabricNetwork& net = *fx.net;
  net.GetLastHopPortConfig()->SetAttribute("EcnEnabled", BooleanValue(false));
  const uint32_t crossing = net.Partition(partitions);
  CHECK((partitions == 1) == (crossing == 0));
  const uint32_t n = static_cast<uint32_t>(fx.fabric->NumGpus());
  PermResult r;
  r.done.assign(n, -1);
  std::vector<Ptr<MrcQueuePair>> senders;
  uint64_t rng = 5;
  for (uint32_t g = 0; g < (single ? 1 : n); ++g)
  {
    const uint32_t dst = single ? n - 1 : (g + 1 + SplitMix64(rng) % (n - 1)) % n; // anyone but itself
    auto qp = ConnectMrc(net, g, dst);
    qp.second->TraceConnectWithoutContext("RecvComplete", MakeBoundCallback(&FlowDone, &r.done[g]));
    qp.first->PostWrite(bytes);
    senders.push_back(qp.first);
  }
  Simulator::Run();
  Config::SetDefault("ns3::FabricPort::LazyStart", BooleanValue(true));
  for (uint32_t id = 0; id < fx.fabric->NumLinks(); ++id)
  {
    auto [a, b] = fx.fabric->Ends(id);
    r.hops += net.GetPort(a, fx.fabric->Link(id).portA)->TxPackets();
    r.hops += net.GetPort(b, fx.fabric->Link(id).portB)->TxPackets();
  }
  for (const auto& qp : senders)
  {
    r.dataPackets += qp->PacketsSent();
  }
  return r;
}

} // namespace

TEST_CASE("parallel simulator: an MRC permutation gives the same results in 1, 2 and 3 partitions, with lazy "
          "or eager frame starts, and repeats bit-identically",
          "[parallel][mrc]")
{
  // perm-512: one 800G plane, 8 T0 x 64 T1; multiplane-64: 8 planes, each GPU on all of them.
  for (const std::string preset : { "perm-512", "multiplane-64" })
  {
    INFO(preset);
    const uint64_t liveBefore = FramePtr::Live();
    const PermResult one = RunPermutation(preset, 1, 65536);
    const PermResult two = RunPermutation(preset, 2, 65536);
    const PermResult three = RunPermutation(preset, 3, 65536);
    const PermResult again = RunPermutation(preset, 2, 65536);
    // Ports that start every frame with an event of its own, not when something looks.
    const PermResult eager = RunPermutation(preset, 2, 65536, false, false);
    CHECK(FramePtr::Live() == liveBefore); // every frame went back to a pool

    CHECK(std::count(one.done.begin(), one.done.end(), -1) == 0);
    // Every flow completes at the same time step, with the same packets on the same links.
    for (const PermResult* r : { &two, &three, &again, &eager })
    {
      CHECK(r->done == one.done);
      CHECK(r->hops == one.hops);
      CHECK(r->dataPackets == one.dataPackets);
    }
  }
}

TEST_CASE("parallel simulator: one MRC flow between partitions runs exactly as with one partition", "[parallel][mrc]")
{
  // GPU 0 and the last GPU are in different partitions: the flow's data and SACKs cross links
  // between partitions both ways, through hand-overs and window-end catch-ups.
  const PermResult one = RunPermutation("perm-512", 1, 1 << 20, true);
  const PermResult two = RunPermutation("perm-512", 2, 1 << 20, true);
  REQUIRE(one.done[0] > 0);
  CHECK(two.done[0] == one.done[0]);
  CHECK(two.hops == one.hops);
  CHECK(two.dataPackets == one.dataPackets);
}
