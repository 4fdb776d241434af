// The failure types: for each, the keys it takes (the registry, FailureTypes()), the reader of
// those keys (Parse*, called by the scenario reader once "type" and "at_us" are read) and the
// scheduler (Schedule*, called by FailureSchedule on each transport's network).
#include "sim/failures/failure-types.h"

#include "sim/failures/failure-params.h"
#include "sim/failures/failure-schedule.h"
#include "sim/scenario/scenario-spec-detail.h"
#include "sim/workloads/workload.h"

#include "models/engine/splitmix.h"

#include "ns3/simulator.h"

#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mrcsim
{

namespace
{

using detail::kMaxTimeUs;
using ns3::Ptr;
using ns3::Simulator;
using ns3::Time;

constexpr int64_t kMaxFlaps = 1000000;
/// A link keeps at least a millionth of its rate: below that a frame's wire time would overflow
/// the simulator's clock (and a rate of 0 is a link_down).
constexpr double kMinRateFactor = 1e-6;

// ---- readers (scenario files) -------------------------------------------------------------------

/// The failure's "link": a selector of one of the fabric's links.
LinkSelector
ReadLink(JsonReader& r, const Fabric& fabric)
{
  return detail::ParseLinkSelector(r.Raw("link"), r.Origin(), r.Path() + "/link", fabric);
}

void
ParseLink(JsonReader& r, FailureSpec& f, const Fabric& fabric)
{
  auto p = std::make_shared<LinkParams>();
  p->link = ReadLink(r, fabric);
  f.params = p;
}

void
ParseLinkFlap(JsonReader& r, FailureSpec& f, const Fabric& fabric)
{
  auto p = std::make_shared<LinkFlapParams>();
  p->link = ReadLink(r, fabric);
  p->periodUs = detail::PositiveTimeUs(r, "period_us");
  p->count = static_cast<uint32_t>(r.Int("count", 1, kMaxFlaps));
  // Every flap is an event of the run: the last must be a time the simulator's clock holds.
  const double lastUs = f.atUs + p->count * p->periodUs;
  if (lastUs > kMaxTimeUs)
  {
    r.Fail("period_us",
           std::to_string(p->count) + " flaps of " + detail::Fmt(p->periodUs) + " us from at_us " +
             detail::Fmt(f.atUs) + " end at " + detail::Fmt(lastUs) + " us; at most " + detail::Fmt(kMaxTimeUs) +
             " us (about 11.6 days), lower period_us or count");
  }
  f.params = p;
}

void
ParseSwitch(JsonReader& r, FailureSpec& f, const Fabric& fabric)
{
  auto p = std::make_shared<SwitchParams>();
  p->plane = detail::PlaneIndex(r, "plane", fabric);
  p->tier = static_cast<int>(detail::IndexValue(r, "tier", r.Raw("tier"), fabric.NumTiers(), "tier", "tiers"));
  p->index = detail::IndexValue(r,
                                "index",
                                r.Raw("index"),
                                fabric.Switches(p->plane, p->tier).size(),
                                "switch",
                                "switches",
                                "tier " + std::to_string(p->tier) + " of plane " + std::to_string(p->plane));
  f.params = p;
}

void
ParsePlane(JsonReader& r, FailureSpec& f, const Fabric& fabric)
{
  auto p = std::make_shared<PlaneParams>();
  p->plane = detail::PlaneIndex(r, "plane", fabric);
  f.params = p;
}

void
ParsePort(JsonReader& r, FailureSpec& f, const Fabric& fabric)
{
  // A NIC port is its GPU's link into the plane; storing it as a selector lets the runner treat
  // it like any other named link.
  auto p = std::make_shared<LinkParams>();
  p->link.gpu = detail::GpuIndex(r, "gpu", fabric);
  p->link.plane = detail::PlaneIndex(r, "plane", fabric);
  p->link.where = r.Path();
  ResolveLink(fabric, p->link, r.Origin());
  f.params = p;
}

void
ParseGray(JsonReader& r, FailureSpec& f, const Fabric& fabric)
{
  auto p = std::make_shared<GrayParams>();
  p->link = ReadLink(r, fabric);
  if (!r.Has("loss_rate") && !r.Has("rate_factor"))
  {
    throw SpecError(r.Origin() + ": at " + r.Path() +
                    ": a gray failure needs \"loss_rate\" [0, 1], \"rate_factor\" (0, 1] or both");
  }
  p->lossRate = r.Number("loss_rate", 0, 1, 0);
  p->rateFactor = r.Number("rate_factor", kMinRateFactor, 1, 1);
  f.params = p;
}

void
ParseRandomLinks(JsonReader& r, FailureSpec& f, const Fabric&)
{
  auto p = std::make_shared<RandomLinksParams>();
  p->linkClass = r.Choice("link_class", { "gpu-t0", "t0-t1" });
  p->mtbfUs = detail::PositiveTimeUs(r, "mtbf_us");
  p->mttrUs = detail::PositiveTimeUs(r, "mttr_us");
  p->untilUs = detail::PositiveTimeUs(r, "until_us");
  if (p->untilUs <= f.atUs)
  {
    r.Fail("until_us", "must be after at_us (" + detail::Fmt(f.atUs) + "), got " + detail::Fmt(p->untilUs));
  }
  f.params = p;
}

// ---- schedulers (runs) --------------------------------------------------------------------------

void
SetLinks(ns3::FabricNetwork& net, Time at, const std::vector<uint32_t>& links, bool up)
{
  for (uint32_t id : links)
    net.ScheduleLinkUp(at, id, up);
}

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

/// link_down, link_up, port_down, port_up: one link (a NIC port is its link).
template<bool Up>
FailureLogUpdate
ScheduleLink(const FailureSpec& f, FailureContext& run, nlohmann::json& entry)
{
  const LinkParams& p = ParamsOf<LinkParams>(f.params, f.type);
  const uint32_t id = ResolveLink(run.fabric, p.link, run.spec.file);
  SetLinks(run.net, MicrosecondsToTime(f.atUs), { id }, Up);
  entry["links"] = { id };
  return {};
}

FailureLogUpdate
ScheduleLinkFlap(const FailureSpec& f, FailureContext& run, nlohmann::json& entry)
{
  const LinkFlapParams& p = ParamsOf<LinkFlapParams>(f.params, f.type);
  const uint32_t id = ResolveLink(run.fabric, p.link, run.spec.file);
  for (uint32_t k = 0; k < p.count; ++k)
  {
    SetLinks(run.net, MicrosecondsToTime(f.atUs + k * p.periodUs), { id }, false);
    SetLinks(run.net, MicrosecondsToTime(f.atUs + (k + 0.5) * p.periodUs), { id }, true);
  }
  entry["links"] = { id };
  return {};
}

template<bool Up>
FailureLogUpdate
ScheduleSwitch(const FailureSpec& f, FailureContext& run, nlohmann::json& entry)
{
  const SwitchParams& p = ParamsOf<SwitchParams>(f.params, f.type);
  auto links = SwitchLinks(run.fabric, p.plane, p.tier, p.index);
  SetLinks(run.net, MicrosecondsToTime(f.atUs), links, Up);
  entry["links"] = links.size();
  return {};
}

template<bool Up>
FailureLogUpdate
SchedulePlane(const FailureSpec& f, FailureContext& run, nlohmann::json& entry)
{
  const PlaneParams& p = ParamsOf<PlaneParams>(f.params, f.type);
  auto links = PlaneLinks(run.fabric, p.plane);
  SetLinks(run.net, MicrosecondsToTime(f.atUs), links, Up);
  entry["links"] = links.size();
  return {};
}

FailureLogUpdate
ScheduleGray(const FailureSpec& f, FailureContext& run, nlohmann::json& entry)
{
  const GrayParams& p = ParamsOf<GrayParams>(f.params, f.type);
  const uint32_t id = ResolveLink(run.fabric, p.link, run.spec.file);
  auto [a, b] = run.fabric.Ends(id);
  const FabricLink& l = run.fabric.Link(id);
  Ptr<ns3::FabricChannel> ch = run.net.GetChannel(id);
  Ptr<ns3::FabricPort> pa = run.net.GetPort(a, l.portA);
  Ptr<ns3::FabricPort> pb = run.net.GetPort(b, l.portB);
  const double loss = p.lossRate;
  const double rate = p.rateFactor;
  entry["links"] = { id };
  // Scheduled in every process alike (a global event); a process that did not build the link's
  // ports (an MPI rank: FabricNetwork) has no channel for it and leaves the link to its rank.
  Simulator::Schedule(MicrosecondsToTime(f.atUs),
                      [ch, pa, pb, loss, rate]
                      {
                        if (!ch)
                          return;
                        for (auto p : { pa, pb })
                        {
                          ch->SetLossRate(ns3::PeekPointer(p), loss);
                          ch->SetRateFactor(ns3::PeekPointer(p), rate);
                        }
                      });
  return {};
}

/// Failures of a link class as a Poisson process (rate: links / MTBF), each repaired after an
/// exponential time of mean MTTR, drawn from the scenario seed one at a time: each failure's
/// event draws the next, so memory does not grow with the number of failures.
struct RandomLinks
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
    // An exponential repair time has no bound; one after every run's end (kMaxTimeUs) never
    // happens, and converting it would overflow the simulator's clock: the link stays down.
    const bool repaired = r.nowUs + repairUs <= kMaxTimeUs;
    const Time repairAt = repaired ? MicrosecondsToTime(r.nowUs + repairUs) : Time();
    ++r.drawn;
    Simulator::Schedule(at - Simulator::Now(),
                        [self, id, repaired, repairAt]
                        {
                          self->net->SetLinkUp(id, false);
                          if (repaired)
                            self->net->ScheduleLinkUp(repairAt, id, true);
                          DrawNext(self);
                        });
  }
};

