// `servescope bench` for people: a short header, one row per sweep point (throughput, TTFT,
// ITL, TPOT, E2E, queue-inclusive E2E, in flight, errors), then for each point what the
// server itself saw, the schedule's accuracy, lengths, errors by kind and warnings.
#pragma once

#include <string>

#include "report/bench_report.h"

namespace servescope {

std::string render_bench_text(const BenchReport& report);
/// The live progress line (no newline): "point 2/3 · 412/1,000 · 96.1 req/s · 0 errors · ETA 6 s".
std::string render_bench_progress(int point, int points, double elapsed_s, std::uint64_t done,
                                  std::uint64_t failed, std::uint64_t total, double duration_s,
                                  int in_flight);

}  // namespace servescope
