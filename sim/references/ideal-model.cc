#include "sim/references/ideal-model.h"

#include "models/engine/attribute-default.h"
#include "models/fabric/fabric-packet.h"
#include "models/fabric/fabric-switch.h"
#include "models/fabric/path-latency.h"
#include "models/fabric/port-queue-config.h"
#include "models/rdma/rdma-nic.h"

#include "ns3/abort.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace mrcsim
{

int
IdealModel::Switches(uint32_t src, uint32_t dst) const
{
  if (!paths || src >= paths->leafOf.size() || dst >= paths->leafOf.size())
  {
    return 0;
  }
  const uint32_t a = paths->leafOf[src];
  const uint32_t b = paths->leafOf[dst];
  if (a == b)
  {
    return 1;
  }
  return paths->switches.empty() ? paths->minSwitchesApart : paths->switches[std::size_t(a) * paths->leaves + b];
}

double
IdealModel::PairLatencyS(uint32_t src, uint32_t dst, uint64_t payload) const
{
  const int switches = Switches(src, dst);
  return switches <= 0 ? baseLatencyS : PathLatencyS(switches, payload);
}

double
IdealModel::PathLatencyS(int switches, uint64_t payload) const
{
  NS_ABORT_MSG_IF(!paths || switches < 1, "IdealModel: no path figures, or a path of " << switches << " switches");
  const Paths& p = *paths;
  // The one latency model (models/fabric/path-latency.h) over two GPU cables and switches - 1
  // switch-to-switch cables, the shortest and fastest of each kind, less the packet's
  // serialisation on the first link (the message's bytes at the NIC's rate count it), plus the
  // NICs' pipelines and the host's post and completion.
  const double wireBytes = double(payload) + p.headerWireBytes;
  std::vector<ns3::PathLink> links(size_t(switches) + 1, ns3::PathLink{ p.fabricLinkDelayS, p.fabricLinkRateBps });
  links.front() = links.back() = ns3::PathLink{ p.gpuLinkDelayS, p.gpuLinkRateBps };
  return p.nicLatencyS + ns3::PathOneWayS(links, wireBytes, p.switchLatencyS) - wireBytes * 8 / p.gpuLinkRateBps;
}

double
GpuBandwidthBps(const Fabric& fabric)
{
  double bps = 0;
  const VertexId g0 = fabric.Gpu(0);
  for (uint16_t p = 0; p < fabric.Degree(g0); ++p)
    bps += double(fabric.LinkAt(g0, p).rateBps);
  return bps;
}

IdealModel
MakeIdealModel(const FabricRouting& routing, uint32_t mtu)
{
  const Fabric& fabric = routing.GetFabric();
  IdealModel m;
  auto paths = std::make_shared<IdealModel::Paths>();
  const VertexId g0 = fabric.Gpu(0);
  m.gpuBandwidthBps = GpuBandwidthBps(fabric);
  // The fewest header bytes any transport puts on a full packet: IPv6, UDP and BTH (RoCEv2's
  // middle packets; MRC adds a RETH to every packet), then Ethernet framing.
  const uint64_t framing = ns3::AttributeDefault<ns3::UintegerValue>(ns3::PortQueueConfig::GetTypeId(), "FramingBytes");
  paths->mtu = mtu;
  paths->headerWireBytes = double(ns3::FabricHeaderBytes() + framing);
  m.wireOverhead = (double(mtu) + paths->headerWireBytes) / double(mtu);
  paths->switchLatencyS = ns3::FabricSwitch::DefaultForwardingLatency().GetSeconds();
  paths->nicPorts = fabric.Degree(g0);
  for (const char* attribute : { "TxLatency", "RxLatency", "PostLatency", "CompletionLatency" })
  {
    paths->nicLatencyS += ns3::AttributeDefault<ns3::TimeValue>(ns3::RdmaNic::GetTypeId(), attribute).GetSeconds();
  }
  // Cables: the shortest and fastest of each kind, so that no pair is given more than it pays.
  double gpuDelay = 1e9, fabricDelay = 1e9;
  for (uint32_t id = 0; id < fabric.NumLinks(); ++id)
  {
    const FabricLink& l = fabric.Link(id);
    const auto [a, b] = fabric.Ends(id);
    const bool gpuLink = fabric.Node(a).role == NodeRole::Gpu || fabric.Node(b).role == NodeRole::Gpu;
    (gpuLink ? gpuDelay : fabricDelay) = std::min(gpuLink ? gpuDelay : fabricDelay, l.delayNs * 1e-9);
    double& rate = gpuLink ? paths->gpuLinkRateBps : paths->fabricLinkRateBps;
    rate = std::max(rate, double(l.rateBps));
  }
  paths->gpuLinkDelayS = gpuDelay < 1e9 ? gpuDelay : 0;
  paths->fabricLinkDelayS = fabricDelay < 1e9 ? fabricDelay : 0;
  if (paths->fabricLinkRateBps == 0)
    paths->fabricLinkRateBps = paths->gpuLinkRateBps;
  // Which leaf each GPU hangs from, and switches between leaves (a plane's table; planes are alike).
  const int plane = fabric.Node(fabric.Peer(g0, 0).node).plane;
  paths->leaves = static_cast<uint32_t>(routing.NumLeaves(plane));
  paths->leafOf.resize(fabric.NumGpus());
  for (uint32_t g = 0; g < fabric.NumGpus(); ++g)
    paths->leafOf[g] = routing.Attach(g, plane).leafIndex;
  constexpr uint64_t kMaxTable = uint64_t(1) << 24; // 16 MiB: 4,096 leaves
  if (uint64_t(paths->leaves) * paths->leaves <= kMaxTable)
  {
    paths->switches.assign(std::size_t(paths->leaves) * paths->leaves, 1);
    uint8_t apart = 255;
    for (uint32_t a = 0; a < paths->leaves; ++a)
      for (uint32_t b = 0; b < paths->leaves; ++b)
      {
        const int d = routing.Distance(routing.Leaf(plane, a), b);
        // Unreachable in this plane: the shortest any pair apart can be (it cannot be less).
        paths->switches[std::size_t(a) * paths->leaves + b] = static_cast<uint8_t>(d < 0 ? 0 : d + 1);
        if (a != b && d >= 0)
          apart = std::min<uint8_t>(apart, static_cast<uint8_t>(d + 1));
      }
    paths->minSwitchesApart = apart == 255 ? 3 : apart;
    for (auto& sw : paths->switches)
      if (sw == 0)
        sw = paths->minSwitchesApart;
  }
  m.paths = paths;
  // The fabric's longest shortest path, for a full packet (the fabric's BDP comes from it).
  m.baseLatencyS = m.PathLatencyS(std::max(1, routing.MaxSwitchHops()), mtu);
  return m;
}

} // namespace mrcsim
