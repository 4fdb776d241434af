// k-ary fat trees of 2-4 tiers (one plane). With h = k/2: a level-t block (t <= tiers-2) is h
// level-(t-1) blocks plus h^t tier-t switches; tier-t switch j of a block takes one link from
// each sub-block, to that sub-block's tier-(t-1) switch floor(j / h). The top tier (all ports
// down) is sized for the uplinks present: with B level-(tiers-2) blocks it has B h^(tiers-1) / k
// switches, h^(tiers-1) for a full tree. A partly filled last block keeps all its upper-tier
// switches (full bisection for the GPUs present; some ports stay unused).
// Rail-optimised: servers of G GPUs; GPU r of servers q*h .. q*h+h-1 sits on leaf q*G + r.
#include "topologies/fabric-spec.h"

#include <cmath>

namespace mrcsim
{

namespace
{

uint64_t
CeilDiv(uint64_t a, uint64_t b)
{
  return (a + b - 1) / b;
}

} // namespace

FatTreeShape
FatTreeShapeOf(const FatTreeSpec& s)
{
  // The counts of BuildFatTree's loops below.
  FatTreeShape shape;
  const uint64_t h = s.radix / 2;
  const uint64_t leaves =
    s.gpusPerServer > 0 ? CeilDiv(s.gpus / s.gpusPerServer, h) * s.gpusPerServer : CeilDiv(s.gpus, h);
  shape.switchesPerTier.push_back(leaves);
  shape.links = s.gpus;
  uint64_t span = 1;
  for (int t = 1; t < s.tiers - 1; ++t)
  {
    const uint64_t subBlocks = CeilDiv(leaves, span);
    uint64_t switchesPerBlock = 1;
    for (int i = 0; i < t; ++i)
      switchesPerBlock *= h;
    shape.switchesPerTier.push_back(CeilDiv(subBlocks, h) * switchesPerBlock);
    shape.links += subBlocks * switchesPerBlock;
    span *= h;
  }
  const uint64_t blocks = CeilDiv(leaves, span);
  shape.switchesPerTier.push_back(CeilDiv(blocks * span * h, s.radix));
  shape.links += blocks * span * h;
  return shape;
}

Fabric
BuildFatTree(const FatTreeSpec& s, const std::string& name)
{
  Fabric f(name);
  const uint64_t rate = static_cast<uint64_t>(std::llround(s.portRateGbps * 1e9));
  const uint64_t h = s.radix / 2;
  const bool rail = s.gpusPerServer > 0;

  uint64_t leaves = rail ? CeilDiv(s.gpus / s.gpusPerServer, h) * s.gpusPerServer : CeilDiv(s.gpus, h);
  // switches[t] holds tier t; blocks[t] = number of level-t blocks.
  std::vector<std::vector<VertexId>> sw(s.tiers);
  for (uint64_t i = 0; i < leaves; ++i)
    sw[0].push_back(f.AddSwitch(0, 0));

  uint64_t span = 1; // leaves per level-(t-1) block
  for (int t = 1; t < s.tiers - 1; ++t)
  {
    const uint64_t subBlocks = CeilDiv(leaves, span); // level-(t-1) blocks
    const uint64_t blocks = CeilDiv(subBlocks, h);
    uint64_t switchesPerBlock = 1;
    for (int i = 0; i < t; ++i)
      switchesPerBlock *= h;
    const uint64_t lowerPerSub = switchesPerBlock / h; // tier-(t-1) switches per sub-block
    for (uint64_t b = 0; b < blocks; ++b)
    {
      std::vector<VertexId> mine;
      for (uint64_t j = 0; j < switchesPerBlock; ++j)
      {
        mine.push_back(f.AddSwitch(0, t));
        sw[t].push_back(mine.back());
      }
      for (uint64_t j = 0; j < switchesPerBlock; ++j)
      {
        for (uint64_t sb = b * h; sb < std::min(subBlocks, (b + 1) * h); ++sb)
        {
          f.AddLink(sw[t - 1][sb * lowerPerSub + j / h], mine[j], rate, s.delays.fabricNs);
        }
      }
    }
    span *= h;
  }

  // Top tier: every port down, sized for the uplinks that exist. Uplink i of a block's
  // tier-(T-2) switch x is global uplink u = x * h + i of that block and goes to top switch
  // u mod topCount: each top switch gets k / blocks links from every block, and a lower switch's
  // uplinks land on h different top switches.
  const int top = s.tiers - 1;
  const uint64_t blocks = CeilDiv(leaves, span);
  const uint64_t lowerPerBlock = span; // h^(top-1): as many tier-(top-1) switches as leaves per block
  const uint64_t uplinksPerBlock = lowerPerBlock * h;
  const uint64_t topCount = CeilDiv(blocks * uplinksPerBlock, s.radix);
  for (uint64_t j = 0; j < topCount; ++j)
    sw[top].push_back(f.AddSwitch(0, top));
  for (uint64_t u = 0; u < uplinksPerBlock; ++u)
  {
    for (uint64_t b = 0; b < blocks; ++b)
    {
      f.AddLink(sw[top - 1][b * lowerPerBlock + u / h], sw[top][u % topCount], rate, s.delays.fabricNs);
    }
  }

  // GPUs last, so that GPU links follow the fabric links; each GPU has one port.
  for (uint64_t g = 0; g < s.gpus; ++g)
  {
    VertexId gpu = f.AddGpu();
    uint64_t leaf = g / h;
    if (rail)
    {
      uint64_t server = g / s.gpusPerServer;
      uint64_t r = g % s.gpusPerServer;
      leaf = (server / h) * s.gpusPerServer + r;
    }
    f.AddLink(gpu, sw[0][leaf], rate, s.delays.gpuNs);
  }
  return f;
}

} // namespace mrcsim
