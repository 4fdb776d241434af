// Unit tests of the DCQCN reaction point: the cut, alpha decay, fast recovery / additive / hyper
// increase on exact timer instants, the byte counter, the rate floor, and the absence of events
// once a QP has recovered (the Paper profile); the ConnectX profile's alpha periods, target
// clamping and byte-counter recovery; and the parameters each profile resolves to.
#include "models/roce/dcqcn-rate-control.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t kLine = 100000000000ULL; // 100 Gb/s
constexpr uint64_t kRai = 40000000ULL;      // default R_AI, 40 Mb/s
constexpr uint64_t kRhai = 400000000ULL;    // default R_HAI, 400 Mb/s
constexpr double kG = 1.0 / 256;

/// Records every Rate trace: (old, new) in bit/s.
struct RateLog
{
  std::vector<uint64_t> newRates;
  uint64_t maxSeen = 0;
  uint64_t minSeen = UINT64_MAX;
  void Connect(Ptr<DcqcnRateControl> rc)
  {
    rc->TraceConnectWithoutContext("Rate",
                                   Callback<void, DataRate, DataRate>(
                                     [this](DataRate, DataRate now)
                                     {
                                       newRates.push_back(now.GetBitRate());
                                       maxSeen = std::max(maxSeen, now.GetBitRate());
                                       minSeen = std::min(minSeen, now.GetBitRate());
                                     }));
  }
};

uint64_t
Rate(Ptr<DcqcnRateControl> rc)
{
  return rc->GetRate().GetBitRate();
}

uint64_t
Target(Ptr<DcqcnRateControl> rc)
{
  return rc->GetTargetRate().GetBitRate();
}

/// A reaction point with the parameters of `profile`.
Ptr<DcqcnRateControl>
Make(DcqcnRateControl::Profile profile = DcqcnRateControl::PAPER)
{
  auto rc = CreateLight<DcqcnRateControl>();
  rc->SetAttribute("Profile", EnumValue(profile));
  return rc;
}

/// The paper's rate step towards the target: (Rt + Rc) / 2, rounded up.
uint64_t
Halfway(uint64_t target, uint64_t rate)
{
  return target - (target - rate) / 2;
}

} // namespace

TEST_CASE("DCQCN: Start runs at line rate; one CNP halves the rate and keeps alpha at 1", "[dcqcn]")
{
  auto rc = Make();
  rc->Start(DataRate(kLine));
  CHECK(Rate(rc) == kLine);
  CHECK(Target(rc) == kLine);
  CHECK(rc->GetAlpha() == 1.0);
  CHECK(rc->IsIdle());

  int checks = 0;
  Simulator::Schedule(MicroSeconds(10),
                      [&]
                      {
                        rc->OnCnp();
                        CHECK(Rate(rc) == kLine / 2); // Rc (1 - alpha/2), alpha = 1
                        CHECK(Target(rc) == kLine);   // Rt = Rc before the cut
                        CHECK(rc->GetAlpha() == 1.0); // (1 - g) 1 + g
                        CHECK_FALSE(rc->IsIdle());
                        ++checks;
                      });
  // Just before the first timer instant (10 + 55 us) nothing has changed yet.
  Simulator::Schedule(MicroSeconds(65) - PicoSeconds(1),
                      [&]
                      {
                        CHECK(Rate(rc) == kLine / 2);
                        CHECK(rc->GetAlpha() == 1.0);
                        ++checks;
                      });
  Simulator::Stop(MicroSeconds(66));
  Simulator::Run();
  CHECK(checks == 2);
  Simulator::Destroy();
}

