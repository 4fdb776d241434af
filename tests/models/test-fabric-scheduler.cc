// FabricScheduler against ns-3's MapScheduler: the same pop order under random inserts, removes
// and pops (both used directly as objects, with equal time stamps common and extreme keys), and
// the same event order in a small simulation driven by each (schedules, zero delays, contexts,
// cancels, Simulator::Remove, events with prefetch lists, and a switch of scheduler with events
// pending). And a port's wake (a PrefetchingEvent) is scheduled with exactly one reference for the
// simulator, whichever way the port schedules it.
#include "models/engine/fabric-scheduler.h"
#include "models/engine/splitmix.h"

#include "tests/models/fabric-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/event-id.h"
#include "ns3/map-scheduler.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

/// A stand-in EventImpl pointer (the schedulers store it, never follow it).
EventImpl*
FakeImpl(uint32_t uid)
{
  return reinterpret_cast<EventImpl*>(uintptr_t(0x10000) + 16 * uintptr_t(uid));
}

bool
SameEvent(const Scheduler::Event& a, const Scheduler::Event& b)
{
  return a.impl == b.impl && a.key.m_ts == b.key.m_ts && a.key.m_uid == b.key.m_uid &&
         a.key.m_context == b.key.m_context;
}

/// The events pending in both schedulers, for picking one at random to remove.
class PendingSet
{
public:
  void Add(const Scheduler::Event& ev)
  {
    m_index[ev.key.m_uid] = m_events.size();
    m_events.push_back(ev);
  }
  void Erase(uint32_t uid)
  {
    auto it = m_index.find(uid);
    REQUIRE(it != m_index.end());
    const std::size_t i = it->second;
    m_index.erase(it);
    if (i + 1 != m_events.size())
    {
      m_events[i] = m_events.back();
      m_index[m_events[i].key.m_uid] = i;
    }
    m_events.pop_back();
  }
  std::size_t Size() const { return m_events.size(); }
  const Scheduler::Event& At(std::size_t i) const { return m_events[i]; }

private:
  std::vector<Scheduler::Event> m_events;
  std::unordered_map<uint32_t, std::size_t> m_index;
};

/// Drives a FabricScheduler and a MapScheduler with the same operations and checks that they
/// agree on every PeekNext and RemoveNext.
class Twins
{
public:
  Twins() : fabric(CreateObject<FabricScheduler>()), map(CreateObject<MapScheduler>()) {}

  void Insert(uint64_t ts, uint32_t uid, uint32_t context)
  {
    Scheduler::Event ev;
    ev.impl = FakeImpl(uid);
    ev.key.m_ts = ts;
    ev.key.m_uid = uid;
    ev.key.m_context = context;
    fabric->Insert(ev);
    map->Insert(ev);
    pending.Add(ev);
  }

  /// Pops from both and requires the same event (a divergence ends the test case at once: the
  /// two would no longer hold the same events to remove).
  void Pop()
  {
    REQUIRE(!map->IsEmpty());
    REQUIRE(!fabric->IsEmpty());
    const Scheduler::Event peek = fabric->PeekNext();
    const Scheduler::Event f = fabric->RemoveNext();
    const Scheduler::Event m = map->RemoveNext();
    INFO("MapScheduler popped ts " << m.key.m_ts << " uid " << m.key.m_uid << ", FabricScheduler ts " << f.key.m_ts
                                   << " uid " << f.key.m_uid);
    REQUIRE(SameEvent(peek, f));
    REQUIRE(SameEvent(f, m));
    pending.Erase(m.key.m_uid);
  }

  void Remove(const Scheduler::Event& ev)
  {
    const Scheduler::Event copy = ev; // `ev` lives in `pending`
    fabric->Remove(copy);
    map->Remove(copy);
    pending.Erase(copy.key.m_uid);
  }

  /// Pops everything.
  void Drain()
  {
    while (!map->IsEmpty())
    {
      Pop();
    }
    CHECK(fabric->IsEmpty());
    CHECK(fabric->Size() == 0);
  }

  Ptr<FabricScheduler> fabric;
  Ptr<MapScheduler> map;
  PendingSet pending;
};

} // namespace

