// NSCC's window laws, one at a time, on the controller alone (no QP, no fabric). The laws are
// UEC's NSCC as the UET paper states its four cases (arXiv:2508.08906: delay against a target
// and ECN select proportional increase, fair increase, no change or multiplicative decrease) with
// uet-htsim's shapes and defaults (ultraethernet/uet-htsim: increase proportional to the distance
// below the target, fair increase normalised by the window so it is additive, a decrease of
// (delay - target) / delay bounded and at most once per base RTT, quick adapt to what was
// acknowledged, the window within one MTU and 1.5 BDP), as docs/MODEL.md (NSCC) gives them.
#include "models/mrc/nscc-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/simulator.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t kLine = 100000000000ULL; // 100 Gb/s
constexpr uint32_t kMtu = 4096;
constexpr double kBdp = 125000;             // 10 us at 100 Gb/s (the controller's, to a byte)
constexpr double kGain = 8.0;               // ProportionalGain
constexpr double kFair = 1.0;               // FairIncrease

Time
Base()
{
  return MicroSeconds(10);
}

/// The target queueing delay: TargetDelayFactor (0.75) base RTTs.
Time
Target()
{
  return NanoSeconds(7500);
}

/// An ACK's RTT with queueing delay `delay`.
Time
Rtt(Time delay)
{
  return Base() + delay;
}

/// A controller at `bdps` BDPs (below MaxWindow, so that increases are not clipped).
Ptr<NsccCongestionControl>
Nscc(double bdps = 0.5)
{
  auto cc = CreateLight<NsccCongestionControl>();
  cc->SetAttribute("InitialWindow", DoubleValue(bdps));
  cc->Init(MrcCcPath{ Base(), DataRate(kLine), kMtu });
  return cc;
}

/// Runs `f` at simulated time `t` (after the calls so far).
template <typename F>
void
At(Time t, F f)
{
  Simulator::Schedule(t - Simulator::Now(), f);
  Simulator::Run();
}

/// The window of a fresh controller at half a BDP (what the laws below start from).
double
W0()
{
  return double(Nscc()->GetWindow());
}

/// The window after one ACK of one MTU at queueing delay `delay`, from a fresh controller.
double
AfterOneAck(Time delay, bool ecn)
{
  Ptr<NsccCongestionControl> cc = Nscc();
  cc->OnAck(kMtu, Rtt(delay), ecn);
  return double(cc->GetWindow());
}

} // namespace

TEST_CASE("NSCC laws: the window starts at InitialWindow BDPs of the QP's line rate and base RTT", "[nscc]")
{
  const double bdp = double(Nscc()->GetBdp()); // base RTT x line rate, in whole bytes
  CHECK(bdp == Approx(kBdp).margin(1));
  CHECK(double(Nscc(0.5)->GetWindow()) == Approx(0.5 * bdp).margin(1));
  CHECK(double(Nscc(1.5)->GetWindow()) == Approx(1.5 * bdp).margin(1));
  Simulator::Destroy();
}

TEST_CASE("NSCC laws: an ACK's delay against the target and its ECN echo pick one of four reactions", "[nscc]")
{
  const double w0 = W0();
  const double perRtt = kMtu / w0; // the share of a window one MTU acknowledges
  // Low delay, no ECN: proportional increase (scaled by the distance below the target) plus fair.
  const double half = AfterOneAck(Target() / 2, false);
  CHECK(half == Approx(w0 + kMtu * perRtt * (kFair + kGain * 0.5)).margin(1));
  // High delay, no ECN: fair increase only ("congestion is going down": gently).
  CHECK(AfterOneAck(Target() * 2, false) == Approx(w0 + kMtu * perRtt * kFair).margin(1));
  // Low delay, ECN: no change (one path's mark, for the EV selector to act on).
  CHECK(AfterOneAck(Target() / 2, true) == Approx(w0).margin(1));
  CHECK(AfterOneAck(Time(0), true) == Approx(w0).margin(1));
  // High delay, ECN: multiplicative decrease by (delay - target) / delay: a third at 1.5 targets.
  CHECK(AfterOneAck(Target() * 3 / 2, true) == Approx(w0 * (1 - 1.0 / 3)).margin(2)); // whole bytes, rounded times
  Simulator::Destroy();
}