TEST_CASE("DCQCN: a second CNP cuts by the current alpha, not by a half", "[dcqcn]")
{
  auto rc = Make();
  rc->SetAttribute("InitialAlpha", DoubleValue(0.5));
  rc->Start(DataRate(kLine));
  rc->OnCnp(); // alpha 0.5: Rc = 100G * 0.75, alpha = (1-g) 0.5 + g
  CHECK(Rate(rc) == 75000000000ULL);
  const double alpha1 = (1 - kG) * 0.5 + kG;
  CHECK(rc->GetAlpha() == alpha1);
  rc->OnCnp();
  CHECK(Target(rc) == 75000000000ULL);
  CHECK(Rate(rc) == static_cast<uint64_t>(75000000000.0 * (1 - alpha1 / 2)));
  CHECK(Rate(rc) < 75000000000ULL / 4 * 3);
  CHECK(rc->GetAlpha() == (1 - kG) * alpha1 + kG);
  Simulator::Destroy();
}

TEST_CASE("DCQCN: alpha decays by (1-g) per AlphaUpdatePeriod without CNPs", "[dcqcn]")
{
  for (double g : { kG, 1.0 / 16 })
  {
    auto rc = Make();
    rc->SetAttribute("G", DoubleValue(g));
    rc->Start(DataRate(kLine));
    std::vector<double> traced;
    rc->TraceConnectWithoutContext("Alpha",
                                   Callback<void, double, double>([&](double, double a) { traced.push_back(a); }));
    Simulator::Schedule(Time(0), [&] { rc->OnCnp(); });
    double expected = 1.0;
    int checks = 0;
    for (int k = 0; k <= 6; ++k)
    {
      // 1 ns after the k-th alpha timer instant (k x 55 us after the CNP).
      Simulator::Schedule(MicroSeconds(55 * k) + NanoSeconds(1),
                          [&, k, expected]
                          {
                            CHECK(rc->GetAlpha() == expected);
                            CHECK(traced.size() == static_cast<size_t>(k));
                            ++checks;
                          });
      expected = (1 - g) * expected;
    }
    Simulator::Stop(MicroSeconds(55 * 6 + 10));
    Simulator::Run();
    CHECK(checks == 7);
    CHECK(rc->GetAlpha() < 0.99); // really decayed (guards against a silent no-op)
    Simulator::Destroy();
  }
}

