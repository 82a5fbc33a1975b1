// One metric's samples over a point, for its summary statistics (exact_stats.h). Kept as values
// while there are fewer than a fold threshold, so short runs are summarised from every value
// exactly; past it the values are folded into counts per microsecond (a value in milliseconds,
// key = value × 1000 rounded), so a long run's memory follows the number of distinct microsecond
// values, not the number of requests (`bench --duration 1h` stays flat). Count, mean and max
// stay exact; percentiles of a folded set are exact to the microsecond.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "report/bench_report.h"

namespace servescope {

inline constexpr std::size_t kFoldSamplesAfter = std::size_t{1} << 16;

template <class T>
class SampleSet {
 public:
  explicit SampleSet(std::size_t fold_after = kFoldSamplesAfter) : fold_after_(fold_after) {}

  void add(T value) {
    values_.push_back(value);
    if (values_.size() >= fold_after_)
      fold();
  }
  /// Adds `other`'s samples (another run of the same point).
  void merge(const SampleSet& other);
  std::uint64_t count() const { return values_.size() + folded_count_; }
  bool folded() const { return folded_count_ > 0; }
  /// Entries held in memory: values not yet folded plus distinct microsecond keys.
  std::size_t held() const { return values_.size() + folded_.size(); }
  /// Mean, interpolated p50/p90/p95/p99/p99.9 and max (exact_stats.h's definitions).
  LatencySummary summarize() const;

 private:
  void fold();

  std::size_t fold_after_;
  std::vector<T> values_;
  std::map<std::int64_t, std::uint64_t> folded_;  // microseconds → samples
  std::uint64_t folded_count_ = 0;
  double folded_sum_ = 0;  // of the values as added, not as rounded
  double folded_max_ = 0;
};

}  // namespace servescope