TEST_CASE("scheduler: random inserts, removes and pops leave FabricScheduler in MapScheduler's order", "[scheduler]")
{
  uint64_t rng = 12345;
  Twins t;
  uint32_t uid = 1;
  uint64_t now = 0;
  uint32_t pops = 0;
  uint32_t removes = 0;
  // Phases of growth and shrinkage so that the heap crosses its growth steps both ways, and
  // empties completely at the end of each phase.
  for (int phase = 0; phase < 6; ++phase)
  {
    const uint32_t target = 20u << (4 * (phase % 3)); // 20, 320, 5120 events
    for (uint32_t op = 0; op < 4 * target; ++op)
    {
      const uint64_t r = SplitMix64(rng);
      const bool grow = t.pending.Size() < target;
      if (t.pending.Size() == 0 || (r % 8 < (grow ? 6u : 3u)))
      {
        // Mostly a little ahead of the last pop, on a coarse grid (equal time stamps common),
        // sometimes before it (the order is a total order, whatever the insertion pattern).
        const uint64_t delay = (r >> 8) % 64 * 1000;
        const uint64_t ts = (r >> 20) % 16 == 0 && now >= 5000 ? now - 5000 + delay : now + delay;
        t.Insert(ts, uid++, static_cast<uint32_t>(r >> 32) % 8);
      }
      else if (r % 8 == 7)
      {
        t.Remove(t.pending.At((r >> 8) % t.pending.Size()));
        ++removes;
      }
      else
      {
        now = t.map->PeekNext().key.m_ts;
        t.Pop();
        ++pops;
      }
      CHECK(t.fabric->Size() == t.pending.Size());
    }
    t.Drain();
  }
  CHECK(pops > 10000);
  CHECK(removes > 1000);
}

TEST_CASE("scheduler: FabricScheduler orders extreme time stamps, uids and contexts as MapScheduler", "[scheduler]")
{
  // Keys that would collide or wrap if any part of the packing were truncated or misplaced.
  const uint64_t tsMax = ~uint64_t(0);
  const uint32_t uidMax = ~uint32_t(0);
  const std::vector<std::tuple<uint64_t, uint32_t, uint32_t>> keys{
    { tsMax, uidMax, uidMax },
    { tsMax, 0, 0 },
    { tsMax - 1, uidMax - 3, 7 },
    { uint64_t(1) << 63, 5, 0 },
    { uint64_t(1) << 32, 4, 9 },
    { (uint64_t(1) << 32) - 1, uidMax - 1, uidMax },
    { 0, 1, uidMax },
    { 0, 2, 0 },
    { 1, 3, 1 },
    { uint64_t(1) << 63, uidMax - 2, 3 },
  };
  Twins t;
  for (const auto& [ts, uid, context] : keys)
  {
    t.Insert(ts, uid, context);
  }
  t.Drain();

  SECTION("and removes each of them from any position")
  {
    for (std::size_t victim = 0; victim < keys.size(); ++victim)
    {
      Twins u;
      for (const auto& [ts, uid, context] : keys)
      {
        u.Insert(ts, uid, context);
      }
      const uint32_t uid = std::get<1>(keys[victim]);
      for (std::size_t i = 0; i < u.pending.Size(); ++i)
      {
        if (u.pending.At(i).key.m_uid == uid)
        {
          u.Remove(u.pending.At(i));
          break;
        }
      }
      CHECK(u.fabric->Size() == keys.size() - 1);
      u.Drain();
    }
  }
}

namespace
{

/// What a simulated event saw when it ran.
struct Fired
{
  int64_t ps;
  uint32_t tag;
  uint32_t context;
  bool operator==(const Fired& o) const { return ps == o.ps && tag == o.tag && context == o.context; }
};

/// A small self-driving simulation: every event records itself and schedules up to two more
/// (equal time stamps common, zero delays, other contexts), and now and then cancels or removes
/// a pending one. Its order of events depends only on the scheduler's order.
class Driver
{
public:
  explicit Driver(uint64_t seed) : m_rng(seed) {}

  void Start(uint32_t initial)
  {
    for (uint32_t i = 0; i < initial; ++i)
    {
      ScheduleOne();
    }
  }

