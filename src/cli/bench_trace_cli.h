// bench --trace FILE [--trace-speed S[,S...]]: replay a timestamped trace (load/trace.h)
// instead of an arrival process and a dataset — each row sent at its own time (divided by the
// speed), with its own prompt and output lengths; one point per speed.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "core/result.h"
#include "load/bench_session.h"

namespace servescope {

struct BenchTraceCli {
  std::string file;
  std::string speed = "1";
};

void add_bench_trace_options(CLI::App& app, BenchTraceCli& cli);

/// Reads the trace and sets o.trace, o.trace_name and o.points from `base` (the timeout, seed,
/// cap from --concurrency). `requests` > 0 replays the first that many rows. Fails naming an
/// option that does not go with a trace, or what is wrong in the file.
Status apply_bench_trace(const CLI::App& app, const BenchTraceCli& cli, std::int64_t requests,
                         const PointPlan& base, BenchOptions& o);

}  // namespace servescope