TEST_CASE("DCQCN: recovery by fast recovery, additive and hyper increase, back to line rate, then silence", "[dcqcn]")
{
  auto rc = Make();
  rc->SetAttribute("ByteCounter", UintegerValue(1000000));
  // The paper's 40G increase steps, set explicitly (the defaults scale them with the line rate).
  rc->SetAttribute("AdditiveIncrease", DataRateValue(DataRate("40Mb/s")));
  rc->SetAttribute("HyperIncrease", DataRateValue(DataRate("400Mb/s")));
  RateLog log;
  log.Connect(rc);
  rc->Start(DataRate(kLine));

  // Two CNPs 1 us apart: Rt = 50G, Rc = 25G, alpha = 1; the rate timer runs from t = 1 us.
  Simulator::Schedule(Time(0), [&] { rc->OnCnp(); });
  Simulator::Schedule(MicroSeconds(1),
                      [&]
                      {
                        rc->OnCnp();
                        CHECK(Target(rc) == 50000000000ULL);
                        CHECK(Rate(rc) == 25000000000ULL);
                      });

  // Timer stages 0..4 (t = 56, 111, 166, 221, 276 us): F = 5 fast-recovery steps halve the gap to Rt.
  const uint64_t fast[5] = { 37500000000ULL, 43750000000ULL, 46875000000ULL, 48437500000ULL, 49218750000ULL };
  int checks = 0;
  for (int k = 0; k < 5; ++k)
  {
    Simulator::Schedule(MicroSeconds(1 + 55 * (k + 1)) - PicoSeconds(1),
                        [&, k]
                        {
                          CHECK(Rate(rc) == (k == 0 ? 25000000000ULL : fast[k - 1]));
                          ++checks;
                        });
    Simulator::Schedule(MicroSeconds(1 + 55 * (k + 1)) + PicoSeconds(1),
                        [&, k]
                        {
                          CHECK(Rate(rc) == fast[k]);
                          CHECK(Target(rc) == 50000000000ULL);
                          ++checks;
                        });
  }
  // Timer stages 5 and 6 (t = 331, 386 us): additive increase, Rt += R_AI.
  Simulator::Schedule(MicroSeconds(331) + PicoSeconds(1),
                      [&]
                      {
                        CHECK(Target(rc) == 50040000000ULL);
                        CHECK(Rate(rc) == 49629375000ULL);
                        ++checks;
                      });
  Simulator::Schedule(MicroSeconds(386) + PicoSeconds(1),
                      [&]
                      {
                        CHECK(Target(rc) == 50080000000ULL);
                        CHECK(Rate(rc) == 49854687500ULL);
                        ++checks;
                      });
  // t = 390 us, 7 timer stages done: byte stages 0..5 are additive (min(7, BC) <= F), then
  // byte stage 6 is hyper with i = min(7, 6) - 5 = 1 and byte stage 7 has i = min(7, 7) - 5 = 2.
  Simulator::Schedule(MicroSeconds(390),
                      [&]
                      {
                        for (int bc = 0; bc < 8; ++bc)
                        {
                          const uint64_t rt = Target(rc);
                          const uint64_t r = Rate(rc);
                          rc->OnBytesSent(600000);
                          CHECK(Target(rc) == rt); // 600 kB < B: no stage
                          rc->OnBytesSent(400000);
                          const uint64_t step = bc <= 5 ? kRai : (bc - 5) * kRhai;
                          CHECK(Target(rc) == rt + step);
                          CHECK(Rate(rc) == Halfway(rt + step, r));
                          ++checks;
                        }
                      });
  // t = 441 us: timer stage 7 with 8 byte stages: hyper, i = min(7, 8) - 5 = 2.
  uint64_t rtBefore = 0;
  uint64_t rBefore = 0;
  Simulator::Schedule(MicroSeconds(441) - PicoSeconds(1),
                      [&]
                      {
                        rtBefore = Target(rc);
                        rBefore = Rate(rc);
                      });
  Simulator::Schedule(MicroSeconds(441) + PicoSeconds(1),
                      [&]
                      {
                        CHECK(Target(rc) == rtBefore + 2 * kRhai);
                        CHECK(Rate(rc) == Halfway(rtBefore + 2 * kRhai, rBefore));
                        ++checks;
                      });

  Time lastAlphaChange;
  rc->TraceConnectWithoutContext(
    "Alpha", Callback<void, double, double>([&](double, double) { lastAlphaChange = Simulator::Now(); }));
  Simulator::Stop(Seconds(1)); // a bound, in case the object never went quiet
  Simulator::Run();
  CHECK(checks == 5 * 2 + 2 + 8 + 1);
  CHECK(Rate(rc) == kLine);
  CHECK(Target(rc) == kLine);
  CHECK(log.maxSeen == kLine);
  CHECK(rc->IsIdle());
  // The alpha timer stopped right after first taking alpha below 1/1024 (alpha was 1 at t = 1 us).
  const Time end = lastAlphaChange;
  CHECK(end > MilliSeconds(90));
  const int64_t periods = (end - MicroSeconds(1)).GetPicoSeconds() / MicroSeconds(55).GetPicoSeconds();
  CHECK(MicroSeconds(1) + MicroSeconds(55) * periods == end);
  double alpha = 1.0;
  double previous = 1.0;
  for (int64_t k = 0; k < periods; ++k)
  {
    previous = alpha;
    alpha = (1 - kG) * alpha;
  }
  CHECK(rc->GetAlpha() == alpha);
  CHECK(alpha < 1.0 / 1024);
  CHECK(previous >= 1.0 / 1024);
  Simulator::Destroy();
}

