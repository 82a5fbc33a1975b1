// `bench --find-max rate|concurrency --slo ...`: the highest load whose point meets the
// objectives. Brackets by doubling (halving when the first load fails), then bisects between the
// highest load that met them and the lowest that did not. A point's verdict is settled by
// intervals — an order-statistic 95% interval on each percentile objective, a Wilson 95%
// interval on the attainment of the per-request ones — and a point whose interval straddles
// a limit is repeated (its requests pooled) before it is decided on the estimate and marked
// unsettled. A budget bounds the whole search.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "load/bench_session.h"

namespace servescope {

struct LoadSearchOptions {
  bool by_rate = false;          // else closed-loop concurrency
  double start = 1;              // the first load tried
  double max_load = 100000;      // never beyond
  double precision = 0.10;       // rate: stop when (fail − pass) / pass is below this
  double budget_s = 600;         // the whole search
  int max_repeats = 3;           // runs of one load before an unsettled verdict is taken as is
  double min_attainment = 0.99;  // share of requests that must meet the per-request objectives
};

/// One objective's verdict on a load, with its interval.
struct ObjectiveVerdict {
  std::string objective;                   // "ttft_p99:500ms", "attainment of ttft:500ms ≥ 99%"
  double estimate = 0, low = 0, high = 0;  // ms, or a share for attainment
  double limit = 0;
  bool met = false;
  bool settled = false;
};

struct SearchedLoad {
  double load = 0;
  int runs = 0;
  std::uint64_t requests = 0;  // pooled over the runs
  bool meets = false;
  bool settled = false;
  std::vector<ObjectiveVerdict> verdicts;
  BenchPoint last;  // the last run's point (its server view and rates)
};

struct LoadSearchResult {
  std::vector<SearchedLoad> loads;   // in the order measured
  std::optional<double> found;       // the highest load that met every objective
  std::optional<double> first_miss;  // the lowest load above it that did not
  std::string binding;               // which limit binds at first_miss
  bool budget_exhausted = false;
  double elapsed_s = 0;
};

/// Judges pooled request rows against the objectives (exposed for tests).
std::vector<ObjectiveVerdict> judge_objectives(const std::vector<BenchRequestRow>& rows,
                                               const std::vector<SloThreshold>& slo,
                                               double min_attainment);

/// Runs the search with `base` (url, API, dataset, SLOs; its points are replaced) and `point`
/// as the template of every load's point.
Result<LoadSearchResult> find_max_load(
    const BenchOptions& base, const PointPlan& point, const LoadSearchOptions& options,
    const std::function<void(const std::string&)>& progress = {});

std::string render_search_text(const LoadSearchResult& r, const LoadSearchOptions& o);
nlohmann::json search_json(const LoadSearchResult& r, const LoadSearchOptions& o);

}  // namespace servescope
