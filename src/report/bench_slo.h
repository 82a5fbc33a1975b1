// One sentence per point for `bench --slo`, shared by the text and Markdown outputs.
#pragma once

#include <string>
#include <vector>

#include "report/bench_report.h"

namespace servescope {

/// "ttft:500ms, tpot:50ms: 187 of 200 met (93.5%) · goodput 9.35 req/s, 2,394 out tok/s ·
/// ttft_p99:500ms 480.2 ms met"
std::string slo_sentence(const SloResult& slo, const std::vector<SloThreshold>& objectives);

}  // namespace servescope