TEST_CASE("DCQCN: CNPs every 50 us drive the rate down to MinRate and never below", "[dcqcn]")
{
  auto rc = Make();
  rc->SetAttribute("MinRate", DataRateValue(DataRate("3Gb/s")));
  RateLog log;
  log.Connect(rc);
  rc->Start(DataRate(kLine));
  std::vector<uint64_t> after;
  for (int k = 0; k < 12; ++k)
  {
    Simulator::Schedule(MicroSeconds(50 * k),
                        [&]
                        {
                          rc->OnCnp();
                          after.push_back(Rate(rc));
                          CHECK(rc->GetAlpha() == 1.0); // no 55 us gap: alpha never decays
                        });
  }
  Simulator::Stop(MicroSeconds(50 * 11 + 1));
  Simulator::Run();
  const std::vector<uint64_t> expected = { 50000000000ULL, 25000000000ULL, 12500000000ULL, 6250000000ULL,
                                           3125000000ULL,  3000000000ULL,  3000000000ULL,  3000000000ULL,
                                           3000000000ULL,  3000000000ULL,  3000000000ULL,  3000000000ULL };
  CHECK(after == expected);
  CHECK(log.minSeen == 3000000000ULL);
  // The timers never fired between CNPs: the only rate changes are the 6 distinct cuts (and Start).
  CHECK(log.newRates.size() == 1 + 5 + 1);
  Simulator::Destroy();
}

TEST_CASE("DCQCN: the default MinRate (1 Mb/s) holds under a long CNP storm", "[dcqcn]")
{
  auto rc = Make();
  RateLog log;
  log.Connect(rc);
  rc->Start(DataRate(kLine));
  for (int k = 0; k < 40; ++k)
  {
    Simulator::Schedule(MicroSeconds(50 * k), [&] { rc->OnCnp(); });
  }
  Simulator::Stop(MicroSeconds(50 * 39 + 1));
  Simulator::Run();
  CHECK(Rate(rc) == 1000000ULL);
  CHECK(log.minSeen == 1000000ULL);
  Simulator::Destroy();
}

TEST_CASE("DCQCN: the byte counter makes one increase stage per B bytes and restarts on a CNP", "[dcqcn]")
{
  auto rc = Make();
  rc->SetAttribute("ByteCounter", UintegerValue(1000000));
  rc->SetAttribute("RateIncreasePeriod", TimeValue(MilliSeconds(10))); // keep the timer out of the way
  RateLog log;
  log.Connect(rc);
  rc->Start(DataRate(kLine));
  int checks = 0;
  Simulator::Schedule(Time(0),
                      [&]
                      {
                        rc->OnCnp();
                        CHECK(Rate(rc) == 50000000000ULL);
                      });
  Simulator::Schedule(MicroSeconds(1),
                      [&]
                      {
                        rc->OnBytesSent(400000);
                        rc->OnBytesSent(400000);
                        CHECK(Rate(rc) == 50000000000ULL); // 800 kB < B
                        rc->OnBytesSent(400000);           // 1.2 MB: stage 0, fast recovery; 200 kB carried
                        CHECK(Rate(rc) == 75000000000ULL);
                        rc->OnBytesSent(800000); // exactly B again
                        CHECK(Rate(rc) == 87500000000ULL);
                        rc->OnBytesSent(2000000); // two stages at once
                        CHECK(Rate(rc) == 96875000000ULL);
                        CHECK(Target(rc) == kLine);
                        rc->OnBytesSent(500000); // half a stage pending...
                        CHECK(Rate(rc) == 96875000000ULL);
                        ++checks;
                      });
  Simulator::Schedule(MicroSeconds(3),
                      [&]
                      {
                        rc->OnCnp(); // ...discarded by the CNP
                        CHECK(Target(rc) == 96875000000ULL);
                        CHECK(Rate(rc) == 48437500000ULL);
                        rc->OnBytesSent(600000);
                        CHECK(Rate(rc) == 48437500000ULL); // would have been a stage with the 500 kB carried over
                        rc->OnBytesSent(400000);
                        CHECK(Rate(rc) == 72656250000ULL); // (96.875G + 48.4375G) / 2
                        ++checks;
                      });
  Simulator::Stop(MicroSeconds(4));
  Simulator::Run();
  CHECK(checks == 2);
  // Start, cut, 4 byte-counter increases, cut, 1 increase.
  CHECK(log.newRates.size() == 8);
  Simulator::Destroy();
}

