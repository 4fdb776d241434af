#include "sim/references/fair-reference.h"

#include "models/fabric/fabric-frame.h"
#include "models/fabric/fabric-switch.h"
#include "models/roce/roce-queue-pair.h"

#include <algorithm>

namespace mrcsim
{

FairReference::FairReference(ns3::FabricNetwork& net, const IdealModel& ideal)
  : m_net(net),
    m_ideal(ideal)
{
  const Fabric& fabric = net.GetFabric();
  m_nicLinkBase = static_cast<uint32_t>(2 * fabric.NumLinks());
  m_input.capacityBps.reserve(m_nicLinkBase + 2 * fabric.NumGpus());
  for (uint32_t l = 0; l < fabric.NumLinks(); ++l)
  {
    const double rate = double(fabric.Link(l).rateBps);
    m_input.capacityBps.push_back(rate); // from its end a
    m_input.capacityBps.push_back(rate); // from its end b
  }
  m_input.capacityBps.resize(m_nicLinkBase + 2 * fabric.NumGpus(), ideal.gpuBandwidthBps);
}

FairReference::Route
FairReference::RouteOf(const ns3::RdmaQueuePair& qp)
{
  if (const auto* roce = dynamic_cast<const ns3::RoceQueuePair*>(&qp))
  {
    const ns3::FabricPacketSpec spec = roce->PathSpec();
    return Route{ true, static_cast<uint16_t>(spec.plane), spec.entropy };
  }
  return Route{};
}

std::vector<uint32_t>
FairReference::EcmpPath(const Route& route, uint32_t src, uint32_t dst)
{
  const Fabric& fabric = m_net.GetFabric();
  const FabricRouting& routing = m_net.Routing();
  const int plane = route.plane;
  const Attachment& first = routing.Attach(src, plane);
  if (!first.valid || !routing.Attach(dst, plane).valid)
  {
    return {};
  }
  const auto directed = [&](VertexId from, uint32_t link)
  { return 2 * link + (fabric.Ends(link).first == from ? 0u : 1u); };
  std::vector<uint32_t> links{ directed(fabric.Gpu(src), first.link) };
  // What the switches hash (FabricSwitch::PickEcmpPort): the addresses, flow label and UDP source
  // port; the QP's data packets carry no flow label.
  ns3::FabricPacketSpec spec;
  spec.srcGpu = src;
  spec.dstGpu = dst;
  spec.plane = plane;
  spec.entropy = route.entropy;
  ns3::FramePtr frame = ns3::MakeFrame(spec);
  VertexId at = first.leaf;
  const VertexId target = fabric.Gpu(dst);
  for (int hops = 0; hops < 2 * kMaxTiers; ++hops)
  {
    const int port = m_net.GetSwitch(at)->TableEgress(*frame);
    if (port < 0)
    {
      return {};
    }
    const PortPeer next = fabric.Peer(at, static_cast<uint16_t>(port));
    links.push_back(directed(at, next.link));
    if (next.node == target)
    {
      return links;
    }
    if (fabric.Node(next.node).role == NodeRole::Gpu)
    {
      return {};
    }
    at = next.node;
  }
  return {};
}

void
FairReference::AddMessage(uint32_t src,
                          uint32_t dst,
                          uint64_t bytes,
                          ns3::Time posted,
                          const std::vector<std::pair<Route, uint64_t>>& parts)
{
  m_flowCount += parts.size();
  if (m_overLimit || m_flowCount > kFlowLimit)
  {
    if (!m_overLimit)
    {
      // Never computed now: what it holds goes (a large run's messages would keep it), capacity
      // too, which clearing an array would keep.
      m_overLimit = true;
      std::vector<Message>().swap(m_messages);
      std::vector<FairFlow>().swap(m_input.flows);
    }
    return;
  }
  Message& m = m_messages.emplace_back();
  m.key = Key{ src, dst, bytes, posted.GetTimeStep() };
  for (const auto& [route, partBytes] : parts)
  {
    FairFlow flow;
    flow.startS = posted.GetSeconds();
    flow.bits = double(partBytes) * 8 * m_ideal.wireOverhead;
    if (route.pinned)
    {
      flow.links = EcmpPath(route, src, dst);
      m_ecmp = true;
    }
    else
    {
      flow.links = { NicLink(src, true), NicLink(dst, false) };
      m_spray = true;
    }
    m.routed = m.routed && !flow.links.empty();
    m.flows.push_back(static_cast<uint32_t>(m_input.flows.size()));
    m_input.flows.push_back(std::move(flow));
  }
}

void
FairReference::Skip(const std::string& why)
{
  m_skipped = why;
  m_input.flows.clear();
  m_input.flows.shrink_to_fit();
}

void
FairReference::Compute()
{
  if (m_computed || m_overLimit || !m_skipped.empty())
  {
    return;
  }
  m_computed = true;
  const auto finish = FairShareFinishTimes(m_input);
  if (!finish)
  {
    m_overLimit = true;
    return;
  }
  for (const Message& m : m_messages)
  {
    std::optional<double> time;
    if (m.routed)
    {
      const auto [src, dst, bytes, ticks] = m.key;
      const double posted = ns3::TimeStep(ticks).GetSeconds();
      double end = posted;
      for (uint32_t f : m.flows)
      {
        end = std::max(end, (*finish)[f]);
      }
      time = end - posted + m_ideal.PairLatencyS(src, dst, m_ideal.LastPacketPayload(bytes));
      m_last = std::max(m_last.value_or(0.0), posted + *time);
    }
    m_times[m.key].push_back(time);
  }
  m_input.flows.clear();
  m_input.flows.shrink_to_fit();
}

std::optional<double>
FairReference::TakeMessageTimeS(uint32_t src, uint32_t dst, uint64_t bytes, ns3::Time posted)
{
  const Key key{ src, dst, bytes, posted.GetTimeStep() };
  const auto it = m_times.find(key);
  if (it == m_times.end())
  {
    return std::nullopt;
  }
  std::size_t& taken = m_taken[key];
  return taken < it->second.size() ? it->second[taken++] : std::nullopt;
}

nlohmann::json
FairReference::Summary() const
{
  nlohmann::json j = { { "paths", m_ecmp && m_spray ? "ecmp and spray" : m_ecmp ? "ecmp" : "spray" },
                       { "flows", m_flowCount } };
  if (!m_skipped.empty())
  {
    j["not_computed"] = m_skipped;
  }
  else if (m_overLimit)
  {
    j["not_computed"] = "over " + std::to_string(kFlowLimit) + " message parts, or over the computation's work limit";
  }
  return j;
}

} // namespace mrcsim