FailureLogUpdate
ScheduleRandomLinks(const FailureSpec& f, FailureContext& run, nlohmann::json& entry)
{
  const RandomLinksParams& p = ParamsOf<RandomLinksParams>(f.params, f.type);
  auto r =
    std::make_shared<RandomLinks>(RandomLinks{ &run.net,
                                               ClassLinks(run.fabric, p.linkClass),
                                               WorkloadStreamSeed(run.spec.seed, "random_links", run.randomStreams++),
                                               p.mtbfUs,
                                               p.mttrUs,
                                               p.untilUs,
                                               f.atUs });
  const double expected = double(r->links.size()) * std::max(0.0, p.untilUs - f.atUs) / p.mtbfUs;
  if (expected > kMaxRandomFailures)
  {
    throw SpecError(run.spec.file + ": at " + f.where + "/mtbf_us: " + std::to_string(r->links.size()) +
                    " links failing every " + std::to_string(p.mtbfUs) + " us each until " + std::to_string(p.untilUs) +
                    " us make about " + std::to_string(expected) +
                    " failures; at most 1e7 are allowed (raise mtbf_us or lower until_us)");
  }
  entry["links_in_class"] = r->links.size();
  RandomLinks::DrawNext(r);
  return [r](nlohmann::json& e) { e["failures_drawn"] = r->drawn; };
}

