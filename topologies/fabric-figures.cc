#include "topologies/fabric-figures.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace mrcsim
{

FabricFigures
ComputeFigures(const Fabric& fabric, const FabricRouting& routing, const std::string& kind, const PowerModel& power)
{
  FabricFigures f;
  f.name = fabric.Name();
  f.kind = kind;
  f.gpus = fabric.NumGpus();
  f.planes = fabric.NumPlanes();
  f.tiers = fabric.NumTiers();
  f.switches = fabric.NumSwitches();
  f.switchesPerTier.assign(f.tiers, 0);
  for (int p = 0; p < f.planes; ++p)
  {
    f.switchesPerPlaneTier.emplace_back();
    for (int t = 0; t < f.tiers; ++t)
    {
      f.switchesPerPlaneTier[p].push_back(fabric.Switches(p, t).size());
      f.switchesPerTier[t] += fabric.Switches(p, t).size();
    }
  }

  // Capacity crossing each level: level 0 is GPU-T0, level t joins tier t-1 to tier t.
  f.links = fabric.NumLinks();
  f.linksPerLevel.assign(f.tiers, 0);
  std::vector<double> capacityPerLevel(f.tiers, 0);
  double linkEndGbps = 0;
  for (uint32_t id = 0; id < fabric.NumLinks(); ++id)
  {
    auto [a, b] = fabric.Ends(id);
    const FabricNode& na = fabric.Node(a);
    const FabricNode& nb = fabric.Node(b);
    int level = (na.role == NodeRole::Gpu || nb.role == NodeRole::Gpu) ? 0 : std::max(na.tier, nb.tier);
    if (na.role == NodeRole::Switch && nb.role == NodeRole::Switch && na.tier == nb.tier)
    {
      level = na.tier; // same-tier links (user fabrics) count with the level below
    }
    double gbps = fabric.Link(id).rateBps / 1e9;
    f.linksPerLevel[level] += 1;
    capacityPerLevel[level] += gbps;
    linkEndGbps += 2 * gbps;
  }
  f.transceivers = 2 * f.links;
  f.transceivers800g = linkEndGbps / 800.0;

  // Fabric::Validate refuses a fabric without GPUs or switches, but figures are computed from
  // whatever they are given: GPU 0 and level 0 may not exist.
  double gpuGbps = 0;
  for (uint16_t p = 0; fabric.NumGpus() > 0 && p < fabric.Degree(fabric.Gpu(0)); ++p)
  {
    gpuGbps += fabric.LinkAt(fabric.Gpu(0), p).rateBps / 1e9;
  }
  f.gpuBandwidthGbps = gpuGbps;
  double bisection = capacityPerLevel.empty() ? 0 : capacityPerLevel[0];
  for (int t = 1; t < f.tiers; ++t)
  {
    bisection = std::min(bisection, capacityPerLevel[t]);
  }
  f.bisectionTbps = bisection / 2 / 1000.0;

  f.maxSwitchHops = routing.MaxSwitchHops();
  // The pair: GPU 0 and the first GPU on the leaf farthest from GPU 0's leaf in plane 0.
  uint32_t farLeaf = f.planes > 0 ? routing.FarthestLeafFromFirst(0) : 0;
  uint32_t first = 0;
  f.pathPairSrc = 0;
  f.pathPairDst = 0;
  for (uint32_t g = 0; f.planes > 0 && g < f.gpus; ++g)
  {
    const Attachment& a = routing.Attach(g, 0);
    if (a.valid && a.leafIndex == farLeaf && g != first)
    {
      f.pathPairDst = g;
      break;
    }
  }
  for (int p = 0; p < f.planes && f.gpus > 0; ++p)
  {
    f.pathsPerPlane.push_back(routing.CountPaths(f.pathPairSrc, f.pathPairDst, p));
    f.pathsTotal += f.pathsPerPlane.back();
  }

  f.powerSwitchesKw = f.switches * power.switchWatts / 1000.0;
  f.powerOpticsKw = linkEndGbps / 100.0 * power.portWattsPer100G / 1000.0;
  f.powerTotalKw = f.powerSwitchesKw + f.powerOpticsKw;
  return f;
}

nlohmann::json
FiguresToJson(const FabricFigures& f)
{
  return nlohmann::json{
    { "name", f.name },
    { "kind", f.kind },
    { "gpus", f.gpus },
    { "planes", f.planes },
    { "tiers", f.tiers },
    { "switches",
      { { "total", f.switches }, { "per_tier", f.switchesPerTier }, { "per_plane_tier", f.switchesPerPlaneTier } } },
    { "links", { { "total", f.links }, { "per_level", f.linksPerLevel } } },
    { "optics", { { "transceivers", f.transceivers }, { "transceivers_800g_equivalent", f.transceivers800g } } },
    { "max_switch_hops", f.maxSwitchHops },
    { "shortest_paths",
      { { "pair", { f.pathPairSrc, f.pathPairDst } }, { "per_plane", f.pathsPerPlane }, { "total", f.pathsTotal } } },
    { "gpu_bandwidth_gbps", f.gpuBandwidthGbps },
    { "bisection_tbps", f.bisectionTbps },
    { "power_kw", { { "switches", f.powerSwitchesKw }, { "optics", f.powerOpticsKw }, { "total", f.powerTotalKw } } },
  };
}

void
PrintFigures(const FabricFigures& f, std::ostream& out)
{
  auto row = [&out](const std::string& k, const std::string& v)
  { out << "  " << std::left << std::setw(34) << k << v << "\n"; };
  auto list = [](const std::vector<uint64_t>& xs)
  {
    std::ostringstream s;
    for (size_t i = 0; i < xs.size(); ++i)
      s << (i ? " / " : "") << xs[i];
    return s.str();
  };
  auto num = [](double x, int prec)
  {
    std::ostringstream s;
    s << std::fixed << std::setprecision(prec) << x;
    return s.str();
  };
  out << f.name << " (" << f.kind << ")\n";
  row("GPUs", std::to_string(f.gpus));
  row("planes x tiers", std::to_string(f.planes) + " x " + std::to_string(f.tiers));
  row("switches", std::to_string(f.switches));
  row("switches per tier (all planes)", list(f.switchesPerTier));
  if (f.planes > 1)
    row("switches per tier (one plane)", list(f.switchesPerPlaneTier[0]));
  row("links", std::to_string(f.links));
  row("links per level (GPU-T0, T0-T1..)", list(f.linksPerLevel));
  row("transceivers (link ends)", std::to_string(f.transceivers));
  row("transceivers, 800G equivalent", num(f.transceivers800g, 0));
  row("max switch hops GPU to GPU", std::to_string(f.maxSwitchHops));
  row("shortest paths gpu" + std::to_string(f.pathPairSrc) + " -> gpu" + std::to_string(f.pathPairDst),
      std::to_string(f.pathsTotal) + " (per plane " +
        (f.pathsPerPlane.empty() ? "-" : list({ f.pathsPerPlane.front() })) + (f.planes > 1 ? ", ..." : "") + ")");
  row("bandwidth per GPU", num(f.gpuBandwidthGbps, 0) + " Gb/s");
  row("bisection bandwidth", num(f.bisectionTbps, 1) + " Tb/s");
  row("power (switches + optics)",
      num(f.powerTotalKw, 1) + " kW (" + num(f.powerSwitchesKw, 1) + " + " + num(f.powerOpticsKw, 1) + ")");
}

} // namespace mrcsim