  std::vector<Fired> fired;
  uint32_t removed = 0;
  uint32_t cancelled = 0;

private:
  void Fire(uint32_t tag)
  {
    fired.push_back(Fired{ Simulator::Now().GetPicoSeconds(), tag, Simulator::GetContext() });
    const uint64_t r = SplitMix64(m_rng);
    for (uint64_t k = 0; k < 1 + r % 2 && m_tags < kMaxEvents; ++k)
    {
      ScheduleOne();
    }
    if ((r >> 8) % 8 == 0 && !m_ids.empty())
    {
      EventId& id = m_ids[(r >> 16) % m_ids.size()];
      if (id.IsRunning())
      {
        if ((r >> 40) % 2)
        {
          Simulator::Remove(id);
          ++removed;
        }
        else
        {
          id.Cancel();
          ++cancelled;
        }
      }
    }
  }

  void ScheduleOne()
  {
    const uint64_t r = SplitMix64(m_rng);
    const uint32_t tag = m_tags++;
    // A few distinct delays, so that many events share a time stamp, and zero (a later uid at
    // the same time).
    static const int64_t kDelaysPs[] = { 0, 1000, 1000, 2000, 336000, 1000000, 1336000, 2000000 };
    const Time delay = PicoSeconds(kDelaysPs[r % 8]);
    switch ((r >> 8) % 5)
    {
      case 4:
      {
        // An event with a prefetch list (FabricScheduler tags its entry), with null entries.
        Ptr<Listed> event = Create<Listed>(this, tag);
        event->SetPrefetchEntries(0, { PrefetchingEvent::Lines(this) });
        event->SetPrefetchEntries(PrefetchingEvent::kEntries - 1, { PrefetchingEvent::Lines(&m_ids, 0b101) });
        FabricScheduler::ExpectPrefetching(PeekPointer(event));
        // Schedule(Time, Ptr<EventImpl>) takes the simulator's reference itself (released after
        // the event runs or is removed): another Ref here would leak every such event.
        m_ids.push_back(Simulator::Schedule(delay, event));
        break;
      }
      case 0:
        Simulator::ScheduleWithContext(static_cast<uint32_t>(r >> 32) % 16, delay, &Driver::Fire, this, tag);
        break;
      case 1:
        m_ids.push_back(Simulator::ScheduleNow(&Driver::Fire, this, tag));
        break;
      default:
        m_ids.push_back(Simulator::Schedule(delay, &Driver::Fire, this, tag));
        break;
    }
  }

  class Listed : public PrefetchingEvent
  {
  public:
    Listed(Driver* driver, uint32_t tag) : m_driver(driver), m_tag(tag) {}
    void Notify() override { m_driver->Fire(m_tag); }
    Driver* m_driver;
    uint32_t m_tag;
  };

  static constexpr uint32_t kMaxEvents = 20000;
  uint64_t m_rng;
  uint32_t m_tags = 0;
  std::vector<EventId> m_ids;
};

struct RunResult
{
  std::vector<Fired> fired;
  uint64_t events = 0;
  uint32_t removed = 0;
  uint32_t cancelled = 0;
};

/// Runs the Driver under `scheduler`; if `switchTo` is set, switches to it with the first events
/// already pending.
RunResult
RunWith(const std::string& scheduler, const std::string& switchTo = "")
{
  Simulator::Destroy();
  ObjectFactory factory;
  factory.SetTypeId(scheduler);
  Simulator::SetScheduler(factory);
  Driver driver(7);
  driver.Start(300);
  if (!switchTo.empty())
  {
    factory.SetTypeId(switchTo);
    Simulator::SetScheduler(factory);
  }
  Simulator::Run();
  RunResult result{ driver.fired, Simulator::GetEventCount(), driver.removed, driver.cancelled };
  Simulator::Destroy();
  return result;
}

} // namespace

