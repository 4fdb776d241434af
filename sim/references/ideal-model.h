// Ideal times: lower bounds on an idle fabric for a message and, through the collectives' step
// schedules (CollectiveWorkload::IdealOf), for a collective. MakeIdealModel derives the figures
// from the routed fabric and the models' attributes.
#ifndef MRCSIM_SIM_REFERENCES_IDEAL_MODEL_H
#define MRCSIM_SIM_REFERENCES_IDEAL_MODEL_H

#include "topologies/fabric-routing.h"
#include "topologies/scale-up-spec.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace mrcsim
{

/// \brief Lower bounds on an idle fabric. A message of B bytes from GPU s to GPU d takes at least
/// B x wireOverhead / gpuBandwidthBps to leave s's NIC (all its ports, the fewest header bytes any
/// transport sends) plus the pair's own latency for its last packet: both NIC pipelines, every
/// cable, every switch's forwarding latency and, after the first link, the packet's
/// store-and-forward at each hop at the fastest rate of that hop. No run on an idle fabric can beat
/// it, whatever the transport.
struct IdealModel
{
  double gpuBandwidthBps = 0; ///< one GPU's NIC line rate, all ports (e.g. 800e9)
  double wireOverhead = 1.0;  ///< wire bytes per payload byte of a full packet, fewest headers
  /// One-way latency of a full packet on the longest shortest path (the fabric's BDP comes from
  /// it); also the pair latency where no path table is given (hand-made models in tests).
  double baseLatencyS = 0;

  /// \brief What a pair's latency is computed from (MakeIdealModel fills it from the fabric).
  struct Paths
  {
    uint32_t mtu = 4096;           ///< payload bytes of a full packet
    double headerWireBytes = 0;    ///< wire bytes of a packet beyond its payload (fewest headers)
    double nicLatencyS = 0;        ///< NICs: TX and RX pipelines, post and completion latencies
    double gpuLinkDelayS = 0;      ///< GPU-T0 cable
    double gpuLinkRateBps = 0;     ///< one NIC port
    double fabricLinkDelayS = 0;   ///< shortest switch-switch cable
    double fabricLinkRateBps = 0;  ///< fastest switch-switch link
    double switchLatencyS = 0;     ///< per switch crossed
    uint32_t nicPorts = 1;         ///< ports of one GPU's NIC (one per plane)
    std::vector<uint32_t> leafOf;  ///< per GPU: its tier-0 switch's index (plane 0)
    uint32_t leaves = 0;
    /// Switches from leaf a to leaf b, at [a * leaves + b] (1 when a == b). Empty when the
    /// table would be too large: then 1 under one leaf, else `minSwitchesApart`.
    std::vector<uint8_t> switches;
    uint8_t minSwitchesApart = 3;
  };
  std::shared_ptr<const Paths> paths; ///< null: every pair has baseLatencyS
  /// Scale-up domains (none by default): a message between two GPUs of one domain leaves its
  /// sender at the domain's rate (the lower of its GPU rate and, on a mesh, its pair rate) and
  /// arrives the domain's latency later; it never touches a NIC.
  ScaleUpSpec scaleUp;

  bool SameDomain(uint32_t a, uint32_t b) const { return scaleUp.SameDomain(a, b); }
  /// \brief `bytes` through one GPU's scale-up egress or ingress at its full rate.
  double ScaleUpSerialisationS(uint64_t bytes) const { return double(bytes) * 8 / (scaleUp.gpuGbps * 1e9); }
  double ScaleUpLatencyS() const { return scaleUp.latencyNs * 1e-9; }
  /// \brief Idle-domain time of one message of `bytes` between two GPUs of one domain.
  double ScaleUpMessageTime(uint64_t bytes) const
  {
    const double gbps = scaleUp.pairGbps > 0 ? std::min(scaleUp.gpuGbps, scaleUp.pairGbps) : scaleUp.gpuGbps;
    return double(bytes) * 8 / (gbps * 1e9) + ScaleUpLatencyS();
  }

  /// \brief Switches a packet from `src` to `dst` crosses on a shortest path (0: unknown).
  int Switches(uint32_t src, uint32_t dst) const;
  /// \brief One-way latency from `src` to `dst` of a last packet carrying `payload` bytes,
  /// its first serialisation excluded (MessageTime counts that in the NIC's bytes).
  double PairLatencyS(uint32_t src, uint32_t dst, uint64_t payload) const;
  /// \brief The same over a path crossing `switches` switches (needs `paths`).
  double PathLatencyS(int switches, uint64_t payload) const;
  /// \brief Idle-fabric time for one message of `bytes` alone on its sender's and receiver's NIC.
  double MessageTime(uint32_t src, uint32_t dst, uint64_t bytes) const
  {
    if (SameDomain(src, dst))
      return ScaleUpMessageTime(bytes);
    return SerialisationS(bytes) + PairLatencyS(src, dst, LastPacketPayload(bytes));
  }
  /// \brief `bytes` of payload through one NIC at line rate.
  double SerialisationS(uint64_t bytes) const { return double(bytes) * 8 * wireOverhead / gpuBandwidthBps; }
  /// \brief Payload of a message's smallest last packet: cut into MTU packets in order, or spread
  /// evenly over the NIC's ports first (as RoCEv2 with a QP per plane does: a 8 KiB message leaves
  /// as eight 1 KiB packets, whose store-and-forward is a quarter of a full packet's), whichever
  /// is smaller, so that no transport's last packet is smaller than the ideal's.
  uint64_t LastPacketPayload(uint64_t bytes) const
  {
    const uint64_t mtu = paths ? paths->mtu : 4096;
    const uint64_t ports = paths ? std::max<uint32_t>(1, paths->nicPorts) : 1;
    const auto last = [mtu](uint64_t b) { return b == 0 ? 0 : (b % mtu == 0 ? mtu : b % mtu); };
    return std::min(last(bytes), last((bytes + ports - 1) / ports));
  }
};

/// \brief The ideal model of a routed fabric for NICs sending `mtu` bytes of payload per packet:
/// its GPUs' line rate, the fewest header bytes, NIC and switch latencies (the models' attribute
/// defaults as set now), cables, and which leaf each GPU hangs from.
IdealModel MakeIdealModel(const FabricRouting& routing, uint32_t mtu);

/// \brief One GPU's NIC line rate, all its ports (IdealModel::gpuBandwidthBps), from the fabric.
double GpuBandwidthBps(const Fabric& fabric);

} // namespace mrcsim

#endif
