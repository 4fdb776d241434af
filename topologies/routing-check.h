// Whole-fabric routing validation: structure, reachability in every plane, ECMP groups free of
// down links, and path walks (every hop on a live link, ending at the right NIC port, as long
// as the shortest path). Exhaustive on small fabrics, sampled on large ones.
#ifndef MRCSIM_TOPOLOGIES_ROUTING_CHECK_H
#define MRCSIM_TOPOLOGIES_ROUTING_CHECK_H

#include "topologies/fabric-routing.h"

#include <cstdint>
#include <string>

namespace mrcsim
{

struct RoutingCheckResult
{
  uint64_t pathsWalked = 0;
  uint64_t unreachableWalks = 0; ///< sampled (pair, plane) with no path (expected after failures)
  ReachabilityReport reachability;
  std::string firstError; ///< "" when every check passed
  bool Ok() const { return firstError.empty(); }
};

/// \brief Validates routing. Walks every (src, dst, plane) and `choicesPerPair` path choices
/// when the fabric has at most `exhaustiveGpus` GPUs, else `samples` random ones (fixed seed).
RoutingCheckResult CheckRouting(const FabricRouting& routing,
                                uint64_t samples,
                                uint64_t seed,
                                uint32_t exhaustiveGpus = 64,
                                uint32_t choicesPerPair = 4);

} // namespace mrcsim

#endif