TEST_CASE("DCQCN: no event is scheduled while idle, before a CNP or after recovery", "[dcqcn]")
{
  auto rc = Make();
  rc->Start(DataRate(kLine));
  // Before any CNP: sending at line rate costs nothing.
  rc->OnBytesSent(100000000);
  CHECK(rc->IsIdle());
  Simulator::Schedule(Seconds(1), [] {});
  uint64_t before = Simulator::GetEventCount();
  Simulator::Run();
  CHECK(Simulator::GetEventCount() - before == 1);

  // One CNP, then no congestion: the object goes quiet by itself.
  Simulator::ScheduleNow([&] { rc->OnCnp(); });
  before = Simulator::GetEventCount();
  Simulator::Stop(Seconds(1));
  Simulator::Run();
  const uint64_t recoveryEvents = Simulator::GetEventCount() - before; // with the CNP and the Stop
  CHECK(recoveryEvents > 1000); // the alpha timer really ran (about 1,770 periods to reach 1/1024)
  CHECK(recoveryEvents < 2000);
  CHECK(Rate(rc) == kLine);
  CHECK(rc->IsIdle());

  // A long idle period after recovery, with the QP sending: zero events of ours.
  Simulator::Schedule(Seconds(10),
                      [&]
                      {
                        for (int i = 0; i < 1000; ++i)
                        {
                          rc->OnBytesSent(4096);
                        }
                      });
  before = Simulator::GetEventCount();
  Simulator::Stop(Seconds(11));
  Simulator::Run();
  CHECK(Simulator::GetEventCount() - before == 2); // the sender's burst and the Stop
  CHECK(rc->IsIdle());

  // And the next CNP restarts the timers.
  const double alpha = rc->GetAlpha();
  CHECK(alpha > 0.0);
  rc->OnCnp();
  CHECK_FALSE(rc->IsIdle());
  CHECK(Rate(rc) == static_cast<uint64_t>(static_cast<double>(kLine) * (1 - alpha / 2)));
  CHECK(Rate(rc) < kLine);
  Simulator::Destroy();
}

TEST_CASE("DCQCN: CutInterval defers and coalesces CNPs; Stop cancels everything", "[dcqcn]")
{
  auto rc = Make();
  rc->SetAttribute("CutInterval", TimeValue(MicroSeconds(4)));
  RateLog log;
  log.Connect(rc);
  rc->Start(DataRate(kLine));
  int checks = 0;
  Simulator::Schedule(Time(0), [&] { rc->OnCnp(); });
  Simulator::Schedule(MicroSeconds(1), [&] { rc->OnCnp(); });
  Simulator::Schedule(MicroSeconds(2), [&] { rc->OnCnp(); });
  Simulator::Schedule(MicroSeconds(4) - PicoSeconds(1),
                      [&]
                      {
                        CHECK(Rate(rc) == kLine / 2); // deferred
                        ++checks;
                      });
  Simulator::Schedule(MicroSeconds(4) + PicoSeconds(1),
                      [&]
                      {
                        CHECK(Rate(rc) == kLine / 4); // one cut for the two CNPs
                        ++checks;
                      });
  Simulator::Schedule(MicroSeconds(9),
                      [&]
                      {
                        rc->OnCnp(); // 5 us after the last cut: immediate
                        CHECK(Rate(rc) == kLine / 8);
                        rc->Stop();
                        CHECK(rc->IsIdle());
                        rc->OnCnp(); // ignored once stopped
                        CHECK(Rate(rc) == kLine / 8);
                        ++checks;
                      });
  Simulator::Run();
  CHECK(checks == 3);
  CHECK(log.newRates.size() == 4); // Start and three cuts: no increase after Stop
  CHECK(Rate(rc) == kLine / 8);
  CHECK(rc->IsIdle());
  Simulator::Destroy();
}

