// Summary statistics for simulation results: exact percentiles from samples, a log-scale
// histogram for samples too many to keep (inter-token latencies), and time averages of
// piecewise-constant quantities (requests running, queued, in the system).
#pragma once

#include <cstdint>
#include <vector>

namespace servescope {

struct Percentiles {
  std::uint64_t count = 0;
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
};

/// Exact percentiles (linear interpolation between order statistics); reorders `samples`.
Percentiles percentiles(std::vector<double>& samples);

/// Percentiles within 0.5% relative error over [1e-7, 1e5], any number of samples.
class LogHistogram {
 public:
  LogHistogram();
  void add(double value, std::uint64_t weight = 1);
  Percentiles summary() const;

 private:
  double quantile(double q) const;
  std::vector<std::uint64_t> bins_;
  std::uint64_t count_ = 0;
  std::uint64_t zeros_ = 0;
  double sum_ = 0;
  double max_ = 0;
};

/// The time average and maximum of a quantity that changes by steps.
class TimeAverage {
 public:
  /// The quantity had `value` from the previous call's time until `now`.
  void hold(double value, double since, double now) {
    area_ += value * (now - since);
    if (value > max_)
      max_ = value;
  }
  double mean(double duration) const { return duration > 0 ? area_ / duration : 0; }
  double max() const { return max_; }

 private:
  double area_ = 0;
  double max_ = 0;
};

}  // namespace servescope
