#include "sim/failure-schedule.h"

#include "sim/workload.h"

#include "models/engine/splitmix.h"

#include "ns3/simulator.h"

#include <cmath>
#include <set>

namespace mrcsim
{

namespace
{

using ns3::Ptr;
using ns3::Simulator;
using ns3::Time;

/// The links of `fabric` touching a switch of `plane` (all tiers).
std::vector<uint32_t>
PlaneLinks(const Fabric& fabric, int plane)
{
  std::set<uint32_t> links;
  for (int tier = 0; tier < fabric.NumTiers(); ++tier)
  {
    for (VertexId v : fabric.Switches(plane, tier))
    {
      for (uint16_t p = 0; p < fabric.Degree(v); ++p)
        links.insert(fabric.LinkAt(v, p).id);
    }
  }
  return { links.begin(), links.end() };
}

std::vector<uint32_t>
SwitchLinks(const Fabric& fabric, int plane, int tier, uint32_t index)
{
  VertexId v = fabric.Switches(plane, tier)[index];
  std::vector<uint32_t> links;
  for (uint16_t p = 0; p < fabric.Degree(v); ++p)
    links.push_back(fabric.LinkAt(v, p).id);
  return links;
}

} // namespace

/// Failures of a link class as a Poisson process (rate: links / MTBF), each repaired after an
/// exponential time of mean MTTR, drawn from the scenario seed one at a time: each failure's
/// event draws the next, so memory does not grow with the number of failures.
struct FailureSchedule::RandomLinks
{
  ns3::FabricNetwork* net;
  std::vector<uint32_t> links;
  uint64_t rng;
  double mtbfUs;
  double mttrUs;
  double untilUs;
  double nowUs;
  uint64_t drawn = 0;

  /// Draws the next failure after nowUs and schedules it (nothing once past untilUs).
  static void DrawNext(const std::shared_ptr<RandomLinks>& self)
  {
    RandomLinks& r = *self;
    if (r.links.empty())
      return;
    r.nowUs += -std::log1p(-ns3::SplitMixUniform(r.rng)) * r.mtbfUs / double(r.links.size());
    if (r.nowUs >= r.untilUs)
      return;
    const uint32_t id = r.links[ns3::SplitMix64(r.rng) % r.links.size()];
    const double repairUs = -std::log1p(-ns3::SplitMixUniform(r.rng)) * r.mttrUs;
    const Time at = MicrosecondsToTime(r.nowUs);
    const Time repairAt = MicrosecondsToTime(r.nowUs + repairUs);
    ++r.drawn;
    Simulator::Schedule(at - Simulator::Now(),
                        [self, id, repairAt]
                        {
                          self->net->SetLinkUp(id, false);
                          self->net->ScheduleLinkUp(repairAt, id, true);
                          DrawNext(self);
                        });
  }
};

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
  auto setLinks = [&net](Time at, const std::vector<uint32_t>& links, bool up)
  {
    for (uint32_t id : links)
      net.ScheduleLinkUp(at, id, up);
  };
  uint64_t stream = 0;
  for (const FailureSpec& f : spec.failures)
  {
    const Time at = MicrosecondsToTime(f.atUs);
    const std::string& t = f.type;
    nlohmann::json entry{ { "type", t }, { "at_us", f.atUs } };
    if (t == "link_down" || t == "link_up" || t == "port_down" || t == "port_up")
    {
      const uint32_t id = ResolveLink(fabric, f.link, spec.file);
      setLinks(at, { id }, t == "link_up" || t == "port_up");
      entry["links"] = { id };
    }
    else if (t == "link_flap")
    {
      const uint32_t id = ResolveLink(fabric, f.link, spec.file);
      for (uint32_t k = 0; k < f.count; ++k)
      {
        setLinks(MicrosecondsToTime(f.atUs + k * f.periodUs), { id }, false);
        setLinks(MicrosecondsToTime(f.atUs + (k + 0.5) * f.periodUs), { id }, true);
      }
      entry["links"] = { id };
    }
    else if (t == "switch_down" || t == "switch_up")
    {
      auto links = SwitchLinks(fabric, f.plane, f.tier, f.index);
      setLinks(at, links, t == "switch_up");
      entry["links"] = links.size();
    }
    else if (t == "plane_down" || t == "plane_up")
    {
      auto links = PlaneLinks(fabric, f.plane);
      setLinks(at, links, t == "plane_up");
      entry["links"] = links.size();
    }
    else if (t == "gray")
    {
      const uint32_t id = ResolveLink(fabric, f.link, spec.file);
      auto [a, b] = fabric.Ends(id);
      const FabricLink& l = fabric.Link(id);
      Ptr<ns3::FabricChannel> ch = net.GetChannel(id);
      Ptr<ns3::FabricPort> pa = net.GetPort(a, l.portA);
      Ptr<ns3::FabricPort> pb = net.GetPort(b, l.portB);
      const double loss = f.lossRate;
      const double rate = f.rateFactor;
      Simulator::Schedule(at,
                          [ch, pa, pb, loss, rate]
                          {
                            for (auto p : { pa, pb })
                            {
                              ch->SetLossRate(ns3::PeekPointer(p), loss);
                              ch->SetRateFactor(ns3::PeekPointer(p), rate);
                            }
                          });
      entry["links"] = { id };
    }
    else if (t == "random_links")
    {
      auto r = std::make_shared<RandomLinks>(RandomLinks{ &net,
                                                          ClassLinks(fabric, f.linkClass),
                                                          WorkloadStreamSeed(spec.seed, "random_links", stream++),
                                                          f.mtbfUs,
                                                          f.mttrUs,
                                                          f.untilUs,
                                                          f.atUs });
      const double expected = double(r->links.size()) * std::max(0.0, f.untilUs - f.atUs) / f.mtbfUs;
      if (expected > kMaxRandomFailures)
      {
        throw SpecError(spec.file + ": at " + f.where + "/mtbf_us: " + std::to_string(r->links.size()) +
                        " links failing every " + std::to_string(f.mtbfUs) + " us each until " +
                        std::to_string(f.untilUs) + " us make about " + std::to_string(expected) +
                        " failures; at most 1e7 are allowed (raise mtbf_us or lower until_us)");
      }
      entry["links_in_class"] = r->links.size();
      RandomLinks::DrawNext(r);
      m_random.emplace_back(m_log.size(), r);
    }
    m_log.push_back(entry);
  }
}

FailureSchedule::~FailureSchedule() = default;

nlohmann::json
FailureSchedule::Log() const
{
  nlohmann::json log = m_log;
  for (const auto& [i, r] : m_random)
    log[i]["failures_drawn"] = r->drawn;
  return log;
}

} // namespace mrcsim
