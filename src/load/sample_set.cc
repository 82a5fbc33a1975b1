#include "load/sample_set.h"

#include <algorithm>
#include <cmath>

#include "load/exact_stats.h"

namespace servescope {
namespace {

std::int64_t micro_key(double value) {
  return std::llround(value * 1000.0);
}

}  // namespace

template <class T>
void SampleSet<T>::fold() {
  for (T v : values_) {
    const double x = static_cast<double>(v);
    ++folded_[micro_key(x)];
    folded_max_ = folded_count_ == 0 ? x : std::max(folded_max_, x);
    folded_sum_ += x;
    ++folded_count_;
  }
  values_.clear();  // the capacity is kept: the next values reuse it
}

template <class T>
void SampleSet<T>::merge(const SampleSet& other) {
  if (!folded() && !other.folded()) {
    for (T v : other.values_)
      add(v);
    return;
  }
  fold();
  for (const auto& [key, n] : other.folded_)
    folded_[key] += n;
  if (other.folded_count_ > 0) {
    folded_max_ = folded_count_ == 0 ? other.folded_max_ : std::max(folded_max_, other.folded_max_);
    folded_sum_ += other.folded_sum_;
    folded_count_ += other.folded_count_;
  }
  for (T v : other.values_)
    add(v);
  fold();
}

template <class T>
LatencySummary SampleSet<T>::summarize() const {
  if (!folded()) {
    std::vector<T> copy = values_;
    return summarize_samples(copy);
  }
  std::map<std::int64_t, std::uint64_t> counts = folded_;
  double sum = folded_sum_, max = folded_max_;
  for (T v : values_) {
    const double x = static_cast<double>(v);
    ++counts[micro_key(x)];
    sum += x;
    max = std::max(max, x);
  }
  LatencySummary s;
  s.count = count();
  s.mean = sum / static_cast<double>(s.count);
  s.max = max;
  // The order statistics the interpolation needs, walking the counts once in rank order.
  const double ps[] = {0.50, 0.90, 0.95, 0.99, 0.999};
  double* out[] = {&s.p50, &s.p90, &s.p95, &s.p99, &s.p999};
  double lo_value[5] = {}, hi_value[5] = {}, frac[5] = {};
  std::uint64_t lo_rank[5] = {}, hi_rank[5] = {};
  for (int i = 0; i < 5; ++i) {
    const double pos = ps[i] * static_cast<double>(s.count - 1);
    lo_rank[i] = static_cast<std::uint64_t>(std::floor(pos));
    hi_rank[i] = std::min(lo_rank[i] + 1, s.count - 1);
    frac[i] = pos - static_cast<double>(lo_rank[i]);
  }
  std::uint64_t below = 0;  // samples before this key
  for (const auto& [key, n] : counts) {
    const double value = static_cast<double>(key) / 1000.0;
    for (int i = 0; i < 5; ++i) {
      if (lo_rank[i] >= below && lo_rank[i] < below + n)
        lo_value[i] = value;
      if (hi_rank[i] >= below && hi_rank[i] < below + n)
        hi_value[i] = value;
    }
    below += n;
  }
  for (int i = 0; i < 5; ++i)
    *out[i] = lo_value[i] + (hi_value[i] - lo_value[i]) * frac[i];
  return s;
}

template class SampleSet<double>;
template class SampleSet<float>;

}  // namespace servescope
