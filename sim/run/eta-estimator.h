// The remaining wall time of a run, from its recent progress: the rate over the last few progress
// lines rather than since the start (which counts the set-up, and a slow start), reported only
// once two successive estimates agree.
#ifndef MRCSIM_SIM_RUN_ETA_ESTIMATOR_H
#define MRCSIM_SIM_RUN_ETA_ESTIMATOR_H

#include <cstddef>
#include <deque>
#include <optional>
#include <utility>

namespace mrcsim
{

/// \brief Estimates the wall time left from (elapsed seconds, share of the work done) samples.
class EtaEstimator
{
public:
  /// \param window  how many of the latest intervals between samples the rate is taken over
  /// \param agreement  how far (relative) two successive estimates may differ and still count as
  ///        stable; the earlier one is first moved on by the time between them
  explicit EtaEstimator(std::size_t window = 4, double agreement = 0.25);

  /// \brief Adds a sample (elapsed: wall seconds, increasing; share: in [0, 1]) and returns the
  /// seconds left, or nothing while the estimate is not yet stable (too few samples, no recent
  /// progress, or the last two estimates disagree).
  std::optional<double> Add(double elapsed, double share);

private:
  std::size_t m_window;
  double m_agreement;
  std::deque<std::pair<double, double>> m_samples; ///< (elapsed, share), the window's and one more
  std::optional<std::pair<double, double>> m_last;  ///< (elapsed, estimate) of the previous sample
};

} // namespace mrcsim

#endif
