// Figures of a fabric for comparing designs: counts of GPUs, switches, links and optics; hop
// counts and shortest-path diversity; bisection bandwidth; a power estimate. All are computed
// from the built graph and its routing, never from closed-form formulas.
#ifndef MRCSIM_TOPOLOGIES_FABRIC_FIGURES_H
#define MRCSIM_TOPOLOGIES_FABRIC_FIGURES_H

#include "topologies/fabric-routing.h"
#include "topologies/fabric-spec.h"

#include <nlohmann/json.hpp>

#include <iosfwd>

namespace mrcsim
{

/// \brief Figures of one fabric.
struct FabricFigures
{
  std::string name;
  std::string kind;
  uint64_t gpus = 0;
  int planes = 0;
  int tiers = 0;
  uint64_t switches = 0;
  std::vector<std::vector<uint64_t>> switchesPerPlaneTier; ///< [plane][tier]
  std::vector<uint64_t> switchesPerTier;                   ///< summed over planes
  uint64_t links = 0;
  std::vector<uint64_t> linksPerLevel; ///< [0]: GPU-T0, [t]: tier t-1 to tier t
  uint64_t transceivers = 0;           ///< link ends (one optical module port each)
  double transceivers800g = 0;         ///< link-end capacity in 800 Gb/s module equivalents
  int maxSwitchHops = 0;               ///< longest GPU-to-GPU shortest path, in switches
  uint32_t pathPairSrc = 0;            ///< GPU pair used for the path counts: GPU 0 and a
  uint32_t pathPairDst = 0;            ///< GPU on the leaf farthest from it
  std::vector<uint64_t> pathsPerPlane; ///< distinct shortest paths of that pair, per plane
  uint64_t pathsTotal = 0;
  double gpuBandwidthGbps = 0; ///< NIC bandwidth per GPU (sum over its ports)
  double bisectionTbps = 0;    ///< min over tier cuts of half the capacity crossing it
  double powerSwitchesKw = 0;
  double powerOpticsKw = 0;
  double powerTotalKw = 0;
};

/// \brief Computes the figures of a fabric (routing must have been built, groups optional).
FabricFigures ComputeFigures(const Fabric& fabric,
                             const FabricRouting& routing,
                             const std::string& kind,
                             const PowerModel& power);

nlohmann::json FiguresToJson(const FabricFigures& f);
/// \brief A two-column human-readable table.
void PrintFigures(const FabricFigures& f, std::ostream& out);

} // namespace mrcsim

#endif
