#include "topologies/scale-up-spec.h"

#include "topologies/json-reader.h"

namespace mrcsim
{

namespace
{

/// Latency of one transfer across a scale-up domain: 0.47 us, NCCL's own figure for one ring step
/// over NVLink with its low-latency protocol (NVIDIA/nccl, src/graph/tuning.cc, hwLat[NVLINK]
/// [Ring][LL]; its Simple protocol is given 3.4 us, which includes the protocol's chunk
/// synchronisation). No datasheet gives a GPU-to-GPU latency for NVLink 4, NVLink 5 or xGMI; the
/// same figure is used for all three and a scenario may set latency_ns.
constexpr double kScaleUpLatencyNs = 470;

} // namespace

const std::vector<ScaleUpTechnology>&
ScaleUpTechnologies()
{
  // Rates are per GPU and per direction: datasheets give bidirectional totals.
  static const std::vector<ScaleUpTechnology> technologies{
    // NVIDIA H100 Tensor Core GPU datasheet (H100 SXM): NVLink 900 GB/s, 18 fourth-generation
    // links of 50 GB/s bidirectional, through the HGX board's NVSwitches to any of the 8 GPUs:
    // 450 GB/s = 3600 Gb/s each way.
    { "nvlink4", "NVLink 4 (HGX H100/H200, 8 GPUs on NVSwitch): 450 GB/s per GPU each way", 3600, 0,
      kScaleUpLatencyNs, 8 },
    // NVIDIA GB200 NVL72 product page: fifth-generation NVLink, 1.8 TB/s bidirectional per GPU,
    // 130 TB/s for the rack's 72 GPUs through its NVLink switch trays: 900 GB/s = 7200 Gb/s each way.
    { "nvlink5", "NVLink 5 (GB200 NVL72, 72 GPUs on NVLink switch trays): 900 GB/s per GPU each way", 7200, 0,
      kScaleUpLatencyNs, 72 },
    // AMD Instinct MI300X data sheet and CDNA 3 white paper: 7 Infinity Fabric (xGMI) links of
    // 128 GB/s bidirectional per GPU, 896 GB/s in all, one link to each of the platform's 7 other
    // GPUs (a full mesh, no switch): 448 GB/s = 3584 Gb/s per GPU and 64 GB/s = 512 Gb/s per pair,
    // each way.
    { "xgmi", "xGMI / Infinity Fabric (MI300X platform, 8 GPUs in a full mesh): 64 GB/s per pair, 448 GB/s per GPU each way",
      3584, 512, kScaleUpLatencyNs, 8 },
  };
  return technologies;
}

ScaleUpSpec
ScaleUpOf(const std::string& technology, uint32_t gpusPerDomain)
{
  std::string names;
  for (const ScaleUpTechnology& t : ScaleUpTechnologies())
  {
    if (t.name == technology)
    {
      ScaleUpSpec s;
      s.technology = t.name;
      s.gpusPerDomain = gpusPerDomain;
      s.gpuGbps = t.gpuGbps;
      s.pairGbps = t.pairGbps;
      s.latencyNs = t.latencyNs;
      return s;
    }
    names += (names.empty() ? "" : ", ") + t.name;
  }
  throw SpecError("unknown scale-up technology \"" + technology + "\"; allowed: " + names + ", custom");
}

} // namespace mrcsim
