// Whether a `bench` run may exit 0: a CI job that benchmarks a broken server must fail. A run
// fails when a point's failed requests exceed --max-error-rate, when a point completes nothing,
// when the server's own view contradicts the client's (the cross-check), or when a percentile
// objective of --slo is missed.
#pragma once

#include <optional>
#include <string>

#include "report/bench_report.h"

namespace servescope {

/// One line saying why the run failed, or nullopt. `max_error_rate` is a share (0.05 = 5%).
std::optional<std::string> bench_failure(const BenchReport& report, double max_error_rate);

}  // namespace servescope