TEST_CASE("DCQCN: the increase steps scale with the line rate unless set", "[dcqcn]")
{
  // R_AI = line rate / 1,000 (the paper's 40 Mb/s at 40G), R_HAI = 10 x R_AI: after a cut at 100G
  // and one byte-counter stage past F, the target rises by 100 Mb/s; at 400G by 400 Mb/s.
  for (const uint64_t line : { 100000000000ULL, 400000000000ULL })
  {
    auto rc = Make();
    rc->SetAttribute("ByteCounter", UintegerValue(1000));
    rc->SetAttribute("FastRecoverySteps", UintegerValue(0));
    rc->Start(DataRate(line));
    rc->OnCnp();
    rc->OnCnp(); // Rt = line / 2, Rc = line / 4
    const uint64_t target = rc->GetTargetRate().GetBitRate();
    REQUIRE(target == line / 2);
    rc->OnBytesSent(1000); // one byte-counter stage, F = 0: additive increase
    CHECK(rc->GetTargetRate().GetBitRate() == target + line / 1000);
    rc->Stop();
  }
}

TEST_CASE("DCQCN profiles: parameters in effect, NP interval and ECN thresholds", "[dcqcn]")
{
  // ConnectX: the first cut takes alpha = initial_alpha_value 1023/1024.
  auto rc = Make(DcqcnRateControl::CONNECTX);
  rc->Start(DataRate(kLine));
  rc->OnCnp();
  CHECK(Rate(rc) == static_cast<uint64_t>(double(kLine) * (1 - 1023.0 / 2048)));
  CHECK(Target(rc) == kLine);
  rc->Stop();
  // Paper: first cut with alpha 1.
  auto paper = Make(DcqcnRateControl::PAPER);
  paper->Start(DataRate(kLine));
  paper->OnCnp();
  CHECK(Rate(paper) == kLine / 2);
  CHECK(DcqcnRateControl::NpCnpInterval(DcqcnRateControl::PAPER) == MicroSeconds(50));
  CHECK(DcqcnRateControl::NpCnpInterval(DcqcnRateControl::CONNECTX) == MicroSeconds(4));
  // Zhu et al.'s 5 KB / 200 KB / 1% at 40G, at a 100G reference: 2.5 times the bytes.
  const auto p = DcqcnRateControl::EcnThresholdsOf(DcqcnRateControl::PAPER, DataRate("100Gb/s"));
  CHECK(p.kminBytes == 12500);
  CHECK(p.kmaxBytes == 500000);
  CHECK(p.pmax == 0.01);
  const auto c = DcqcnRateControl::EcnThresholdsOf(DcqcnRateControl::CONNECTX, DataRate("100Gb/s"));
  CHECK(c.kminBytes == 150000);
  CHECK(c.kmaxBytes == 1500000);
  CHECK(DcqcnRateControl::DefaultProfile() == DcqcnRateControl::TUNED);
  // Tuned keeps NVIDIA's switch thresholds (its source gives none) and answers CNPs every 1 us.
  const auto t = DcqcnRateControl::EcnThresholdsOf(DcqcnRateControl::TUNED, DataRate("100Gb/s"));
  CHECK(t.kminBytes == 150000);
  CHECK(t.kmaxBytes == 1500000);
  CHECK(DcqcnRateControl::NpCnpInterval(DcqcnRateControl::TUNED) == MicroSeconds(1));
  Simulator::Destroy();
}

