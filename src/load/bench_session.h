// A whole `bench` run: learn the model name (GET /v1/models) unless given, find whose metric
// names the server exposes, prepare every request body before the first send, then run each
// sweep point with the server watched, summarise it and hold it against the expectation.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "load/api.h"
#include "load/dataset.h"
#include "load/runner.h"
#include "load/trace.h"
#include "load/url.h"
#include "report/bench_report.h"

namespace servescope {

struct BenchOptions {
  ServerUrl url;
  ApiSpec api;
  std::string model;  // "" asks the server
  bool stream = true;
  bool ignore_eos = true;
  bool continuous_usage = true;
  std::vector<PointPlan> points;
  int repeats = 1;  // --repeat: runs of each point, pooled (load/repeated_runs.h)
  DatasetOptions dataset;
  std::shared_ptr<const Trace> trace;  // --trace: prompts and sends from it (points: trace_points)
  std::string trace_name;
  bool details = false;
  std::string engine;  // whose metric names to read; "" detects from /metrics
  bool watch_server = true;
  double scrape_interval_s = 0.25;
  std::optional<BenchExpectation> expected;
  std::vector<SloThreshold> slo;  // --slo: goodput and percentile verdicts per point
  std::string generator = "servescope";
};

/// Called with the point index (from 1), the point count and the runner's progress.
using BenchProgressFn = std::function<void(int point, int points, const ProgressInfo& info)>;

/// Fails only for what stops a run before it starts (an unreadable dataset, a host that does
/// not resolve); a server that refuses or misbehaves is measured, its errors counted.
Result<BenchReport> run_bench(const BenchOptions& options, const BenchProgressFn& progress = {});

}  // namespace servescope