TEST_CASE("NSCC laws: the proportional increase falls linearly to nothing at the target", "[nscc]")
{
  const double w0 = W0();
  const double fairOnly = AfterOneAck(Target(), false) - w0;
  CHECK(fairOnly == Approx(kFair * kMtu * kMtu / w0).margin(1));
  // Increase less the fair part at 0, 1/4, 1/2 and 3/4 of the target: equal steps down, the
  // first being the whole gain.
  std::vector<double> proportional;
  for (int quarter = 0; quarter < 4; ++quarter)
  {
    proportional.push_back(AfterOneAck(Target() * quarter / 4, false) - w0 - fairOnly);
  }
  CHECK(proportional[0] == Approx(kGain * kMtu * kMtu / w0).margin(1));
  for (int q = 1; q < 4; ++q)
  {
    INFO("quarter " << q);
    CHECK(proportional[q - 1] - proportional[q] == Approx(proportional[0] / 4).margin(2));
  }
  // Above the target the delay no longer matters: fair increase only.
  CHECK(AfterOneAck(Target() * 3, false) - w0 == Approx(fairOnly).margin(1));
  Simulator::Destroy();
}

TEST_CASE("NSCC laws: the fair increase is additive, about FairIncrease MTUs per window acknowledged", "[nscc]")
{
  // Normalised by the window: a window's worth of ACKs adds about one MTU to a small window and
  // to a large one alike (a multiplicative law would add four times as much to a window four
  // times as large). A little less than one MTU: the window grows while its ACKs come in.
  std::vector<double> grown;
  for (const double bdps : { 0.25, 0.5, 1.0 })
  {
    INFO(bdps << " BDP");
    Ptr<NsccCongestionControl> cc = Nscc(bdps);
    const double w0 = double(cc->GetWindow());
    for (int k = 0; k < 8; ++k)
    {
      cc->OnAck(uint64_t(w0 / 8), Rtt(Target() * 2), false);
    }
    grown.push_back(double(cc->GetWindow()) - w0);
    CHECK(grown.back() == Approx(kFair * kMtu).epsilon(0.08));
    CHECK(grown.back() <= kFair * kMtu);
  }
  CHECK(grown.back() == Approx(grown.front()).epsilon(0.08));
  Simulator::Destroy();
}

TEST_CASE("NSCC laws: the decrease is at most MaxDecrease, and at most once per base RTT", "[nscc]")
{
  // Far above the target (delay - target) / delay nears 1: MaxDecrease (0.5) bounds it.
  CHECK(AfterOneAck(Target() * 5, true) == Approx(0.5 * W0()).margin(1));
  Simulator::Destroy();

  Ptr<NsccCongestionControl> cc = Nscc();
  const double w0 = double(cc->GetWindow());
  cc->OnAck(kMtu, Rtt(Target() * 2), true);
  const double once = double(cc->GetWindow());
  CHECK(once == Approx(w0 * 0.5).margin(1));
  // More marked ACKs within the same base RTT: no further cut.
  At(Base() - NanoSeconds(1), [&] { cc->OnAck(kMtu, Rtt(Target() * 2), true); });
  CHECK(double(cc->GetWindow()) == once);
  // A base RTT after the first cut: the next one.
  At(Base(), [&] { cc->OnAck(kMtu, Rtt(Target() * 2), true); });
  CHECK(double(cc->GetWindow()) == Approx(once * 0.5).margin(1));
  Simulator::Destroy();
}

TEST_CASE("NSCC laws: the window stays between one MTU and MaxWindow BDPs", "[nscc]")
{
  Ptr<NsccCongestionControl> cc = Nscc(1.4);
  for (int k = 0; k < 1000; ++k)
  {
    cc->OnAck(kMtu, Base(), false); // no queueing: the fastest growth there is
  }
  CHECK(cc->GetWindow() == uint64_t(1.5 * double(cc->GetBdp())));
  for (int k = 1; k <= 40; ++k)
  {
    At(Base() * k, [&] { cc->OnAck(kMtu, Rtt(Target() * 10), true); });
  }
  CHECK(cc->GetWindow() == kMtu);
  Simulator::Destroy();
}

TEST_CASE("NSCC laws: quick adapt after a loss or trim sets the window to what the last base RTT "
          "acknowledged, once a base RTT was measured, at most once per base RTT",
          "[nscc]")
{
  Ptr<NsccCongestionControl> cc = Nscc(1.0);
  // Five MTUs acknowledged in the first base RTT (far less than the window).
  for (int k = 0; k < 5; ++k)
  {
    At(MicroSeconds(k), [&] { cc->OnAck(kMtu, Rtt(Target() * 2), false); });
  }
  // Not yet a whole base RTT counted: a loss says nothing of the path.
  const uint64_t before = cc->GetWindow();
  At(MicroSeconds(6), [&] { cc->OnLoss(); });
  CHECK(cc->GetWindow() == before);
  // The next ACK closes the first base RTT of ACKs; the loss after it brings the window down to
  // what that base RTT acknowledged.
  At(Base(), [&] { cc->OnAck(kMtu, Rtt(Target() * 2), false); });
  At(Base() + MicroSeconds(1), [&] { cc->OnLoss(); });
  CHECK(cc->GetWindow() == 5 * kMtu);
  // Within the same base RTT, more losses and trims do not adapt again; a trim still takes its
  // packet's MTU off the window.
  At(Base() + MicroSeconds(2), [&] { cc->OnLoss(); });
  CHECK(cc->GetWindow() == 5 * kMtu);
  At(Base() + MicroSeconds(3), [&] { cc->OnTrim(); });
  CHECK(cc->GetWindow() == 4 * kMtu);
  Simulator::Destroy();
}

