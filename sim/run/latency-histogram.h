// A log-bucketed histogram of durations (HDR-style): constant memory, relative error under 1%,
// percentiles without storing samples. Used for message completion times, slowdowns and packet
// latencies. The sum is kept in millionths of the unit, as an integer, so that histograms filled
// in any order, or merged from parts in any order, give the same figures bit for bit.
#ifndef MRCSIM_SIM_RUN_LATENCY_HISTOGRAM_H
#define MRCSIM_SIM_RUN_LATENCY_HISTOGRAM_H

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mrcsim
{

/// \brief Histogram of positive values (any unit); bucket bounds grow by 1% per bucket.
class LatencyHistogram
{
public:
  /// \param min smallest value told apart (smaller values land in the first bucket)
  explicit LatencyHistogram(double min = 1e-3) : m_min(min) {}

  void Add(double value)
  {
    const size_t b = Bucket(value);
    if (b >= m_counts.size())
    {
      m_counts.resize(b + 1, 0);
    }
    ++m_counts[b];
    ++m_count;
    m_sumMillionths += std::llround(value * 1e6);
    m_max = std::max(m_max, value);
  }

  /// \brief Adds `other`'s values (same minimum).
  void Merge(const LatencyHistogram& other)
  {
    if (other.m_counts.size() > m_counts.size())
    {
      m_counts.resize(other.m_counts.size(), 0);
    }
    for (size_t b = 0; b < other.m_counts.size(); ++b)
    {
      m_counts[b] += other.m_counts[b];
    }
    m_count += other.m_count;
    m_sumMillionths += other.m_sumMillionths;
    m_max = std::max(m_max, other.m_max);
  }

  /// \brief The histogram as bytes (count, sum, max, buckets), which FromBytes reads back: a
  /// run across processes merges its ranks' histograms so.
  std::vector<uint8_t> ToBytes() const
  {
    std::vector<uint64_t> words{ m_count, static_cast<uint64_t>(m_sumMillionths), 0 };
    std::memcpy(&words[2], &m_max, sizeof m_max);
    words.insert(words.end(), m_counts.begin(), m_counts.end());
    std::vector<uint8_t> bytes(words.size() * sizeof(uint64_t));
    std::memcpy(bytes.data(), words.data(), bytes.size());
    return bytes;
  }
  /// \brief A histogram of minimum `min` from ToBytes's bytes.
  static LatencyHistogram FromBytes(const std::vector<uint8_t>& bytes, double min)
  {
    LatencyHistogram h(min);
    std::vector<uint64_t> words(bytes.size() / sizeof(uint64_t));
    std::memcpy(words.data(), bytes.data(), words.size() * sizeof(uint64_t));
    if (words.size() < 3)
      return h;
    h.m_count = words[0];
    h.m_sumMillionths = static_cast<int64_t>(words[1]);
    std::memcpy(&h.m_max, &words[2], sizeof h.m_max);
    h.m_counts.assign(words.begin() + 3, words.end());
    return h;
  }

  uint64_t Count() const { return m_count; }
  double Mean() const { return m_count ? double(m_sumMillionths) / 1e6 / double(m_count) : 0.0; }
  double Max() const { return m_max; }

  /// \brief The value at quantile q in [0, 1] (the upper bound of its bucket, capped at the max).
  double Quantile(double q) const
  {
    if (m_count == 0)
    {
      return 0;
    }
    const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * double(m_count))));
    uint64_t seen = 0;
    for (size_t b = 0; b < m_counts.size(); ++b)
    {
      seen += m_counts[b];
      if (seen >= rank)
      {
        return std::min(m_max, m_min * std::pow(kGrowth, double(b + 1)));
      }
    }
    return m_max;
  }

  /// \brief count, mean, p50, p90, p99, p99.9 and max.
  nlohmann::json Summary() const
  {
    return { { "count", m_count },     { "mean", Mean() },        { "p50", Quantile(0.5) },
             { "p90", Quantile(0.9) }, { "p99", Quantile(0.99) }, { "p99_9", Quantile(0.999) },
             { "max", m_max } };
  }

  /// \brief The non-empty buckets as [upper bound, count] pairs, in increasing order (the last
  /// bound capped at the max, as in Quantile): the distribution, for plots drawn from a summary.
  nlohmann::json Buckets() const
  {
    nlohmann::json out = nlohmann::json::array();
    for (size_t b = 0; b < m_counts.size(); ++b)
    {
      if (m_counts[b] > 0)
      {
        out.push_back({ std::min(m_max, m_min * std::pow(kGrowth, double(b + 1))), m_counts[b] });
      }
    }
    return out;
  }

private:
  static constexpr double kGrowth = 1.01;
  size_t Bucket(double value) const
  {
    if (value <= m_min)
    {
      return 0;
    }
    return static_cast<size_t>(std::log(value / m_min) / std::log(kGrowth));
  }

  double m_min;
  std::vector<uint64_t> m_counts;
  uint64_t m_count = 0;
  int64_t m_sumMillionths = 0; ///< the sum, in millionths of the unit
  double m_max = 0;
};

} // namespace mrcsim

#endif
