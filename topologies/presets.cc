// Named fabrics shipped with the tool. The 131,072-GPU design follows docs/MODEL.md:
// 8 planes of 100G, 51.2 Tb/s switches as 512 x 100G ports, 512 T0 (256 down / 256 up) and
// 256 T1 per plane. Fat trees use 64 x 800G switches (the same 51.2 Tb/s silicon).
#include "topologies/fabric-spec.h"

namespace mrcsim
{

namespace
{

FabricSpec
Multiplane(const std::string& name,
           int planes,
           double gbps,
           uint32_t gpus,
           uint32_t down,
           uint32_t up,
           uint32_t t1,
           uint32_t radix)
{
  FabricSpec s;
  s.name = name;
  s.kind = "multiplane";
  s.multiplane.planes = planes;
  s.multiplane.portRateGbps = gbps;
  s.multiplane.gpus = gpus;
  s.multiplane.t0DownPorts = down;
  s.multiplane.t0UpPorts = up;
  s.multiplane.t1PerPlane = t1;
  s.multiplane.switchPorts = radix;
  return s;
}

FabricSpec
WithLinkDelay(FabricSpec s, uint32_t ns)
{
  s.multiplane.delays = { ns, ns };
  return s;
}

FabricSpec
FatTree(const std::string& name, int tiers, uint32_t gpus, uint32_t gpusPerServer = 0)
{
  FabricSpec s;
  s.name = name;
  s.kind = gpusPerServer ? "rail_optimized" : "fat_tree";
  s.fatTree.tiers = tiers;
  s.fatTree.radix = 64;
  s.fatTree.portRateGbps = 800;
  s.fatTree.gpus = gpus;
  s.fatTree.gpusPerServer = gpusPerServer;
  return s;
}

/// `s` with scale-up domains of `gpus` GPUs of `technology` (topologies/scale-up-spec.h).
FabricSpec
WithDomains(FabricSpec s, const std::string& technology, uint32_t gpus)
{
  s.scaleUp = ScaleUpOf(technology, gpus);
  return s;
}

} // namespace

const std::vector<Preset>&
Presets()
{
  static const std::vector<Preset> presets{
    { "multiplane-131k",
      "131,072 GPUs, 8 x 100G planes, 512 T0 (256 down/256 up) + 256 T1 per plane",
      Multiplane("multiplane-131k", 8, 100, 131072, 256, 256, 256, 512) },
    { "multiplane-8k",
      "8,192 GPUs, 8 x 100G planes, 32 T0 + 16 T1 per plane (16 links per T0-T1 pair)",
      Multiplane("multiplane-8k", 8, 100, 8192, 256, 256, 16, 512) },
    { "multiplane-1k",
      "1,024 GPUs, 8 x 100G planes, 32 T0 (32 down/32 up) + 16 T1 per plane",
      Multiplane("multiplane-1k", 8, 100, 1024, 32, 32, 16, 512) },
    { "multiplane-512",
      "512 GPUs, 8 x 100G planes, 16 T0 (32 down/32 up) + 16 T1 per plane",
      Multiplane("multiplane-512", 8, 100, 512, 32, 32, 16, 512) },
    { "multiplane-64",
      "64 GPUs, 8 x 100G planes, 4 T0 (16 down/16 up) + 8 T1 per plane",
      Multiplane("multiplane-64", 8, 100, 64, 16, 16, 8, 512) },
    { "multiplane-1k-4x200",
      "1,024 GPUs, 4 x 200G planes, 16 T0 (64 down/64 up) + 32 T1 per plane",
      Multiplane("multiplane-1k-4x200", 4, 200, 1024, 64, 64, 32, 256) },
    // The benchmark fabrics keep the 1 us links they were first measured with, so that the
    // benchmark's figures stay comparable from one version to the next.
    { "perm-8192",
      "8,192 GPUs on one 800G plane: 128 T0 (64 down/64 up) + 64 T1, 1 us links (the MRC benchmark fabric)",
      WithLinkDelay(Multiplane("perm-8192", 1, 800, 8192, 64, 64, 64, 128), 1000) },
    { "perm-512",
      "512 GPUs on one 800G plane: 8 T0 (64 down/64 up) + 64 T1, 1 us links (perm-8192's fabric at 1/16 scale)",
      WithLinkDelay(Multiplane("perm-512", 1, 800, 512, 64, 64, 64, 128), 1000) },
    { "fat-tree-2tier-2k", "2,048 GPUs, 2-tier fat tree of 64 x 800G switches", FatTree("fat-tree-2tier-2k", 2, 2048) },
    { "fat-tree-3tier-64k",
      "65,536 GPUs, 3-tier fat tree of 64 x 800G switches",
      FatTree("fat-tree-3tier-64k", 3, 65536) },
    { "fat-tree-4tier-131k",
      "131,072 GPUs, 4-tier fat tree of 64 x 800G switches",
      FatTree("fat-tree-4tier-131k", 4, 131072) },
    { "rail-optimized-8k",
      "8,192 GPUs in servers of 8, rail-optimised 3-tier fat tree of 64 x 800G switches",
      FatTree("rail-optimized-8k", 3, 8192, 8) },
    // Scale-up domains on the multiplane fabrics: each GPU keeps its 8 x 100G NIC (one port per
    // plane); the GPUs of a server (HGX, MI300X) or rack (NVL72) also share a scale-up domain.
    // The GPUs of a domain are consecutive, so a domain hangs from one T0 (or, for NVL72, two).
    { "multiplane-64-hgx8",
      "multiplane-64 as 8 HGX H100 servers of 8 GPUs on NVLink 4 (450 GB/s per GPU each way)",
      WithDomains(Multiplane("multiplane-64-hgx8", 8, 100, 64, 16, 16, 8, 512), "nvlink4", 8) },
    { "multiplane-1k-hgx8",
      "multiplane-1k as 128 HGX H100 servers of 8 GPUs on NVLink 4",
      WithDomains(Multiplane("multiplane-1k-hgx8", 8, 100, 1024, 32, 32, 16, 512), "nvlink4", 8) },
    { "multiplane-8k-hgx8",
      "multiplane-8k as 1,024 HGX H100 servers of 8 GPUs on NVLink 4",
      WithDomains(Multiplane("multiplane-8k-hgx8", 8, 100, 8192, 256, 256, 16, 512), "nvlink4", 8) },
    { "multiplane-576-nvl72",
      "576 GPUs as 8 GB200 NVL72 racks on NVLink 5 (900 GB/s per GPU each way), 8 x 100G planes, 18 T0 "
      "(32 down/32 up) + 16 T1 per plane",
      WithDomains(Multiplane("multiplane-576-nvl72", 8, 100, 576, 32, 32, 16, 512), "nvlink5", 72) },
    { "multiplane-9216-nvl72",
      "9,216 GPUs as 128 GB200 NVL72 racks on NVLink 5, 8 x 100G planes, 36 T0 (256 down/256 up) + 32 T1 per "
      "plane",
      WithDomains(Multiplane("multiplane-9216-nvl72", 8, 100, 9216, 256, 256, 32, 512), "nvlink5", 72) },
    { "multiplane-1k-mi300x",
      "multiplane-1k as 128 MI300X servers of 8 GPUs on an xGMI mesh (64 GB/s per pair each way)",
      WithDomains(Multiplane("multiplane-1k-mi300x", 8, 100, 1024, 32, 32, 16, 512), "xgmi", 8) },
  };
  return presets;
}

FabricSpec
PresetSpec(const std::string& name)
{
  std::string names;
  for (const Preset& p : Presets())
  {
    if (p.name == name)
    {
      return p.spec;
    }
    names += (names.empty() ? "" : ", ") + p.name;
  }
  throw SpecError("unknown preset \"" + name + "\"; presets: " + names);
}

} // namespace mrcsim
