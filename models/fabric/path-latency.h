// The one latency model of a packet crossing the fabric. The ideal model's lower bounds
// (sim/references/ideal-model.h), the BDP-derived port thresholds (which read the ideal's base
// latency) and MRC's base RTT (mrc-queue-pair.cc) all reckon from PathOneWayS, each with its own
// stated inputs (docs/MODEL.md, "One latency model").
#ifndef MRCSIM_MODELS_FABRIC_PATH_LATENCY_H
#define MRCSIM_MODELS_FABRIC_PATH_LATENCY_H

#include "topologies/fabric-routing.h"
#include "topologies/fabric.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// \brief What an Ethernet link carries per frame beyond the frame: an 8-byte preamble and start
/// delimiter and a 12-byte inter-frame gap (IEEE 802.3, 4.4.2). The ports count them only if
/// added to PortQueueConfig::FramingBytes (18 by default: Ethernet header and FCS).
constexpr uint32_t kPreambleAndGapBytes = 20;

/// \brief One link of a path as the latency model sees it.
struct PathLink
{
  double delayS = 0;  ///< the cable's propagation delay
  double rateBps = 0; ///< the link's line rate
};

/// \brief How long a packet of `wireBytes` (its frame and the framing: preamble, inter-frame gap)
/// takes over `links` in order, through links.size() - 1 switches: from its first bit leaving the
/// sender's port to its last bit reaching the receiver's port. Every cable's propagation, the
/// packet's serialisation on every link at that link's own rate (switches store and forward; cut
/// through is not modelled) and each switch's forwarding latency.
double PathOneWayS(const std::vector<PathLink>& links, double wireBytes, double switchLatencyS);

/// \brief The links a packet from GPU `srcGpu`'s NIC port `nicPort` crosses along `hops`
/// (FabricRouting::Path): the NIC's cable, then each hop's egress link, with their figures.
std::vector<PathLink> PathLinksOf(const mrcsim::Fabric& fabric,
                                  uint32_t srcGpu,
                                  uint16_t nicPort,
                                  const std::vector<mrcsim::PathHop>& hops);

} // namespace ns3

#endif
