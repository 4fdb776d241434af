#include "models/fabric/path-latency.h"

#include "ns3/abort.h"

namespace ns3
{

double
PathOneWayS(const std::vector<PathLink>& links, double wireBytes, double switchLatencyS)
{
  NS_ABORT_MSG_IF(links.empty(), "PathOneWayS: a path of no links");
  double s = double(links.size() - 1) * switchLatencyS;
  for (const PathLink& l : links)
  {
    NS_ABORT_MSG_IF(!(l.rateBps > 0), "PathOneWayS: a link of rate " << l.rateBps);
    s += l.delayS + wireBytes * 8 / l.rateBps;
  }
  return s;
}

std::vector<PathLink>
PathLinksOf(const mrcsim::Fabric& fabric, uint32_t srcGpu, uint16_t nicPort, const std::vector<mrcsim::PathHop>& hops)
{
  std::vector<PathLink> links;
  links.reserve(hops.size() + 1);
  const mrcsim::FabricLink& first = fabric.LinkAt(fabric.Gpu(srcGpu), nicPort);
  links.push_back({ first.delayNs * 1e-9, double(first.rateBps) });
  for (const mrcsim::PathHop& hop : hops)
  {
    const mrcsim::FabricLink& l = fabric.LinkAt(hop.node, hop.egressPort);
    links.push_back({ l.delayNs * 1e-9, double(l.rateBps) });
  }
  return links;
}

} // namespace ns3
