// Turns one point's records into the report's figures: throughput, exact latency
// percentiles (TTFT, per-token and per-event ITL, TPOT, E2E, each from the actual send and,
// for TTFT and E2E, from the intended send), the client queue and schedule lag, late sends,
// requested vs achieved rate, input and output lengths as the server reported them, errors
// by kind, and requests in flight over time.
#pragma once

#include "load/runner.h"
#include "report/bench_report.h"

namespace servescope {

/// `details`: keep one row per request.
BenchPoint summarize_point(const PointPlan& plan, PointData& data, bool details);

}  // namespace servescope