TypeRegistry<FailureType>
BuildRegistry()
{
  constexpr KeyUse kRequired = KeyUse::Required;
  const std::vector<KeyRule> link{ { "link", kRequired } };
  const std::vector<KeyRule> sw{ { "plane", kRequired }, { "tier", kRequired }, { "index", kRequired } };
  const std::vector<KeyRule> plane{ { "plane", kRequired } };
  const std::vector<KeyRule> port{ { "gpu", kRequired }, { "plane", kRequired } };
  return TypeRegistry<FailureType>(
    "failure",
    { { "type", kRequired }, { "at_us", kRequired } },
    // The order in which an entry is checked for keys of other types.
    { "link",
      "period_us",
      "count",
      "plane",
      "tier",
      "index",
      "gpu",
      "loss_rate",
      "rate_factor",
      "link_class",
      "mtbf_us",
      "mttr_us",
      "until_us" },
    {
      { { "link_down", "a link goes down (both directions)", link }, &ParseLink, &ScheduleLink<false> },
      { { "link_up", "a link comes back up", link }, &ParseLink, &ScheduleLink<true> },
      { { "link_flap",
          "a link goes down for half of each period, count periods",
          { { "link", kRequired }, { "period_us", kRequired }, { "count", kRequired } } },
        &ParseLinkFlap,
        &ScheduleLinkFlap },
      { { "switch_down", "every link of a switch goes down", sw }, &ParseSwitch, &ScheduleSwitch<false> },
      { { "switch_up", "every link of a switch comes back up", sw }, &ParseSwitch, &ScheduleSwitch<true> },
      { { "plane_down", "every link of a plane's switches goes down", plane }, &ParsePlane, &SchedulePlane<false> },
      { { "plane_up", "every link of a plane's switches comes back up", plane }, &ParsePlane, &SchedulePlane<true> },
      { { "port_down", "a NIC port (its GPU's link into a plane) goes down", port }, &ParsePort, &ScheduleLink<false> },
      { { "port_up", "a NIC port comes back up", port }, &ParsePort, &ScheduleLink<true> },
      { { "gray",
          "a link loses packets and/or runs at a fraction of its rate",
          { { "link", kRequired }, { "loss_rate", KeyUse::AnyOf }, { "rate_factor", KeyUse::AnyOf } } },
        &ParseGray,
        &ScheduleGray },
      { { "random_links",
          "links of a class fail at random (MTBF) and are repaired (MTTR) until until_us",
          { { "link_class", kRequired },
            { "mtbf_us", kRequired },
            { "mttr_us", kRequired },
            { "until_us", kRequired } } },
        &ParseRandomLinks,
        &ScheduleRandomLinks },
    });
}

TypeRegistry<FailureType>&
Registry()
{
  static TypeRegistry<FailureType> registry = BuildRegistry();
  return registry;
}

} // namespace

const TypeRegistry<FailureType>&
FailureTypes()
{
  return Registry();
}

void
RegisterFailureType(FailureType type)
{
  NS_ABORT_MSG_IF(!type.parse || !type.schedule, "failure type '" << type.name << "' needs both parse and schedule");
  Registry().Add(std::move(type));
}

} // namespace mrcsim
