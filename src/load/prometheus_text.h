// Reads what the load generator needs from a Prometheus text exposition: the sum of a gauge's
// series (one per worker) and a histogram's buckets, count and sum, summed over label sets
// the same way. Unknown lines are skipped; nothing here allocates per series.
#pragma once

#include <map>
#include <optional>
#include <string_view>

namespace servescope {

/// The sum of every series named `name` (any labels), or nullopt when there is none.
std::optional<double> prometheus_sum(std::string_view text, std::string_view name);

struct PromHistogram {
  std::map<double, double> buckets;  // le → cumulative count (+Inf as infinity)
  double count = 0;
  double sum = 0;
  bool found = false;
};

/// The histogram `name` (its _bucket, _count and _sum series), summed over label sets.
PromHistogram prometheus_histogram(std::string_view text, std::string_view name);

/// The median of the observations between two readings of one histogram, interpolated
/// linearly within its bucket (the resolution of the buckets); nullopt with no observation.
std::optional<double> histogram_delta_median(const PromHistogram& before,
                                             const PromHistogram& after);

}  // namespace servescope
