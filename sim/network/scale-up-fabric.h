// The scale-up domains of a run at flow level (topologies/scale-up-spec.h): each domain a
// non-blocking crossbar where every GPU has an egress and an ingress at the domain's per-GPU rate
// (and, on a mesh such as xGMI, every ordered pair a link of its own). Concurrent transfers share
// them max-min fairly, the rates recomputed by progressive filling (sim/references/fair-share.h) whenever a
// transfer of the domain starts or ends; a transfer completes its latency after its last bit
// left. Left out: packets, NVLink flow control and credits, NVSwitch in-network reduction
// (NVLS/SHARP), copy engines and SM contention with compute.
#ifndef MRCSIM_SIM_NETWORK_SCALE_UP_FABRIC_H
#define MRCSIM_SIM_NETWORK_SCALE_UP_FABRIC_H

#include "sim/references/fair-share.h"
#include "topologies/scale-up-spec.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace mrcsim
{

class ScaleUpFabric
{
public:
  /// \param gpus the fabric's GPU count, a multiple of the domain size
  ScaleUpFabric(const ScaleUpSpec& spec, uint32_t gpus);
  ~ScaleUpFabric();
  ScaleUpFabric(const ScaleUpFabric&) = delete;
  ScaleUpFabric& operator=(const ScaleUpFabric&) = delete;

  const ScaleUpSpec& Spec() const { return m_spec; }
  bool SameDomain(uint32_t a, uint32_t b) const { return m_spec.SameDomain(a, b); }

  /// \brief Carries `bytes` from `src` to `dst` (two GPUs of one domain) from now; `done` runs
  /// when `dst` holds them, never inside this call. Must be called from a global event or at
  /// set-up (the workloads' context): the domains' state is the workloads'.
  void Transfer(uint32_t src, uint32_t dst, uint64_t bytes, std::function<void()> done);

  uint64_t Transfers() const { return m_transfers; }
  uint64_t Bytes() const { return m_bytes; }
  /// \brief Transfers started and not yet complete.
  uint64_t Outstanding() const { return m_outstanding; }

private:
  class Domain;

  ScaleUpSpec m_spec;
  std::vector<std::unique_ptr<Domain>> m_domains; ///< made on a domain's first transfer
  uint64_t m_transfers = 0;
  uint64_t m_bytes = 0;
  uint64_t m_outstanding = 0;
};

} // namespace mrcsim

#endif