TEST_CASE("DCQCN MinDecreaseFactor bounds every cut (rpg_min_dec_fac)", "[dcqcn]")
{
  // Paper with alpha = 1 halves the rate; a factor of 0.8 leaves 80% of it instead.
  auto rc = Make(DcqcnRateControl::PAPER);
  rc->SetAttribute("MinDecreaseFactor", DoubleValue(0.8));
  rc->Start(DataRate(kLine));
  rc->OnCnp();
  CHECK(Rate(rc) == static_cast<uint64_t>(double(kLine) * 0.8));
  rc->OnCnp();
  CHECK(Rate(rc) == static_cast<uint64_t>(double(static_cast<uint64_t>(double(kLine) * 0.8)) * 0.8));
  rc->Stop();
  Simulator::Destroy();
}

TEST_CASE("DCQCN Tuned: every CNP 1 us apart cuts 5%; recovery adds 14 Mb/s per 60 us stage", "[dcqcn]")
{
  auto rc = Make(DcqcnRateControl::TUNED);
  rc->Start(DataRate(kLine));
  std::vector<uint64_t> rates;
  for (int k = 0; k < 10; ++k)
  {
    Simulator::Schedule(MicroSeconds(k), [&] { rc->OnCnp(); rates.push_back(Rate(rc)); });
  }
  // After the last cut (at 9 us) only the timer raises the rate: the first stage (F = 1) is fast
  // recovery towards the unclamped target; from the second, additive increase of 14 Mb/s.
  uint64_t afterCuts = 0, firstStage = 0, secondStage = 0, targetSecond = 0;
  Simulator::Schedule(MicroSeconds(9) + NanoSeconds(1), [&] { afterCuts = Rate(rc); });
  Simulator::Schedule(MicroSeconds(69) + NanoSeconds(1), [&] { firstStage = Rate(rc); });
  Simulator::Schedule(MicroSeconds(129) + NanoSeconds(1),
                      [&]
                      {
                        secondStage = Rate(rc);
                        targetSecond = Target(rc);
                      });
  Simulator::Stop(MicroSeconds(130));
  Simulator::Run();
  REQUIRE(rates.size() == 10);
  uint64_t expected = kLine;
  for (int k = 0; k < 10; ++k)
  {
    expected = static_cast<uint64_t>(double(expected) * 0.95); // alpha near 1: the 5% bound decides
    CHECK(rates[k] == expected);
  }
  CHECK(afterCuts == expected);
  CHECK(firstStage == Halfway(kLine, expected)); // the target stayed at the line rate
  CHECK(targetSecond == kLine);                  // capped: additive increase cannot pass the line rate
  CHECK(secondStage == Halfway(kLine, firstStage));
  rc->Stop();
  Simulator::Destroy();
}

TEST_CASE("DCQCN ConnectX: alpha follows the share of 1 us periods with a CNP", "[dcqcn]")
{
  // dce_tcp_g 1019 (g = 5/1024) once per dce_tcp_rtt = 1 us: a CNP every 8 us holds alpha near
  // 1/8 of its saturation instead of at 1, and 300 us without CNPs decay it by (1019/1024)^300.
  const double g = 5.0 / 1024;
  auto rc = Make(DcqcnRateControl::CONNECTX);
  rc->Start(DataRate(kLine));
  std::vector<double> atCnp;
  for (int k = 0; k < 100; ++k)
  {
    // 0.5 us into periods 0, 8, 16, ...: the first CNP starts the grid at 0.5 us.
    Simulator::Schedule(NanoSeconds(500) + MicroSeconds(8 * k), [&] { rc->OnCnp(); atCnp.push_back(rc->GetAlpha()); });
  }
  double expected = 1023.0 / 1024;
  std::vector<double> model{ expected };
  for (int k = 1; k < 100; ++k)
  {
    // Periods 8(k-1) .. 8k-1 have ended: the first held a CNP (except for the grid's start).
    expected = k == 1 ? expected * std::pow(1 - g, 8) : ((1 - g) * expected + g) * std::pow(1 - g, 7);
    model.push_back(expected);
  }
  double afterIdle = 0;
  Simulator::Schedule(NanoSeconds(500) + MicroSeconds(8 * 99 + 300), [&] { afterIdle = rc->GetAlpha(); });
  Simulator::Stop(MicroSeconds(8 * 99 + 301));
  Simulator::Run();
  REQUIRE(atCnp.size() == 100);
  for (int k = 0; k < 100; ++k)
  {
    CHECK(atCnp[k] == Approx(model[k]).epsilon(1e-12));
  }
  CHECK(atCnp.back() < 0.25); // the paper's per-CNP rule would hold it at 1 (CNPs every 8 us < K)
  CHECK(afterIdle == Approx(((1 - g) * model.back() + g) * std::pow(1 - g, 299)).epsilon(1e-12));
  Simulator::Destroy();
}

