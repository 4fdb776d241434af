// Small fabrics whose figures are easy to derive by hand, shared by the topology tests.
#ifndef MRCSIM_TESTS_TOPOLOGY_FABRIC_FIXTURES_H
#define MRCSIM_TESTS_TOPOLOGY_FABRIC_FIXTURES_H

#include "topologies/fabric-spec.h"

namespace mrcsim::test
{

/// 2 planes x 100G, 8 GPUs, T0: 4 down / 4 up, 2 T0 and 2 T1 per plane (2 links per T0-T1 pair).
inline FabricSpec
TinyMultiplane()
{
  FabricSpec s;
  s.kind = "multiplane";
  s.name = "tiny";
  s.multiplane.planes = 2;
  s.multiplane.portRateGbps = 100;
  s.multiplane.gpus = 8;
  s.multiplane.t0DownPorts = 4;
  s.multiplane.t0UpPorts = 4;
  s.multiplane.t1PerPlane = 2;
  s.multiplane.delays = { 1000, 1000 }; // 1 us links: the model tests' timings are derived from them
  return s;
}

inline FabricSpec
SmallFatTree(int tiers, uint32_t radix, uint32_t gpus, uint32_t gpusPerServer = 0)
{
  FabricSpec s;
  s.kind = gpusPerServer ? "rail_optimized" : "fat_tree";
  s.name = "ft";
  s.fatTree.tiers = tiers;
  s.fatTree.radix = radix;
  s.fatTree.portRateGbps = 800;
  s.fatTree.gpus = gpus;
  s.fatTree.gpusPerServer = gpusPerServer;
  s.fatTree.delays = { 1000, 1000 };
  return s;
}

} // namespace mrcsim::test

#endif
