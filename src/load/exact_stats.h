// Exact summary statistics from every recorded sample: mean, p50/p90/p95/p99/p99.9 (linear
// interpolation between order statistics) and max.
#pragma once

#include <vector>

#include "report/bench_report.h"

namespace servescope {

/// Reorders `samples`.
LatencySummary summarize_samples(std::vector<double>& samples);
LatencySummary summarize_samples(std::vector<float>& samples);

}  // namespace servescope
