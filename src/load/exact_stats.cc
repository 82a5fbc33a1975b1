#include "load/exact_stats.h"

#include <algorithm>
#include <cmath>

namespace servescope {
namespace {

template <class T>
LatencySummary summarize(std::vector<T>& v) {
  LatencySummary s;
  s.count = v.size();
  if (v.empty())
    return s;
  double sum = 0;
  for (T x : v)
    sum += static_cast<double>(x);
  s.mean = sum / static_cast<double>(v.size());
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double pos = p * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return static_cast<double>(v[lo]) + (static_cast<double>(v[hi]) - static_cast<double>(v[lo])) *
                                            (pos - static_cast<double>(lo));
  };
  s.p50 = q(0.50);
  s.p90 = q(0.90);
  s.p95 = q(0.95);
  s.p99 = q(0.99);
  s.p999 = q(0.999);
  s.max = static_cast<double>(v.back());
  return s;
}

}  // namespace

LatencySummary summarize_samples(std::vector<double>& samples) {
  return summarize(samples);
}

LatencySummary summarize_samples(std::vector<float>& samples) {
  return summarize(samples);
}

}  // namespace servescope
