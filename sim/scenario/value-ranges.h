// The range model: what the simulator can represent and what the models need, for every value a
// scenario gives (its times, and its transports' ns-3 attributes). The scenario reader
// (scenario-spec.cc and the type registries' readers) and the attribute checker
// (attribute-check.cc) both take their bounds from here, so `validate`, `run`, --set, sweeps and
// the Python module refuse the same values, and a value they accept runs.
//
// ns-3 keeps time in 64-bit integers of the resolution the runner sets (picoseconds): at most
// 2^63 ps, about 9.2e6 s (106 days). Converting a larger time wraps silently, and ns-3 aborts on
// the negative delay that results. Every absolute time of a scenario (an event's at_us, a
// workload's start, the stop) is at most kMaxTimeUs, a ninth of that; every time attribute (a
// delay or period added to the current time) is at most kMaxAttributeTimeS, so that the current
// time plus several of them still fits.
#ifndef MRCSIM_SIM_SCENARIO_VALUE_RANGES_H
#define MRCSIM_SIM_SCENARIO_VALUE_RANGES_H

#include <cstdint>

namespace mrcsim::range
{

/// The simulator's time resolution (Time::PS), in microseconds: a positive time below it would
/// be 0.
constexpr double kTimeResolutionUs = 1e-6;
/// The largest absolute time of a scenario, about 11.6 simulated days: far beyond any run, yet it
/// catches a unit slip such as nanoseconds written where microseconds are meant. Times derived
/// from several keys (the last flap of a link_flap, a repair after a random failure) obey it too.
constexpr double kMaxTimeUs = 1e12;
/// The largest time attribute (a delay, timeout or period), in seconds: the same span, so that
/// the current time (at most kMaxTimeUs) plus a handful of such delays stays below 2^63 ps.
constexpr double kMaxAttributeTimeS = kMaxTimeUs / 1e6;
// Timers that back off by doubling (retransmission timeouts) need no bound of their own: each
// doubling waits for the previous timeout to expire, so before the stop a timeout is at most twice
// the time already simulated.
/// A tail-loss probe waits this many smoothed RTTs at most (RACK-TLP waits 2): the product must
/// stay a time the clock holds.
constexpr double kMaxLossProbeRtts = 1000;
/// Header bytes a data frame may carry beyond its payload (IPv6 with its uSID carrier, UDP, the
/// transport headers, Ethernet): queue limits and trimming thresholds are at least one frame of
/// the NIC's Mtu plus these, else a full packet could never be queued (or is always trimmed).
constexpr uint32_t kFrameHeaderAllowance = 256;
/// EVs of one MRC QP over all planes: the EV index travels in 14 bits of the UDP source port.
constexpr uint32_t kMaxEvsPerQp = 16384;

} // namespace mrcsim::range

#endif
