// `bench --compare A.json B.json`: did two runs differ? Per point and per latency metric, the
// relative change from A to B with a 95% bootstrap interval over the requests each run recorded
// (runs made with --details), and a plain verdict; throughput, one figure per run, gets its
// interval from the runs of `bench --repeat N` (N ≥ 3), and without them says it has none.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace servescope {

struct MetricChange {
  std::string point;   // "concurrency 8", "rate 4/s"
  std::string metric;  // "TTFT p50"
  double a = 0, b = 0;
  double change = 0;                // b / a − 1
  std::optional<double> low, high;  // 95% interval of the change
  bool real = false;                // the interval excludes 0 and |change| ≥ min effect
  bool lower_is_better = true;
  std::string sentence;  // "TTFT p50 is 7.1% lower in B (95% CI 5.2–9.0%): a real difference"
};

struct RunComparison {
  std::string a_name, b_name;
  double min_effect = 0.02;
  int resamples = 2000;
  std::vector<MetricChange> changes;
  std::vector<std::string> notes;  // what could not be judged and why
};

struct CompareOptions {
  double min_effect = 0.02;  // a change smaller than this is not called a difference
  int resamples = 2000;
  std::uint64_t seed = 1;
};

/// Runs needed on each side before throughput gets an interval.
inline constexpr std::size_t kMinRunsForInterval = 3;

/// The 95% percentile-bootstrap interval of mean(b) / mean(a) − 1, resampling each side's runs
/// (values of one figure, one per run: throughput under bench --repeat, a bisect experiment's
/// repeats); none with fewer than kMinRunsForInterval on a side.
std::optional<std::pair<double, double>> mean_change_interval(const std::vector<double>& a,
                                                              const std::vector<double>& b,
                                                              const CompareOptions& options = {});

/// Fails when the documents are not bench results or their points do not correspond.
Result<RunComparison> compare_runs(const nlohmann::json& a, const nlohmann::json& b,
                                   const std::string& a_name, const std::string& b_name,
                                   const CompareOptions& options = {});

std::string render_comparison_text(const RunComparison& c);
/// The --json document; report/compare_report renders it as Markdown and HTML.
nlohmann::json comparison_json(const RunComparison& c);

}  // namespace servescope