TEST_CASE("scheduler: a simulation runs its events in the same order with FabricScheduler as with MapScheduler",
          "[scheduler]")
{
  const RunResult map = RunWith("ns3::MapScheduler");
  REQUIRE(map.fired.size() > 10000);
  CHECK(map.removed > 100);
  CHECK(map.cancelled > 100);

  const RunResult fabric = RunWith("ns3::FabricScheduler");
  CHECK(fabric.events == map.events);
  CHECK(fabric.removed == map.removed);
  CHECK(fabric.cancelled == map.cancelled);
  REQUIRE(fabric.fired.size() == map.fired.size());
  CHECK(fabric.fired == map.fired);

  SECTION("also when the simulator switches to it with events pending")
  {
    const RunResult switched = RunWith("ns3::MapScheduler", "ns3::FabricScheduler");
    CHECK(switched.events == map.events);
    CHECK(switched.fired == map.fired);
  }
}

TEST_CASE("a PrefetchingEvent's entries name runs of cache lines", "[scheduler]")
{
  alignas(64) static char memory[512];
  using E = PrefetchingEvent;
  CHECK(E::Lines(nullptr, 0b1111) == 0);
  // Any byte of a line names the line; the mask's bits are the lines from it on.
  CHECK(E::Lines(memory + 70) == (reinterpret_cast<uintptr_t>(memory + 64) | 1));
  CHECK(E::Lines(memory + 127, 0b101) == (reinterpret_cast<uintptr_t>(memory + 64) | 0b101));

  struct Listed : public PrefetchingEvent
  {
    void Notify() override {}
  };
  Ptr<Listed> event = Create<Listed>();
  event->SetPrefetch({ E::Lines(memory), E::Lines(memory + 256, 0b11) });
  event->SetPrefetchEntries(E::kEntries - 1, { E::Lines(memory + 448) });
  CHECK(event->m_prefetch[1] == (reinterpret_cast<uintptr_t>(memory + 256) | 0b11));
  CHECK(event->m_prefetch[E::kEntries - 1] == (reinterpret_cast<uintptr_t>(memory + 448) | 1));
  // Setting the list again clears what it does not name; setting entries leaves the others.
  event->SetPrefetchEntries(0, { E::Lines(memory + 128) });
  CHECK(event->m_prefetch[1] != 0);
  event->SetPrefetch({ E::Lines(memory + 192) });
  CHECK(event->m_prefetch[0] == (reinterpret_cast<uintptr_t>(memory + 192) | 1));
  for (std::size_t i = 1; i < E::kEntries; ++i)
  {
    CHECK(event->m_prefetch[i] == 0);
  }
  CHECK(sizeof(Listed) == 2 * 64);
}

// A port starts each backlogged frame with its wake event when lazy starts are off: scheduled
// with its node's context, or without a node through Simulator::Schedule(Time, Ptr<EventImpl>),
// which takes the simulator's reference itself. The port used to add one more there, so a
// node-less port's wake was never freed (LeakSanitizer: scripts/test.sh --sanitize). Either way
// each frame leaves in its own slot.
TEST_CASE("scheduler: a port's wake event runs and is released, with or without a node", "[scheduler][fabric]")
{
  using namespace mrcsim::test;
  for (const bool withNode : { true, false })
  {
    INFO((withNode ? "with" : "without") << " a node");
    FabricFixture fx(TinyMultiplane());
    const mrcsim::Attachment& a = fx.Routing().Attach(0, 0);
    Ptr<FabricPort> nic = fx.NicPort(0, 0);
    nic->SetAttribute("LazyStart", BooleanValue(false));
    if (!withNode)
    {
      nic->SetNode(nullptr);
    }
    std::vector<Time> arrivals;
    fx.net->GetHost(1)->SetReceiveCallback(
      Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet>, uint16_t) { arrivals.push_back(Simulator::Now()); }));
    const int n = 5;
    for (int k = 0; k < n; ++k)
    {
      REQUIRE(fx.net->GetHost(0)->Send(DataPacket(0, 1, 0, 4106), a.gpuPort));
    }
    Simulator::Run();
    REQUIRE(arrivals.size() == size_t(n));
    const Time tx = NanoSeconds(336); // 4,200-byte frames at 100G
    const Time first = 2 * (tx + MicroSeconds(1)) + DefaultForwardingLatency();
    for (int k = 0; k < n; ++k)
    {
      CHECK(arrivals[k] == first + k * tx);
    }
  }
}
