// Holds what a point observed against what a plan or a log says the server enforces:
// "the log says max_running_requests=26; at concurrency 64 the server ran at most 26, 38
// waited, median queue 3.1 s". The verdict is false when the server ran more than the
// expectation, or enforced a different limit while requests waited.
#pragma once

#include "report/bench_report.h"

namespace servescope {

void cross_check_point(BenchPoint& point, const BenchExpectation& expected);

}  // namespace servescope