TEST_CASE("DCQCN ConnectX: cuts in a row keep the target; the byte counter recovers in 32 KB steps", "[dcqcn]")
{
  auto rc = Make(DcqcnRateControl::CONNECTX);
  rc->Start(DataRate(kLine));
  int checks = 0;
  uint64_t afterSecond = 0;
  Simulator::Schedule(Time(0), [&] { rc->OnCnp(); });
  Simulator::Schedule(MicroSeconds(10),
                      [&]
                      {
                        const uint64_t before = Rate(rc);
                        const double alpha = rc->GetAlpha();
                        rc->OnCnp(); // 10 us after the first cut: no deferral, no timer increase since
                        afterSecond = Rate(rc);
                        CHECK(afterSecond == static_cast<uint64_t>(double(before) * (1 - alpha / 2)));
                        CHECK(Target(rc) == kLine); // the paper sets Rt to the rate it cut from, 50 Gb/s
                        // rpg_threshold F = 1: the first 32,767 bytes are fast recovery, then additive
                        // increase (Rt += 5 Mb/s, capped at the line rate), each halving the gap to Rt.
                        uint64_t r = afterSecond;
                        for (int stage = 0; stage < 8; ++stage)
                        {
                          rc->OnBytesSent(32766);
                          CHECK(Rate(rc) == r); // one byte short of a stage
                          rc->OnBytesSent(1);
                          CHECK(Target(rc) == kLine);
                          r = Halfway(kLine, r);
                          CHECK(Rate(rc) == r);
                        }
                        CHECK(Rate(rc) > 0.99 * kLine); // 262 KB after the cut: 21 us at 100G
                        ++checks;
                      });
  Simulator::Stop(MicroSeconds(11));
  Simulator::Run();
  CHECK(checks == 1);
  CHECK(afterSecond < kLine / 3);
  Simulator::Destroy();
}

TEST_CASE("DCQCN ConnectX: after a timer increase the next cut clamps the target; cuts 4 us apart", "[dcqcn]")
{
  auto rc = Make(DcqcnRateControl::CONNECTX);
  rc->Start(DataRate(kLine));
  int checks = 0;
  Simulator::Schedule(Time(0), [&] { rc->OnCnp(); });
  Simulator::Schedule(MicroSeconds(1),
                      [&]
                      {
                        const uint64_t r = Rate(rc);
                        rc->OnCnp(); // within rate_reduce_monitor_period: deferred to t = 4 us
                        CHECK(Rate(rc) == r);
                        ++checks;
                      });
  Simulator::Schedule(MicroSeconds(4) + PicoSeconds(1),
                      [&]
                      {
                        CHECK(Rate(rc) < kLine / 3); // the deferred cut
                        CHECK(Target(rc) == kLine);
                        ++checks;
                      });
  // rpg_time_reset: the timer's first stage 300 us after the cut (fast recovery) raises the
  // rate; the cut after it sets Rt to the rate it cuts from.
  Simulator::Schedule(MicroSeconds(305),
                      [&]
                      {
                        const uint64_t r = Rate(rc);
                        CHECK(r > kLine / 2);
                        CHECK(r < kLine);
                        rc->OnCnp();
                        CHECK(Target(rc) == r);
                        ++checks;
                      });
  Simulator::Stop(MicroSeconds(306));
  Simulator::Run();
  CHECK(checks == 3);
  Simulator::Destroy();
}
