// Service-level objectives for `bench --slo`: parsing "ttft:500ms,tpot:50ms,ttft_p99:500ms",
// and judging one point's requests against them (goodput, attainment, percentile verdicts).
#pragma once

#include <string_view>
#include <vector>

#include "core/result.h"
#include "load/point_tally.h"
#include "report/bench_report.h"

namespace servescope {

/// "ttft:500ms,tpot:50ms,e2e:30s,ttft_p99:500ms" (durations in ms or s). Fails naming the item.
Result<std::vector<SloThreshold>> parse_slo(std::string_view text);

/// The point against the objectives: the per-request ones as the tally judged each request
/// (PointTally::slo must be `slo`), the percentile ones on `point`'s percentiles; `point` also
/// gives the duration.
SloResult judge_slo(const std::vector<SloThreshold>& slo, const PointTally& tally,
                    const BenchPoint& point);

}  // namespace servescope
