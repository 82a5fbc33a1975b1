// Service-level objectives for `bench --slo`: parsing "ttft:500ms,tpot:50ms,ttft_p99:500ms",
// and judging one point's requests against them (goodput, attainment, percentile verdicts).
#pragma once

#include <string_view>
#include <vector>

#include "core/result.h"
#include "load/request_record.h"
#include "report/bench_report.h"

namespace servescope {

/// "ttft:500ms,tpot:50ms,e2e:30s,ttft_p99:500ms" (durations in ms or s). Fails naming the item.
Result<std::vector<SloThreshold>> parse_slo(std::string_view text);

/// The point's requests (warm-up left out) against the objectives; `point` gives the duration
/// and the percentiles already computed.
SloResult judge_slo(const std::vector<SloThreshold>& slo, const std::vector<RequestRecord>& records,
                    const BenchPoint& point);

}  // namespace servescope
