#include "twin/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace servescope {
namespace {

constexpr double kLow = 1e-7;
constexpr double kHigh = 1e5;
constexpr double kGrowth = 1.01;  // bin width ratio; the midpoint is within 0.5%

std::size_t bin_count() {
  return static_cast<std::size_t>(std::ceil(std::log(kHigh / kLow) / std::log(kGrowth))) + 2;
}

double interpolate(const std::vector<double>& sorted, double q) {
  if (sorted.empty())
    return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

Percentiles percentiles(std::vector<double>& samples) {
  Percentiles p;
  p.count = samples.size();
  if (samples.empty())
    return p;
  std::sort(samples.begin(), samples.end());
  p.mean =
      std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  p.p50 = interpolate(samples, 0.50);
  p.p90 = interpolate(samples, 0.90);
  p.p99 = interpolate(samples, 0.99);
  p.max = samples.back();
  return p;
}

LogHistogram::LogHistogram() : bins_(bin_count(), 0) {}

void LogHistogram::add(double value, std::uint64_t weight) {
  if (weight == 0)
    return;
  count_ += weight;
  sum_ += value * static_cast<double>(weight);
  max_ = std::max(max_, value);
  if (value <= 0) {
    zeros_ += weight;
    return;
  }
  const double clamped = std::clamp(value, kLow, kHigh);
  const auto i = static_cast<std::size_t>(std::log(clamped / kLow) / std::log(kGrowth));
  bins_[std::min(i, bins_.size() - 1)] += weight;
}

double LogHistogram::quantile(double q) const {
  const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  std::uint64_t seen = zeros_;
  if (rank <= seen)
    return 0;
  for (std::size_t i = 0; i < bins_.size(); ++i) {
    seen += bins_[i];
    if (seen >= rank) {
      // The bin's geometric midpoint, never above the largest sample.
      const double mid = kLow * std::pow(kGrowth, static_cast<double>(i) + 0.5);
      return std::min(mid, max_);
    }
  }
  return max_;
}

Percentiles LogHistogram::summary() const {
  Percentiles p;
  p.count = count_;
  if (count_ == 0)
    return p;
  p.mean = sum_ / static_cast<double>(count_);
  p.p50 = quantile(0.50);
  p.p90 = quantile(0.90);
  p.p99 = quantile(0.99);
  p.max = max_;
  return p;
}

}  // namespace servescope
