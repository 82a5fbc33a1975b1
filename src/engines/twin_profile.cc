#include "engines/twin_profile.h"

#include <algorithm>

namespace servescope {

void Histogram::observe(double value) {
  // Prometheus buckets are cumulative: every bucket whose bound is ≥ value counts it.
  const auto first = std::lower_bound(bounds.begin(), bounds.end(), value);
  for (auto i = static_cast<std::size_t>(first - bounds.begin()); i < counts.size(); ++i)
    ++counts[i];
  sum += value;
  ++count;
}

void Histogram::observe_many(double value, std::uint64_t times, double sum_increment) {
  const auto first = std::lower_bound(bounds.begin(), bounds.end(), value);
  for (auto i = static_cast<std::size_t>(first - bounds.begin()); i < counts.size(); ++i)
    counts[i] += times;
  sum += sum_increment;
  count += times;
}

}  // namespace servescope
