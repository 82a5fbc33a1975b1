// The bisect report: the culprit sets and the evidence for each (the experiment that applies
// exactly that set, its metric and the log lines that show it), launches used against the
// one-at-a-time count, wall time, and the model's prediction next to every observation with
// each disagreement flagged as a model gap. Three renderings: a short text for the terminal,
// DIR/report.json (stable field names, "version": 1) and DIR/report.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "lab/bisector.h"

namespace servescope {

/// What the run was asked, as typed.
struct BisectRequest {
  std::string launch;
  std::string good;
  std::string bad;
  std::string metric;  // as requested (the result's metric may be startup instead)
  std::string strategy;
  int repeat = 1;
  double tolerance = 0;
  int parallel = 1;
  std::string out_dir;
};

nlohmann::json bisect_report_json(const BisectRequest& request, const BisectResult& result);
std::string bisect_report_markdown(const BisectRequest& request, const BisectResult& result);
std::string bisect_report_text(const BisectRequest& request, const BisectResult& result);

/// One progress line for a finished (or reused) experiment.
std::string experiment_progress_line(const ExperimentView& view, const MetricSpec& metric);

}  // namespace servescope

namespace servescope {

/// Writes DIR/report.json and DIR/report.md.
Status write_bisect_reports(const BisectRequest& request, const BisectResult& result);

}  // namespace servescope
