// Unit tests of NSCC's reaction to an ACK whose RTT is below the base RTT: the queueing delay is
// max(0, RTT - base RTT), so such an ACK must act exactly as one at the base RTT (zero delay).
// Before the fix the negative difference went through Time::GetSeconds, a left shift of a
// negative value in ns-3's int64x64 that UBSan reports (scripts/test.sh --sanitize); the release
// build already clamped the result, which these tests pin down as well.
#include "models/mrc/nscc-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/simulator.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

using namespace ns3;

namespace
{

/// The base RTT (a function, not a static Time: the resolution is set in main, after statics).
Time
Base()
{
  return MicroSeconds(10);
}

constexpr uint64_t kLine = 100000000000ULL; // 100 Gb/s
constexpr uint32_t kMtu = 4096;             // the MTU the QP gives Init

/// A controller started at half a BDP, so that increases are not clipped by MaxWindow.
Ptr<NsccCongestionControl>
HalfBdp()
{
  auto cc = CreateLight<NsccCongestionControl>();
  cc->SetAttribute("InitialWindow", DoubleValue(0.5));
  cc->Init(MrcCcPath{ Base(), DataRate(kLine), kMtu });
  return cc;
}

/// Windows after each of `acks` ACKs of one MTU, all measured at `rtt`, without ECN unless `ecn`.
std::vector<uint64_t>
Windows(Time rtt, int acks, bool ecn = false)
{
  Ptr<NsccCongestionControl> cc = HalfBdp();
  std::vector<uint64_t> w;
  for (int k = 0; k < acks; ++k)
  {
    cc->OnAck(kMtu, rtt, ecn);
    w.push_back(cc->GetWindow());
  }
  return w;
}

} // namespace

TEST_CASE("NSCC: an ACK with an RTT below the base RTT grows the window as one at the base RTT", "[nscc]")
{
  const std::vector<uint64_t> atBase = Windows(Base(), 20);
  // Zero queueing delay: fair plus the whole proportional increase (gain 8), per MTU acknowledged.
  const double w0 = double(HalfBdp()->GetWindow());
  CHECK(w0 == Approx(0.5 * 125000).margin(1)); // the BDP: 10 us at 100 Gb/s
  const double perRtt = double(kMtu) / w0;
  CHECK(atBase.front() == uint64_t(w0 + 1.0 * kMtu * perRtt + 8.0 * kMtu * 1.0 * perRtt));
  CHECK(atBase.back() > atBase.front());
  for (const Time& rtt : { Base() - PicoSeconds(1), Base() - MicroSeconds(3), Time(0) })
  {
    INFO("rtt " << rtt.GetPicoSeconds() << " ps");
    CHECK(Windows(rtt, 20) == atBase);
  }
  Simulator::Destroy();
}

TEST_CASE("NSCC: an ECN-marked ACK with an RTT below the base RTT is a transient mark", "[nscc]")
{
  // ECN with a delay under the target: no change, below the base RTT as at it.
  const uint64_t initial = HalfBdp()->GetWindow();
  CHECK(Windows(Base(), 5, true) == std::vector<uint64_t>(5, initial));
  CHECK(Windows(Base() - MicroSeconds(3), 5, true) == std::vector<uint64_t>(5, initial));
  Simulator::Destroy();
}