TEST_CASE("NSCC laws: a queueing delay above QuickAdaptDelay targets quick-adapts a flow that achieves "
          "less than an eighth of its maximum window, and only such a flow",
          "[nscc]")
{
  // Five MTUs acknowledged in the first base RTT, at twice the target: fair increase only.
  const auto firstRtt = [](Ptr<NsccCongestionControl> cc)
  {
    for (int k = 0; k < 5; ++k)
    {
      At(MicroSeconds(k), [&] { cc->OnAck(kMtu, Rtt(Target() * 2), false); });
    }
    At(Base(), [&] { cc->OnAck(kMtu, Rtt(Target() * 2), false); });
  };
  // Three targets of delay is below the threshold: the window grows (fair increase).
  Ptr<NsccCongestionControl> cc = Nscc(1.0);
  firstRtt(cc);
  const uint64_t before = cc->GetWindow();
  At(Base() + MicroSeconds(1), [&] { cc->OnAck(kMtu, Rtt(Target() * 3), false); });
  CHECK(cc->GetWindow() > before);
  // Beyond it, the window falls to what the last base RTT acknowledged (five MTUs, less than an
  // eighth of 1.5 BDPs), once per base RTT: the next ACK at that delay grows it again.
  At(Base() + MicroSeconds(2), [&] { cc->OnAck(kMtu, Rtt(Target() * 5), false); });
  CHECK(cc->GetWindow() == 5 * kMtu);
  At(Base() + MicroSeconds(3), [&] { cc->OnAck(kMtu, Rtt(Target() * 5), false); });
  CHECK(cc->GetWindow() > 5 * kMtu);
  Simulator::Destroy();

  // QuickAdaptDelay 0 turns the trigger off.
  Ptr<NsccCongestionControl> off = Nscc(1.0);
  off->SetAttribute("QuickAdaptDelay", DoubleValue(0.0));
  firstRtt(off);
  const uint64_t offBefore = off->GetWindow();
  At(Base() + MicroSeconds(2), [&] { off->OnAck(kMtu, Rtt(Target() * 5), false); });
  CHECK(off->GetWindow() > offBefore);
  Simulator::Destroy();

  // A flow that achieved an eighth of its maximum window or more keeps its window.
  Ptr<NsccCongestionControl> fast = Nscc(1.0);
  const int eighth = int(1.5 * kBdp / 8 / kMtu) + 1;
  for (int k = 0; k < eighth; ++k)
  {
    At(NanoSeconds(100 * k), [&] { fast->OnAck(kMtu, Rtt(Target() * 2), false); });
  }
  At(Base(), [&] { fast->OnAck(kMtu, Rtt(Target() * 2), false); });
  const uint64_t fastBefore = fast->GetWindow();
  At(Base() + MicroSeconds(2), [&] { fast->OnAck(kMtu, Rtt(Target() * 5), false); });
  CHECK(fast->GetWindow() > fastBefore);
  Simulator::Destroy();
}

namespace
{

void
RecordWindow(std::vector<std::pair<uint64_t, uint64_t>>* changes, uint64_t from, uint64_t to)
{
  changes->emplace_back(from, to);
}

} // namespace

TEST_CASE("NSCC: the Window trace reports the window's changes (old, new), from its first value", "[nscc]")
{
  std::vector<std::pair<uint64_t, uint64_t>> changes;
  auto cc = CreateLight<NsccCongestionControl>();
  cc->SetAttribute("InitialWindow", DoubleValue(0.5));
  REQUIRE(cc->TraceConnectWithoutContext("Window", MakeBoundCallback(&RecordWindow, &changes)));
  cc->Init(MrcCcPath{ Base(), DataRate(kLine), kMtu });
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].first == 0);
  CHECK(changes[0].second == cc->GetWindow());
  const uint64_t before = cc->GetWindow();
  cc->OnAck(kMtu, Rtt(Time(0)), false); // grows
  REQUIRE(changes.size() == 2);
  CHECK(changes[1] == std::make_pair(before, cc->GetWindow()));
  CHECK(cc->GetWindow() > before);
  Simulator::Destroy();
}
