// Traffic patterns run as one-step collectives (see CollectiveWorkload): a random permutation, in
// which every GPU sends to exactly one other and receives from exactly one, and an incast of many
// senders onto one receiver. They leave out any compute or reduction: only the messages.
#ifndef MRCSIM_SIM_WORKLOADS_PATTERN_WORKLOAD_H
#define MRCSIM_SIM_WORKLOADS_PATTERN_WORKLOAD_H

#include "sim/workloads/collective-workload.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mrcsim
{

/// \brief A uniformly random derangement of 0..n-1 (n >= 2; no i maps to itself) from a SplitMix64
/// stream: Fisher-Yates shuffles until one has no fixed point (e ~ 2.7 tries on average). Drawn
/// with our own generator, not std::shuffle, whose results differ across standard libraries.
std::vector<uint32_t> DrawDerangement(uint32_t n, uint64_t& state);

/// \brief Every rank sends `bytes` to the rank a derangement names, a new derangement each
/// iteration, drawn from the stream seeded with `streamSeed`. Record: "permutation", bytes per GPU,
/// bus factor 1, ideal one message of `bytes`.
std::unique_ptr<CollectiveAlgorithm> MakePermutation(uint32_t ranks, uint64_t bytes, uint64_t streamSeed);

/// \brief Ranks 1..senders each send `bytes` to rank 0 at once. Record: "incast", the bytes the
/// receiver gets (senders x bytes, so that algorithm bandwidth is the receiver's goodput), bus
/// factor 1, ideal the receiver's NIC draining them all after one latency.
std::unique_ptr<CollectiveAlgorithm> MakeIncast(uint32_t senders, uint64_t bytes);

} // namespace mrcsim

#endif
