#include "sim/network/scale-up-fabric.h"

#include "topologies/fabric-spec.h"

#include "ns3/abort.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace mrcsim
{

/// One domain's crossbar: links 0..G-1 are the GPUs' egresses, G..2G-1 their ingresses and, on a
/// mesh, 2G + s x G + d the link from local rank s to local rank d. Between two changes every
/// transfer moves at its max-min fair rate; one pending event, the next departure (an event of an
/// older allocation finds its generation stale and does nothing).
class ScaleUpFabric::Domain
{
public:
  Domain(const ScaleUpSpec& spec, ScaleUpFabric& owner) : m_spec(spec), m_owner(owner)
  {
    const uint32_t g = spec.gpusPerDomain;
    m_net.capacityBps.assign(2 * std::size_t(g), spec.gpuGbps * 1e9);
    if (spec.pairGbps > 0)
      m_net.capacityBps.resize(2 * std::size_t(g) + std::size_t(g) * g, spec.pairGbps * 1e9);
  }

  void Start(uint32_t src, uint32_t dst, uint64_t bytes, std::function<void()> done)
  {
    Advance();
    uint32_t slot;
    if (m_free.empty())
    {
      slot = static_cast<uint32_t>(m_net.flows.size());
      m_net.flows.emplace_back();
    }
    else
    {
      slot = m_free.back();
      m_free.pop_back();
    }
    const uint32_t g = m_spec.gpusPerDomain;
    FairFlow& flow = m_net.flows[slot];
    flow.bits = double(bytes) * 8;
    flow.links = { src, g + dst };
    if (m_spec.pairGbps > 0)
      flow.links.push_back(2 * g + src * g + dst);
    m_active.push_back(Active{ slot, flow.bits, std::move(done) });
    Reallocate();
  }

private:
  struct Active
  {
    uint32_t slot;
    double leftBits;
    std::function<void()> done;
  };

  /// Moves every transfer on to now at its current rate.
  void Advance()
  {
    const double now = ns3::Simulator::Now().GetSeconds();
    const double dt = now - m_lastS;
    if (dt > 0)
      for (std::size_t i = 0; i < m_active.size(); ++i)
        m_active[i].leftBits -= m_rate[i] * dt;
    m_lastS = now;
  }

  /// New rates for the transfers now in the crossbar, and the event of the next departure.
  void Reallocate()
  {
    ++m_generation;
    if (m_active.empty())
    {
      m_rate.clear();
      return;
    }
    std::vector<uint32_t> slots(m_active.size());
    for (std::size_t i = 0; i < m_active.size(); ++i)
      slots[i] = m_active[i].slot;
    m_rate = MaxMinFairRates(m_net, slots);
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < m_active.size(); ++i)
      next = std::min(next, std::max(0.0, m_active[i].leftBits) / m_rate[i]);
    // Rounded up to the time resolution: the transfer is done by then, never a tick early.
    const double ticksPerSecond = double(ns3::Seconds(1).GetTimeStep());
    const auto ticks = static_cast<int64_t>(std::ceil(next * ticksPerSecond));
    ns3::Simulator::Schedule(ns3::TimeStep(ticks), &Domain::OnDeparture, this, m_generation);
  }

  void OnDeparture(uint64_t generation)
  {
    if (generation != m_generation)
      return;
    Advance();
    // Done: what is left is less than a tick's worth at its rate (the event was rounded up), or a
    // relative 1e-9 of it (equal transfers finish together).
    const double tickS = 1.0 / double(ns3::Seconds(1).GetTimeStep());
    const ns3::Time latency = ns3::Seconds(m_spec.latencyNs * 1e-9);
    std::vector<Active> kept;
    std::vector<double> keptRate;
    for (std::size_t i = 0; i < m_active.size(); ++i)
    {
      Active& a = m_active[i];
      if (a.leftBits <= m_rate[i] * tickS || a.leftBits <= 1e-9 * m_net.flows[a.slot].bits)
      {
        m_free.push_back(a.slot);
        ns3::Simulator::Schedule(latency,
                                 [owner = &m_owner, done = std::move(a.done)]
                                 {
                                   --owner->m_outstanding;
                                   done();
                                 });
        continue;
      }
      kept.push_back(std::move(a));
      keptRate.push_back(m_rate[i]);
    }
    m_active = std::move(kept);
    m_rate = std::move(keptRate);
    Reallocate();
  }

  const ScaleUpSpec& m_spec;
  ScaleUpFabric& m_owner;
  FairShareInput m_net;        ///< the crossbar's links; flows by slot
  std::vector<uint32_t> m_free; ///< slots of finished transfers, reused
  std::vector<Active> m_active; ///< in arrival order
  std::vector<double> m_rate;   ///< bits per second, like m_active
  double m_lastS = 0;
  uint64_t m_generation = 0;
};

ScaleUpFabric::ScaleUpFabric(const ScaleUpSpec& spec, uint32_t gpus) : m_spec(spec)
{
  CheckScaleUp(spec, gpus, "scale_up");
  NS_ABORT_MSG_IF(!spec.Enabled(), "ScaleUpFabric: a spec without domains");
  m_domains.resize(gpus / spec.gpusPerDomain);
}

ScaleUpFabric::~ScaleUpFabric() = default;

void
ScaleUpFabric::Transfer(uint32_t src, uint32_t dst, uint64_t bytes, std::function<void()> done)
{
  NS_ABORT_MSG_IF(!SameDomain(src, dst) || m_spec.DomainOf(src) >= m_domains.size(),
                  "ScaleUpFabric: GPUs " << src << " and " << dst << " are not of one domain");
  ++m_transfers;
  ++m_outstanding;
  m_bytes += bytes;
  if (bytes == 0 || src == dst)
  {
    // Nothing crosses the crossbar: the latency alone.
    ns3::Simulator::Schedule(ns3::Seconds(m_spec.latencyNs * 1e-9),
                             [this, done = std::move(done)]
                             {
                               --m_outstanding;
                               done();
                             });
    return;
  }
  std::unique_ptr<Domain>& domain = m_domains[m_spec.DomainOf(src)];
  if (!domain)
    domain = std::make_unique<Domain>(m_spec, *this);
  domain->Start(m_spec.LocalRank(src), m_spec.LocalRank(dst), bytes, std::move(done));
}

} // namespace mrcsim
