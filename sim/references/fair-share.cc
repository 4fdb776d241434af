#include "sim/references/fair-share.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <utility>

namespace mrcsim
{

namespace
{

/// Max-min fair rates of the `active` flows by progressive filling: the link with the smallest
/// fair level (unallocated capacity over unfrozen flows) fills first and freezes its flows at that
/// level; the levels of the links they cross rise or fall; repeat. A link's level changes only
/// when its count of unfrozen flows does, so a heap entry is current while its count is.
class Filling
{
public:
  explicit Filling(const FairShareInput& in)
    : m_in(in),
      m_left(in.capacityBps.size()),
      m_unfrozen(in.capacityBps.size(), 0),
      m_flowsOn(in.capacityBps.size())
  {
  }

  /// Fills `rate` (indexed like `active`); returns the flow-link updates it took.
  uint64_t Allocate(const std::vector<uint32_t>& active, std::vector<double>& rate)
  {
    uint64_t work = 0;
    for (uint32_t l : m_touched)
    {
      m_flowsOn[l].clear();
      m_unfrozen[l] = 0;
    }
    m_touched.clear();
    for (uint32_t i = 0; i < active.size(); ++i)
    {
      for (uint32_t l : m_in.flows[active[i]].links)
      {
        if (m_unfrozen[l]++ == 0)
        {
          m_touched.push_back(l);
          m_left[l] = m_in.capacityBps[l];
        }
        m_flowsOn[l].push_back(i);
        ++work;
      }
    }
    using Entry = std::pair<double, std::pair<uint32_t, uint32_t>>; // level, (link, unfrozen then)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    for (uint32_t l : m_touched)
    {
      heap.push({ m_left[l] / m_unfrozen[l], { l, m_unfrozen[l] } });
    }
    rate.assign(active.size(), -1.0);
    while (!heap.empty())
    {
      const auto [level, key] = heap.top();
      heap.pop();
      const auto [l, count] = key;
      if (count != m_unfrozen[l] || count == 0)
      {
        continue; // stale
      }
      for (uint32_t i : m_flowsOn[l])
      {
        if (rate[i] >= 0)
        {
          continue;
        }
        rate[i] = level;
        for (uint32_t m : m_in.flows[active[i]].links)
        {
          m_left[m] = std::max(0.0, m_left[m] - level);
          if (--m_unfrozen[m] > 0 && m != l)
          {
            heap.push({ m_left[m] / m_unfrozen[m], { m, m_unfrozen[m] } });
          }
          ++work;
        }
      }
    }
    return work;
  }

private:
  const FairShareInput& m_in;
  std::vector<double> m_left;
  std::vector<uint32_t> m_unfrozen;
  std::vector<std::vector<uint32_t>> m_flowsOn; ///< per link: indices into `active`
  std::vector<uint32_t> m_touched;
};

} // namespace

std::vector<double>
MaxMinFairRates(const FairShareInput& input, const std::vector<uint32_t>& active)
{
  std::vector<double> rate;
  Filling(input).Allocate(active, rate);
  return rate;
}

std::optional<std::vector<double>>
FairShareFinishTimes(const FairShareInput& in)
{
  const std::size_t n = in.flows.size();
  std::vector<double> finish(n, 0.0);
  std::vector<uint32_t> order;
  order.reserve(n);
  for (uint32_t f = 0; f < n; ++f)
  {
    finish[f] = in.flows[f].startS;
    if (in.flows[f].bits > 0 && !in.flows[f].links.empty())
    {
      order.push_back(f);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return in.flows[a].startS < in.flows[b].startS; });

  Filling filling(in);
  std::vector<uint32_t> active;
  std::vector<double> left; // bits still to carry, indexed like active
  std::vector<double> rate;
  std::size_t next = 0;
  double now = order.empty() ? 0.0 : in.flows[order[0]].startS;
  uint64_t work = 0;
  while (next < order.size() || !active.empty())
  {
    while (next < order.size() && in.flows[order[next]].startS <= now)
    {
      active.push_back(order[next]);
      left.push_back(in.flows[order[next]].bits);
      ++next;
    }
    if (active.empty())
    {
      now = in.flows[order[next]].startS;
      continue;
    }
    work += filling.Allocate(active, rate);
    if (work > in.workLimit)
    {
      return std::nullopt;
    }
    // The next departure, or the next arrival if sooner.
    double step = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < active.size(); ++i)
    {
      step = std::min(step, left[i] / rate[i]);
    }
    if (next < order.size())
    {
      step = std::min(step, in.flows[order[next]].startS - now);
    }
    now += step;
    // Flows within a relative 1e-9 of done leave together (equal flows finish at once).
    std::size_t kept = 0;
    for (std::size_t i = 0; i < active.size(); ++i)
    {
      const double rest = left[i] - rate[i] * step;
      if (rest <= 1e-9 * in.flows[active[i]].bits)
      {
        finish[active[i]] = now;
        continue;
      }
      active[kept] = active[i];
      left[kept] = rest;
      ++kept;
    }
    active.resize(kept);
    left.resize(kept);
  }
  return finish;
}

} // namespace mrcsim
