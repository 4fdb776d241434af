// The fair-share reference: when each flow of a run would finish if the links were shared
// max-min fairly among the flows crossing them at every instant, flows arriving when they were
// posted and leaving when done (progressive filling with arrivals and departures: a fluid model,
// no packets, no queues). On the paths a run actually used, it is what a perfect congestion
// control would reach there, so a transport's time against it separates what the paths cost (ECMP
// collisions: the fabric's fault) from what the congestion control costs (the transport's fault).
//
// Bertsekas and Gallager, "Data Networks" (2nd ed., 1992), Section 6.5.2: max-min fair rates by
// progressive filling, every unfrozen flow's rate raised together until a link fills, whose flows
// are then frozen. Here between consecutive arrivals and departures the rates are those of that
// allocation, recomputed at each.
#ifndef MRCSIM_SIM_REFERENCES_FAIR_SHARE_H
#define MRCSIM_SIM_REFERENCES_FAIR_SHARE_H

#include <cstdint>
#include <optional>
#include <vector>

namespace mrcsim
{

/// \brief A fluid flow: `bits` to carry from `startS` over every link of `links` (indices into
/// FairShareInput::capacityBps).
struct FairFlow
{
  double startS = 0;
  double bits = 0;
  std::vector<uint32_t> links;
};

struct FairShareInput
{
  std::vector<double> capacityBps; ///< per link, > 0
  std::vector<FairFlow> flows;
  /// Work allowed (flow-link updates summed over the allocations); past it the reference is not
  /// computed (a run of millions of flows would take longer than the simulation).
  uint64_t workLimit = uint64_t(1) << 23;
};

/// \brief Each flow's finish time in seconds, in the order of `input.flows`; nullopt when the
/// work exceeds `workLimit`. A flow of no bits, or with no links, finishes at its start.
/// Deterministic: the same input gives bit-identical times.
std::optional<std::vector<double>> FairShareFinishTimes(const FairShareInput& input);

/// \brief The max-min fair rates (bits per second) of the flows `active` (indices into
/// `input.flows`; their links are read, not their start or bits), in the order of `active`: one
/// allocation by progressive filling, as FairShareFinishTimes makes between events. Every active
/// flow must cross at least one link.
std::vector<double> MaxMinFairRates(const FairShareInput& input, const std::vector<uint32_t>& active);

} // namespace mrcsim

#endif
