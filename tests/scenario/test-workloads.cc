// Tests of the workloads on a fake message service (no packets, no fabric): completion times
// against the ideal formulas, message counts and bytes per GPU, the step dependencies, groups and
// placement, iterations with compute time, permutations, incast, Poisson background traffic, and
// the errors MakeWorkload raises.
#include "sim/workloads/collective-workload.h"
#include "sim/workloads/pattern-workload.h"
#include "sim/workloads/workload-params.h"
#include "sim/workloads/workload.h"

#include "topologies/json-reader.h"

#include "ns3/simulator.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

using namespace mrcsim;

namespace
{

constexpr double kRate = 100e9;   // 100 Gb/s: one byte is 80 ps
constexpr double kLatency = 1e-6; // 1 us

IdealModel
Model()
{
  IdealModel m;
  m.gpuBandwidthBps = kRate;
  m.wireOverhead = 1.0;
  m.baseLatencyS = kLatency;
  return m;
}

/// An idle non-blocking fabric with one NIC per GPU: a message is serialised by its sender's NIC
/// (FIFO in posting order), then by its receiver's NIC (FIFO in the order transmissions start; cut
/// through, so not before its last bit left the sender), and delivered one latency later. Optional
/// per-pair extra latency skews the ranks so that receives arrive ahead of the step that expects
/// them. No packets, no congestion inside the fabric.
class FakeFabric : public MessageService
{
public:
  explicit FakeFabric(double jitterS = 0) : m_jitterS(jitterS) {}
  void Send(uint32_t src, uint32_t dst, uint64_t bytes, std::function<void()> done) override
  {
    const ns3::Time now = ns3::Simulator::Now();
    const ns3::Time serialise = ns3::Seconds(double(bytes) * 8 / kRate);
    ns3::Time& tx = m_txFree[src];
    const ns3::Time txStart = std::max(tx, now);
    tx = txStart + serialise;
    const ns3::Time txEnd = tx;
    const ns3::Time delay = ns3::Seconds(kLatency + m_jitterS * double((src * 131 + dst * 31) % 7));
    ns3::Simulator::Schedule(txStart - now,
                             [this, dst, serialise, txEnd, delay, done = std::move(done)]() mutable
                             {
                               ns3::Time& rx = m_rxFree[dst];
                               rx = std::max(txEnd, rx + serialise);
                               ns3::Simulator::Schedule(rx + delay - ns3::Simulator::Now(), std::move(done));
                             });
    ++sent[src];
    bytesSent[src] += bytes;
    bytesReceived[dst] += bytes;
  }

  std::map<uint32_t, uint64_t> sent;
  std::map<uint32_t, uint64_t> bytesSent;
  std::map<uint32_t, uint64_t> bytesReceived;

private:
  double m_jitterS;
  std::map<uint32_t, ns3::Time> m_txFree;
  std::map<uint32_t, ns3::Time> m_rxFree;
};

std::vector<uint32_t>
Range(uint32_t first, uint32_t count)
{
  std::vector<uint32_t> v(count);
  for (uint32_t i = 0; i < count; ++i)
  {
    v[i] = first + i;
  }
  return v;
}

WorkloadSpec
Spec(const std::string& type, uint32_t gpus, uint64_t bytes)
{
  WorkloadSpec s;
  s.type = type;
  s.name = type + "-0";
  s.gpus.gpus = Range(0, gpus);
  s.bytes = bytes;
  return s;
}

/// A ring all-reduce that sends each chunk whole, step after step.
WorkloadSpec
UnpipelinedRing(uint32_t gpus, uint64_t bytes)
{
  WorkloadSpec s = Spec("ring_allreduce", gpus, bytes);
  EditParams<RingParams>(s.params).pipelined = false;
  return s;
}

/// Runs one workload to completion on `fabric`.
std::unique_ptr<Workload>
Run(const WorkloadSpec& spec, FakeFabric& fabric, uint64_t seed = 1)
{
  auto w = MakeWorkload(spec, seed, Model());
  w->Start(fabric);
  ns3::Simulator::Run();
  return w;
}

double
Duration(const CollectiveRecord& r)
{
  return (r.end - r.start).GetSeconds();
}

/// The messages GPU `src` sent, in posting order (its steps, for one-message-per-step schedules).
std::vector<MessageRecord>
SentBy(const Workload& w, uint32_t src)
{
  std::vector<MessageRecord> out;
  for (const MessageRecord& m : w.Messages())
  {
    if (m.src == src)
    {
      out.push_back(m);
    }
  }
  return out;
}

/// Checks the step rule: every rank posts step s+1 at the moment both its step-s send and the
/// step-s message it receives (from `from(rank, s)`) are done, and not before.
template<class From>
void
CheckStepDependencies(const Workload& w, uint32_t n, From from)
{
  std::vector<std::vector<MessageRecord>> steps(n);
  for (uint32_t r = 0; r < n; ++r)
  {
    steps[r] = SentBy(w, r);
  }
  for (uint32_t r = 0; r < n; ++r)
  {
    for (std::size_t s = 0; s + 1 < steps[r].size(); ++s)
    {
      const MessageRecord& in = steps[from(r, uint32_t(s))][s];
      REQUIRE(in.dst == r);
      CHECK(steps[r][s + 1].posted == std::max(steps[r][s].done, in.done));
    }
  }
}

} // namespace

