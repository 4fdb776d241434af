// Scale-up domains: the GPUs of a server (HGX, 8 GPUs on NVLink through NVSwitches; MI300X, 8 on
// an xGMI mesh) or of a rack (GB200 NVL72, 72 GPUs on NVLink switch trays) joined by a fabric of
// their own. Traffic between two GPUs of one domain never touches a NIC. The domain is modelled at
// flow level (sim/network/scale-up-fabric.h): a non-blocking crossbar, each GPU an egress and an ingress
// of the domain's per-GPU rate (and, on a mesh, each pair a link of its own); no packets, no
// NVLink protocol, no NVSwitch in-network reduction (NVLS/SHARP).
#ifndef MRCSIM_TOPOLOGIES_SCALE_UP_SPEC_H
#define MRCSIM_TOPOLOGIES_SCALE_UP_SPEC_H

#include <cstdint>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief The scale-up domains of a fabric: GPUs 0..D-1 are domain 0, D..2D-1 domain 1, ...; a
/// GPU's local rank is its index in its domain (GPU g: domain g / D, local rank g % D).
struct ScaleUpSpec
{
  std::string technology;     ///< a ScaleUpTechnologies() name, or "custom"
  uint32_t gpusPerDomain = 0; ///< 0: no domains (every GPU alone, all traffic on the fabric)
  double gpuGbps = 0;         ///< per GPU, each direction (egress and ingress), Gb/s
  double pairGbps = 0;        ///< per ordered pair of GPUs (a mesh's link), Gb/s; 0: switched, no pair limit
  double latencyNs = 0;       ///< paid once by every transfer, on top of its serialisation

  bool Enabled() const { return gpusPerDomain > 0; }
  uint32_t DomainOf(uint32_t gpu) const { return gpu / gpusPerDomain; }
  uint32_t LocalRank(uint32_t gpu) const { return gpu % gpusPerDomain; }
  bool SameDomain(uint32_t a, uint32_t b) const { return Enabled() && DomainOf(a) == DomainOf(b); }
};

/// \brief A named scale-up technology and its datasheet figures (the sources are in
/// topologies/scale-up-spec.cc and docs/MODEL.md, "Scale-up domains").
struct ScaleUpTechnology
{
  std::string name;
  std::string description;
  double gpuGbps = 0;
  double pairGbps = 0;
  double latencyNs = 0;
  uint32_t gpusPerDomain = 0; ///< the usual domain size (a preset's), for the description
};

const std::vector<ScaleUpTechnology>& ScaleUpTechnologies();

/// \brief A technology's figures with `gpusPerDomain` GPUs per domain; throws SpecError listing
/// the names if unknown.
ScaleUpSpec ScaleUpOf(const std::string& technology, uint32_t gpusPerDomain);

} // namespace mrcsim

#endif
