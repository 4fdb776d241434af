// Link loss by class and the failure timeline of a run; what each failure type does is in
// sim/failures/failure-types.cc.
#include "sim/failures/failure-schedule.h"

#include "sim/failures/failure-types.h"

#include <algorithm>

namespace mrcsim
{

using ns3::Ptr;

std::vector<uint32_t>
ClassLinks(const Fabric& fabric, const std::string& linkClass)
{
  std::vector<uint32_t> links;
  for (uint32_t id = 0; id < fabric.NumLinks(); ++id)
  {
    auto [a, b] = fabric.Ends(id);
    const FabricNode& na = fabric.Node(a);
    const FabricNode& nb = fabric.Node(b);
    const bool gpu = na.role == NodeRole::Gpu || nb.role == NodeRole::Gpu;
    const bool t0t1 = !gpu && std::min(na.tier, nb.tier) == 0 && std::max(na.tier, nb.tier) == 1;
    if (linkClass == "all" || (linkClass == "gpu-t0" && gpu) || (linkClass == "t0-t1" && t0t1))
      links.push_back(id);
  }
  return links;
}

nlohmann::json
ApplyLinkLoss(const ScenarioSpec& spec, const Fabric& fabric, ns3::FabricNetwork& net)
{
  nlohmann::json log = nlohmann::json::array();
  for (const LinkLossSpec& l : spec.linkLoss)
  {
    const std::vector<uint32_t> links = ClassLinks(fabric, l.linkClass);
    for (uint32_t id : links)
    {
      auto [a, b] = fabric.Ends(id);
      const FabricLink& link = fabric.Link(id);
      Ptr<ns3::FabricChannel> ch = net.GetChannel(id);
      if (!ch)
        continue; // its ports are another MPI rank's, which applies the loss
      ch->SetLossRate(ns3::PeekPointer(net.GetPort(a, link.portA)), l.rate);
      ch->SetLossRate(ns3::PeekPointer(net.GetPort(b, link.portB)), l.rate);
    }
    log.push_back({ { "link_class", l.linkClass }, { "rate", l.rate }, { "links", links.size() } });
  }
  return log;
}

FailureSchedule::FailureSchedule(const ScenarioSpec& spec, const Fabric& fabric, ns3::FabricNetwork& net)
  : m_log(nlohmann::json::array())
{
  FailureContext run{ spec, fabric, net };
  for (const FailureSpec& f : spec.failures)
  {
    nlohmann::json entry{ { "type", f.type }, { "at_us", f.atUs } };
    if (FailureLogUpdate update = FailureTypes().Get(f.type).schedule(f, run, entry))
      m_updates.emplace_back(m_log.size(), std::move(update));
    m_log.push_back(entry);
  }
}

FailureSchedule::~FailureSchedule() = default;

nlohmann::json
FailureSchedule::Log() const
{
  nlohmann::json log = m_log;
  for (const auto& [i, update] : m_updates)
    update(log[i]);
  return log;
}

} // namespace mrcsim
