#include "topologies/routing-check.h"

#include <random>

namespace mrcsim
{

RoutingCheckResult
CheckRouting(const FabricRouting& routing,
             uint64_t samples,
             uint64_t seed,
             uint32_t exhaustiveGpus,
             uint32_t choicesPerPair)
{
  RoutingCheckResult r;
  const Fabric& fabric = routing.GetFabric();
  try
  {
    fabric.Validate();
  }
  catch (const std::exception& e)
  {
    r.firstError = e.what();
    return r;
  }
  r.reachability = routing.Reachability();
  // With every link up, each GPU must reach every other in every plane: the transports deal
  // connections over all planes (an MRC QP sprays over each, a RoCEv2 QP is given one), so a
  // pair cut off in a plane is a wiring fault, not a failure to route around.
  bool intact = true;
  for (uint32_t link = 0; link < fabric.NumLinks() && intact; ++link)
    intact = routing.IsLinkUp(link);
  for (int plane = 0; intact && plane < fabric.NumPlanes(); ++plane)
  {
    const uint64_t cut = r.reachability.unreachablePerPlane[plane];
    if (cut == 0)
      continue;
    std::string pair;
    const uint32_t n = static_cast<uint32_t>(fabric.NumGpus());
    uint64_t budget = 1000000; // a pair named on any fabric a check walks in reasonable time
    for (uint32_t s = 0; s < n && pair.empty() && budget > 0; ++s)
      for (uint32_t d = 0; d < n && pair.empty() && budget > 0; ++d, --budget)
        if (s != d && !routing.Reachable(s, d, plane))
          pair = "gpu" + std::to_string(s) + " cannot reach gpu" + std::to_string(d) + "; ";
    r.firstError = "plane " + std::to_string(plane) + ": " + pair + std::to_string(cut) +
                   " GPU pairs unreachable with every link up (each GPU must reach every other in every plane)";
    return r;
  }
  if (routing.HasGroups())
  {
    r.firstError = routing.CheckGroupsAvoidDownLinks();
    if (!r.Ok())
    {
      return r;
    }
  }
  else
  {
    return r;
  }

  auto walk = [&](uint32_t src, uint32_t dst, int plane, uint64_t choice)
  {
    bool reachable = routing.Reachable(src, dst, plane);
    std::vector<PathHop> path = routing.Path(src, dst, plane, choice);
    if (path.empty())
    {
      if (reachable)
      {
        r.firstError = "gpu" + std::to_string(src) + " -> gpu" + std::to_string(dst) + " plane " +
                       std::to_string(plane) + ": reachable but no path";
      }
      ++r.unreachableWalks;
      return;
    }
    if (!reachable)
    {
      r.firstError = "gpu" + std::to_string(src) + " -> gpu" + std::to_string(dst) + " plane " + std::to_string(plane) +
                     ": a path to an unreachable GPU";
      return;
    }
    std::string err = routing.CheckPath(path, src, dst, plane);
    if (!err.empty())
    {
      r.firstError = "gpu" + std::to_string(src) + " -> gpu" + std::to_string(dst) + " plane " + std::to_string(plane) +
                     " choice " + std::to_string(choice) + ": " + err;
    }
    ++r.pathsWalked;
  };

  const uint32_t n = static_cast<uint32_t>(fabric.NumGpus());
  if (n <= exhaustiveGpus)
  {
    for (uint32_t s = 0; s < n && r.Ok(); ++s)
      for (uint32_t d = 0; d < n && r.Ok(); ++d)
        for (int p = 0; p < fabric.NumPlanes() && r.Ok(); ++p)
          for (uint32_t c = 0; c < choicesPerPair && r.Ok() && s != d; ++c)
            walk(s, d, p, c * 7919u);
    return r;
  }
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i < samples && r.Ok(); ++i)
  {
    uint32_t s = static_cast<uint32_t>(rng() % n);
    uint32_t d = static_cast<uint32_t>(rng() % n);
    if (s == d)
    {
      continue;
    }
    walk(s, d, static_cast<int>(rng() % fabric.NumPlanes()), rng());
  }
  return r;
}

} // namespace mrcsim
