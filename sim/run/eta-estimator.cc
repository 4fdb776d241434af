#include "sim/run/eta-estimator.h"

#include <algorithm>
#include <cmath>

namespace mrcsim
{

EtaEstimator::EtaEstimator(std::size_t window, double agreement)
  : m_window(std::max<std::size_t>(window, 1)),
    m_agreement(agreement)
{
}

std::optional<double>
EtaEstimator::Add(double elapsed, double share)
{
  share = std::clamp(share, 0.0, 1.0);
  m_samples.emplace_back(elapsed, share);
  while (m_samples.size() > m_window + 1)
    m_samples.pop_front();
  if (share >= 1)
    return 0.0;
  const auto& [t0, s0] = m_samples.front();
  const double rate = elapsed > t0 ? (share - s0) / (elapsed - t0) : 0;
  if (!(rate > 0))
  {
    // Nothing done lately: no estimate, and the next one starts afresh.
    m_last.reset();
    return std::nullopt;
  }
  const double estimate = (1 - share) / rate;
  const std::optional<std::pair<double, double>> previous = m_last;
  m_last = std::make_pair(elapsed, estimate);
  if (!previous)
    return std::nullopt;
  // What the previous estimate says is left now.
  const double expected = std::max(previous->second - (elapsed - previous->first), 0.0);
  if (std::abs(estimate - expected) > m_agreement * std::max(estimate, expected))
    return std::nullopt;
  return estimate;
}

} // namespace mrcsim