TEST_CASE("workload: ring all-reduce takes the chain time and sends 2(n-1) chunks per rank", "[workload]")
{
  const uint32_t n = 8;
  const uint64_t bytes = 80000; // chunks of 10000 B: 800 ns each
  FakeFabric fabric;
  auto w = Run(UnpipelinedRing(n, bytes), fabric);

  REQUIRE(w->Done());
  REQUIRE(w->Collectives().size() == 1);
  const CollectiveRecord& r = w->Collectives()[0];
  const double chain = 2 * (n - 1) * (kLatency + 10000 * 8 / kRate);
  CHECK(r.algorithm == "ring_allreduce");
  CHECK(r.workload == "ring_allreduce-0");
  CHECK(r.ranks == n);
  CHECK(r.bytes == bytes);
  CHECK(r.busFactor == Approx(2.0 * (n - 1) / n));
  CHECK(r.idealS == Approx(chain).epsilon(1e-12));
  CHECK(Duration(r) == Approx(chain).margin(1e-11));
  for (uint32_t g = 0; g < n; ++g)
  {
    CHECK(fabric.sent[g] == 2 * (n - 1));
    CHECK(fabric.bytesSent[g] == 2 * (n - 1) * bytes / n);
    CHECK(fabric.bytesReceived[g] == 2 * (n - 1) * bytes / n);
  }
  CHECK(w->Messages().size() == n * 2 * (n - 1));
  for (const MessageRecord& m : w->Messages())
  {
    CHECK(m.dst == (m.src + 1) % n);
    CHECK(m.bytes == bytes / n);
    CHECK(m.idealS == Approx(kLatency + 10000 * 8 / kRate));
    CHECK(m.done > m.posted);
  }
  CHECK(w->BytesPosted() == w->BytesTotal());
  CHECK(w->BytesTotal() == n * 2 * (n - 1) * bytes / n);
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: ring all-reduce chunks differ by at most a byte and are never empty", "[workload]")
{
  FakeFabric fabric;
  auto w = Run(UnpipelinedRing(4, 10), fabric); // chunks 3, 3, 2, 2
  uint64_t total = 0;
  for (const MessageRecord& m : w->Messages())
  {
    CHECK((m.bytes == 2 || m.bytes == 3));
    total += m.bytes;
  }
  CHECK(total == 2 * 3 * 10); // every chunk sent n-1 times in each phase
  CHECK(w->BytesTotal() == total);
  CHECK(Duration(w->Collectives()[0]) >= w->Collectives()[0].idealS - 1e-11);
  ns3::Simulator::Destroy();

  FakeFabric tiny;
  auto t = Run(Spec("ring_allreduce", 4, 2), tiny); // fewer bytes than ranks: one-byte chunks
  CHECK(t->Messages().size() == 4 * 6);
  for (const MessageRecord& m : t->Messages())
  {
    CHECK(m.bytes == 1);
  }
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: ring steps wait for the own send and the neighbour's chunk", "[workload]")
{
  const uint32_t n = 6;
  FakeFabric fabric(150e-9); // skewed latencies: neighbours run ahead of each other
  auto w = Run(UnpipelinedRing(n, 6000), fabric);
  REQUIRE(w->Done());
  CheckStepDependencies(*w, n, [n](uint32_t r, uint32_t) { return (r + n - 1) % n; });
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: a pipelined ring forwards each slice once it holds the slice it depends on", "[workload]")
{
  // 8 ranks, chunks of 40,000 B, two channels of 20,000 B each in slices of at most 6,000 B:
  // 4 slices, 2 x 7 ring steps of 4 schedule steps, 2 messages (one per channel) per step.
  const uint32_t n = 8;
  const uint32_t channels = 2;
  const uint32_t slices = 4;
  const uint32_t slots = 3;
  WorkloadSpec spec = Spec("ring_allreduce", n, uint64_t(n) * 40000);
  RingParams& ring = EditParams<RingParams>(spec.params);
  ring.channels = channels;
  ring.chunkBytes = 6000;
  ring.slots = slots;
  FakeFabric fabric(150e-9);
  auto w = Run(spec, fabric);
  REQUIRE(w->Done());
  const uint32_t steps = 2 * (n - 1) * slices;
  REQUIRE(w->Messages().size() == std::size_t(n) * steps * channels);
  for (uint32_t r = 0; r < n; ++r)
  {
    const auto sent = SentBy(*w, r);
    const auto got = SentBy(*w, (r + n - 1) % n); // what r receives, from r - 1
    REQUIRE(sent.size() == std::size_t(steps) * channels);
    for (uint32_t t = 0; t < steps; ++t)
    {
      for (uint32_t c = 0; c < channels; ++c)
      {
        const MessageRecord& m = sent[std::size_t(t) * channels + c];
        CHECK(m.dst == (r + 1) % n);
        CHECK(m.bytes == 5000);
        // Slice k of ring step s needs slice k of ring step s - 1 from the neighbour.
        if (t >= slices)
        {
          CHECK(m.posted >= got[std::size_t(t - slices) * channels + c].done);
        }
      }
      // At most `slots` slices per channel in flight: posting step t, the sends of step
      // t - slots are done.
      if (t >= slots)
      {
        CHECK(sent[std::size_t(t) * channels].posted >= sent[std::size_t(t - slots) * channels].done);
      }
    }
  }
  const CollectiveRecord& rec = w->Collectives()[0];
  CHECK(Duration(rec) >= rec.idealS - 1e-11);
  // The pipelined ring beats the same ring sent chunk by chunk.
  ns3::Simulator::Destroy();
  FakeFabric whole(150e-9);
  auto u = Run(UnpipelinedRing(n, uint64_t(n) * 40000), whole);
  CHECK(Duration(rec) < 0.8 * Duration(u->Collectives()[0]));
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: halving-doubling all-reduce exchanges halves with r xor 2^k", "[workload]")
{
  const uint32_t n = 8;
  const uint64_t bytes = 80000;
  FakeFabric fabric;
  auto w = Run(Spec("hd_allreduce", n, bytes), fabric);

  REQUIRE(w->Done());
  const CollectiveRecord& r = w->Collectives()[0];
  // Steps of 40000, 20000, 10000 B, then back up.
  const double ideal = 2 * (3 * kLatency + 70000 * 8 / kRate);
  CHECK(r.algorithm == "hd_allreduce");
  CHECK(r.busFactor == Approx(2.0 * (n - 1) / n));
  CHECK(r.idealS == Approx(ideal).epsilon(1e-12));
  CHECK(Duration(r) == Approx(ideal).margin(1e-11));
  const std::vector<uint64_t> sizes{ 40000, 20000, 10000, 10000, 20000, 40000 };
  const std::vector<uint32_t> distance{ 1, 2, 4, 4, 2, 1 };
  for (uint32_t g = 0; g < n; ++g)
  {
    const auto sent = SentBy(*w, g);
    REQUIRE(sent.size() == 6);
    for (std::size_t s = 0; s < sent.size(); ++s)
    {
      CHECK(sent[s].bytes == sizes[s]);
      CHECK((sent[s].dst ^ g) == distance[s]);
    }
    CHECK(fabric.bytesSent[g] == 2 * (n - 1) * bytes / n);
  }
  CHECK(w->BytesTotal() == n * 2 * (n - 1) * bytes / n);
  ns3::Simulator::Destroy();

  FakeFabric skewed(150e-9);
  auto s = Run(Spec("hd_allreduce", n, 8000), skewed);
  REQUIRE(s->Done());
  CheckStepDependencies(*s, n, [](uint32_t r, uint32_t step) { return r ^ (1u << (step < 3 ? step : 5 - step)); });
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: all-to-all pairwise and all at once take their ideal times", "[workload]")
{
  const uint32_t n = 4;
  const uint64_t bytes = 10000; // 800 ns per message
  WorkloadSpec spec = Spec("all_to_all", n, bytes);

  SECTION("pairwise")
  {
    EditParams<AllToAllParams>(spec.params).mode = "pairwise";
    FakeFabric fabric;
    auto w = Run(spec, fabric);
    const CollectiveRecord& r = w->Collectives()[0];
    const double ideal = (n - 1) * (kLatency + bytes * 8 / kRate);
    CHECK(r.idealS == Approx(ideal).epsilon(1e-12));
    CHECK(Duration(r) == Approx(ideal).margin(1e-11));
    for (uint32_t g = 0; g < n; ++g)
    {
      const auto sent = SentBy(*w, g);
      REQUIRE(sent.size() == n - 1);
      for (uint32_t k = 0; k < n - 1; ++k)
      {
        CHECK(sent[k].dst == (g + k + 1) % n);
      }
    }
    ns3::Simulator::Destroy();

    FakeFabric skewed(150e-9);
    auto s = Run(spec, skewed);
    CheckStepDependencies(*s, n, [n](uint32_t r, uint32_t k) { return (r + n - k - 1) % n; });
    ns3::Simulator::Destroy();
  }
  SECTION("all at once")
  {
    FakeFabric fabric;
    auto w = Run(spec, fabric);
    const CollectiveRecord& r = w->Collectives()[0];
    const double ideal = kLatency + (n - 1) * bytes * 8 / kRate;
    CHECK(r.idealS == Approx(ideal).epsilon(1e-12));
    CHECK(Duration(r) == Approx(ideal).margin(1e-11));
    for (const MessageRecord& m : w->Messages())
    {
      CHECK(m.posted == r.start);
    }
    ns3::Simulator::Destroy();
  }
  FakeFabric fabric;
  auto w = Run(spec, fabric);
  const CollectiveRecord& r = w->Collectives()[0];
  CHECK(r.algorithm == "all_to_all");
  CHECK(r.bytes == n * bytes);
  CHECK(r.busFactor == Approx(double(n - 1) / n));
  CHECK(w->Messages().size() == n * (n - 1));
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (const MessageRecord& m : w->Messages())
  {
    CHECK(m.bytes == bytes);
    pairs.emplace(m.src, m.dst);
  }
  CHECK(pairs.size() == n * (n - 1));
  CHECK(w->BytesTotal() == n * (n - 1) * bytes);
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: groups are contiguous or strided and run independently", "[workload]")
{
  using Groups = std::vector<std::vector<uint32_t>>;
  CHECK(SplitGroups(Range(0, 8), 4, "contiguous") == Groups{ { 0, 1, 2, 3 }, { 4, 5, 6, 7 } });
  CHECK(SplitGroups(Range(0, 8), 4, "strided") == Groups{ { 0, 2, 4, 6 }, { 1, 3, 5, 7 } });
  CHECK(SplitGroups(Range(10, 6), 2, "strided") == Groups{ { 10, 13 }, { 11, 14 }, { 12, 15 } });
  CHECK(SplitGroups(Range(10, 6), 0, "strided") == Groups{ Range(10, 6) });

  WorkloadSpec spec = Spec("ring_allreduce", 8, 40000);
  RingParams& ring = EditParams<RingParams>(spec.params);
  ring.groupSize = 4;
  ring.placement = "strided";
  FakeFabric fabric;
  auto w = Run(spec, fabric);
  REQUIRE(w->Collectives().size() == 2);
  for (uint32_t g = 0; g < 2; ++g)
  {
    const CollectiveRecord& r = w->Collectives()[g];
    CHECK(r.group == g);
    CHECK(r.ranks == 4);
    CHECK(r.start == ns3::Time(0));
    CHECK(Duration(r) == Approx(r.idealS).margin(1e-11));
  }
  for (const MessageRecord& m : w->Messages())
  {
    CHECK(m.src % 2 == m.dst % 2);   // within its group
    CHECK(m.dst == (m.src + 2) % 8); // the ring of group {g, g+2, g+4, g+6}
  }
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: a completion named by its record alone runs as one that carries it all", "[workload]")
{
  // Completions name a message by its record when each GPU is in one place, and carry its group,
  // ranks and step otherwise. A one-GPU group {0} beside the same two rings puts GPU 0 in two
  // places and sends nothing: the traffic is the same, each way of completing once.
  const auto run = [](std::vector<std::vector<uint32_t>> groups)
  {
    std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
    for (const auto& g : groups)
      algorithms.push_back(MakeAllToAll(static_cast<uint32_t>(g.size()), 3000, false));
    algorithms[0] = MakeRingAllReduce(4, 40000);
    auto w = std::make_unique<CollectiveWorkload>("mixed", groups, std::move(algorithms), 2, ns3::Time(0),
                                                  ns3::MicroSeconds(1), true, Model());
    FakeFabric fabric(2e-7); // skewed: receives arrive ahead of the steps that expect them
    w->Start(fabric);
    ns3::Simulator::Run();
    ns3::Simulator::Destroy();
    return w;
  };
  const auto compact = run({ { 0, 1, 2, 3 }, { 4, 5, 6, 7 } });
  const auto carried = run({ { 0, 1, 2, 3 }, { 4, 5, 6, 7 }, { 0 } });
  REQUIRE(compact->Done());
  REQUIRE(carried->Done());
  REQUIRE(compact->Messages().size() == 2 * (6 * 4 + 4 * 3));
  REQUIRE(carried->Messages().size() == compact->Messages().size());
  for (std::size_t i = 0; i < compact->Messages().size(); ++i)
  {
    const MessageRecord& a = compact->Messages()[i];
    const MessageRecord& b = carried->Messages()[i];
    CHECK(a.done > a.posted);
    CHECK(std::make_tuple(a.src, a.dst, a.bytes, a.posted, a.done) ==
          std::make_tuple(b.src, b.dst, b.bytes, b.posted, b.done));
  }
  std::map<std::pair<uint32_t, uint32_t>, ns3::Time> ends; // by group and iteration
  for (const CollectiveRecord& r : compact->Collectives())
    ends[{ r.group, r.iteration }] = r.end;
  REQUIRE(ends.size() == 4);
  for (const CollectiveRecord& r : carried->Collectives())
    if (r.group < 2)
      CHECK(ends.at({ r.group, r.iteration }) == r.end);
}

TEST_CASE("workload: iterations start compute time after the group finished", "[workload]")
{
  WorkloadSpec spec = Spec("ring_allreduce", 4, 40000);
  RingParams& ring = EditParams<RingParams>(spec.params);
  ring.iterations = 3;
  ring.computeUs = 5;
  spec.startUs = 2;
  FakeFabric fabric;
  auto w = Run(spec, fabric);
  REQUIRE(w->Done());
  REQUIRE(w->Collectives().size() == 3);
  const double t = 6 * (kLatency + 10000 * 8 / kRate);
  for (uint32_t i = 0; i < 3; ++i)
  {
    const CollectiveRecord& r = w->Collectives()[i];
    CHECK(r.iteration == i);
    CHECK(r.start.GetSeconds() == Approx(2e-6 + i * (t + 5e-6)).margin(1e-11));
    CHECK(Duration(r) == Approx(t).margin(1e-11));
  }
  // Every GPU waits on the network for each whole iteration.
  CHECK(w->GpuIdle().GetSeconds() == Approx(3 * 4 * t).margin(1e-10));
  CHECK(w->BytesPosted() == 3 * 4 * 6 * 10000);
  CHECK(w->BytesTotal() == w->BytesPosted());
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: a single-GPU group finishes at once", "[workload]")
{
  WorkloadSpec spec = Spec("ring_allreduce", 1, 1000);
  EditParams<RingParams>(spec.params).iterations = 2;
  FakeFabric fabric;
  auto w = Run(spec, fabric);
  CHECK(w->Done());
  CHECK(w->Messages().empty());
  CHECK(w->Collectives().size() == 2);
  CHECK(w->Collectives()[0].idealS == 0);
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: derangements have no fixed point and cover all of them", "[workload]")
{
  uint64_t state = 42;
  for (uint32_t n = 2; n < 12; ++n)
  {
    for (int k = 0; k < 50; ++k)
    {
      const auto p = DrawDerangement(n, state);
      std::vector<uint32_t> sorted = p;
      std::sort(sorted.begin(), sorted.end());
      REQUIRE(sorted == Range(0, n));
      for (uint32_t i = 0; i < n; ++i)
      {
        REQUIRE(p[i] != i);
      }
    }
  }
  // Three elements have two derangements (the two 3-cycles); both come up.
  std::set<std::vector<uint32_t>> seen;
  for (int k = 0; k < 50; ++k)
  {
    seen.insert(DrawDerangement(3, state));
  }
  CHECK(seen.size() == 2);
}

TEST_CASE("workload: permutation sends one message per GPU, a new derangement each iteration", "[workload]")
{
  const uint32_t n = 16;
  WorkloadSpec spec = Spec("permutation", n, 10000);
  EditParams<PermutationParams>(spec.params).iterations = 3;
  auto pairs = [&](uint64_t seed)
  {
    FakeFabric fabric;
    auto w = Run(spec, fabric, seed);
    REQUIRE(w->Done());
    REQUIRE(w->Collectives().size() == 3);
    for (const CollectiveRecord& r : w->Collectives())
    {
      CHECK(r.algorithm == "permutation");
      CHECK(r.busFactor == 1);
      CHECK(r.bytes == 10000);
      CHECK(Duration(r) == Approx(kLatency + 10000 * 8 / kRate).margin(1e-11));
    }
    CHECK(w->GpuIdle() == ns3::Time(0));
    std::vector<std::vector<uint32_t>> perms(3, std::vector<uint32_t>(n, n));
    REQUIRE(w->Messages().size() == 3 * n);
    for (std::size_t i = 0; i < w->Messages().size(); ++i)
    {
      const MessageRecord& m = w->Messages()[i];
      CHECK(m.src != m.dst);
      CHECK(perms[i / n][m.src] == n); // one message per sender per iteration
      perms[i / n][m.src] = m.dst;
    }
    for (auto& p : perms)
    {
      std::sort(p.begin(), p.end());
      CHECK(p == Range(0, n)); // and one per receiver
    }
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (const MessageRecord& m : w->Messages())
    {
      out.emplace_back(m.src, m.dst);
    }
    ns3::Simulator::Destroy();
    return out;
  };
  const auto a = pairs(7);
  CHECK(a == pairs(7));
  CHECK(a != pairs(8));
  CHECK(!std::equal(a.begin(), a.begin() + n, a.begin() + n)); // iterations differ
}

TEST_CASE("workload: incast sends from the first GPUs other than the receiver", "[workload]")
{
  WorkloadSpec spec = Spec("incast", 10, 10000);
  IncastParams& incast = EditParams<IncastParams>(spec.params);
  incast.receiver = 3;
  incast.senders = 5;
  spec.startUs = 1;
  FakeFabric fabric;
  auto w = Run(spec, fabric);
  REQUIRE(w->Done());
  REQUIRE(w->Messages().size() == 5);
  std::set<uint32_t> senders;
  for (const MessageRecord& m : w->Messages())
  {
    CHECK(m.dst == 3);
    CHECK(m.bytes == 10000);
    CHECK(m.posted == ns3::MicroSeconds(1));
    senders.insert(m.src);
  }
  CHECK(senders == std::set<uint32_t>{ 0, 1, 2, 4, 5 });
  REQUIRE(w->Collectives().size() == 1);
  const CollectiveRecord& r = w->Collectives()[0];
  const double ideal = kLatency + 5 * 10000 * 8 / kRate;
  CHECK(r.algorithm == "incast");
  CHECK(r.bytes == 50000);
  CHECK(r.busFactor == 1);
  CHECK(r.idealS == Approx(ideal).epsilon(1e-12));
  CHECK(Duration(r) == Approx(ideal).margin(1e-11)); // the receiver's NIC drains them back to back
  CHECK(w->BytesTotal() == 50000);
  ns3::Simulator::Destroy();

  EditParams<IncastParams>(spec.params).senders = 10;
  CHECK_THROWS_AS(MakeWorkload(spec, 1, Model()), SpecError);
}

TEST_CASE("workload: random traffic offers its load to random other GPUs", "[workload]")
{
  const uint32_t n = 16;
  WorkloadSpec spec = Spec("random", n, 4096);
  RandomParams& random = EditParams<RandomParams>(spec.params);
  random.load = 0.4;
  random.durationUs = 2000;
  spec.startUs = 10;
  auto run = [&](uint64_t seed)
  {
    FakeFabric fabric;
    auto w = Run(spec, fabric, seed);
    REQUIRE(w->Done());
    CHECK(w->Collectives().empty());
    const double expected = n * 0.4 * kRate / 8 * 2e-3; // 160 MB
    CHECK(double(w->BytesPosted()) == Approx(expected).epsilon(0.03));
    for (uint32_t g = 0; g < n; ++g)
    {
      CHECK(double(fabric.bytesSent[g]) == Approx(expected / n).epsilon(0.1));
      CHECK(double(fabric.bytesReceived[g]) == Approx(expected / n).epsilon(0.1));
    }
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (const MessageRecord& m : w->Messages())
    {
      CHECK(m.src != m.dst);
      CHECK(m.dst < n);
      CHECK(m.posted >= ns3::MicroSeconds(10));
      CHECK(m.posted < ns3::MicroSeconds(2010));
      CHECK(m.done > m.posted);
      out.emplace_back(m.src, m.dst);
    }
    CHECK(w->BytesTotal() == w->BytesPosted());
    ns3::Simulator::Destroy();
    return out;
  };
  const auto a = run(3);
  CHECK(a == run(3));
  CHECK(a != run(4));
}

TEST_CASE("workload: random traffic is done only once its duration is over", "[workload]")
{
  WorkloadSpec spec = Spec("random", 4, 1000);
  RandomParams& random = EditParams<RandomParams>(spec.params);
  random.load = 0.001; // a message every 80 us per GPU, on average
  random.durationUs = 50;
  auto w = MakeWorkload(spec, 1, Model());
  FakeFabric fabric;
  w->Start(fabric);
  CHECK(!w->Done());
  CHECK(double(w->BytesTotal()) == Approx(4 * 0.001 * kRate / 8 * 50e-6));
  ns3::Simulator::Run();
  CHECK(w->Done());
  CHECK(ns3::Simulator::Now() >= ns3::MicroSeconds(50));
  ns3::Simulator::Destroy();
}

TEST_CASE("workload: bad specs are refused with the key named", "[workload]")
{
  auto refuses = [](WorkloadSpec spec, const std::string& key)
  {
    try
    {
      MakeWorkload(spec, 1, Model());
      FAIL("accepted");
    }
    catch (const SpecError& e)
    {
      CHECK_THAT(e.what(), Catch::Contains(key));
    }
  };
  WorkloadSpec s = Spec("ring_allreduce", 8, 1000);
  EditParams<RingParams>(s.params).groupSize = 3;
  refuses(s, "groupSize");
  s = Spec("hd_allreduce", 6, 1000);
  refuses(s, "power of two");
  s = Spec("all_to_all", 4, 1000);
  EditParams<AllToAllParams>(s.params).mode = "ring";
  refuses(s, "mode");
  s = Spec("ring_allreduce", 4, 1000);
  EditParams<RingParams>(s.params).placement = "diagonal";
  refuses(s, "placement");
  refuses(Spec("broadcast", 4, 1000), "type");
  refuses(Spec("ring_allreduce", 4, 0), "bytes");
  refuses(Spec("permutation", 1, 1000), "gpus");
  s = Spec("ring_allreduce", 4, 1000);
  s.gpus.gpus = { 1, 2, 2, 3 };
  refuses(s, "twice");
}

TEST_CASE("ideal: a message's smallest last packet, cut in order or spread over the NIC's ports", "[ideal]")
{
  // RoCEv2 with a QP per plane spreads a message over the 8 ports: 8 KiB leaves as eight 1 KiB
  // packets, which a switch stores and forwards in a quarter of a full packet's time. The ideal's
  // last packet may not be larger, or such a run beats its "lower bound" (a ring all-reduce's
  // 8 KiB chunks on multiplane-8k did, by 7%).
  IdealModel m;
  auto paths = std::make_shared<IdealModel::Paths>();
  paths->mtu = 4096;
  paths->nicPorts = 8;
  m.paths = paths;
  CHECK(m.LastPacketPayload(8192) == 1024);   // 1 KiB per port
  CHECK(m.LastPacketPayload(6144) == 768);    // 768 B per port, smaller than the 2 KiB remainder
  CHECK(m.LastPacketPayload(65536) == 4096);  // 8 KiB per port: full packets either way
  CHECK(m.LastPacketPayload(36864) == 512);   // 4.5 KiB per port: a 512 B tail
  CHECK(m.LastPacketPayload(2) == 1);         // 2 B over 8 ports: one byte at the least
  CHECK(m.LastPacketPayload(0) == 0);
  paths->nicPorts = 1;
  CHECK(m.LastPacketPayload(8192) == 4096);   // one port: cut in order only
  CHECK(m.LastPacketPayload(6144) == 2048);
}
