// `servescope bench` for machines: JSON (stable field names, versioned: "points", one per
// sweep point, with percentile objects), CSV (one row per point) and Markdown (the table).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/bench_report.h"

namespace servescope {

inline constexpr int kBenchJsonVersion = 1;

/// `details`: each point carries its per-request rows.
nlohmann::json bench_json(const BenchReport& report, bool details);
nlohmann::json latency_json(const LatencySummary& s);
std::string bench_csv(const BenchReport& report);
std::string bench_markdown(const BenchReport& report);

}  // namespace servescope
