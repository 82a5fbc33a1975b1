// The body of each kind's HTML report (report/html_report.cc draws the page around them).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/html_parts.h"

namespace servescope {

/// Line charts on the page: each is drawn as SVG now and handed to uPlot by index.
class ChartList {
 public:
  /// The chart's <figure>: its SVG and legend, data-chart pointing at its spec.
  std::string add(const LineChart& chart);
  const nlohmann::json& specs() const { return specs_; }

 private:
  nlohmann::json specs_ = nlohmann::json::array();
};

/// <table> with a header row and the given (already escaped) cells.
std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::string>& row_classes = {});

std::string html_plan_body(const nlohmann::json& plan);
std::string html_check_body(const nlohmann::json& check);
std::string html_diff_body(const nlohmann::json& diff);
std::string html_bench_body(const nlohmann::json& bench, ChartList& charts);
std::string html_bisect_body(const nlohmann::json& bisect);
std::string html_explain_body(const nlohmann::json& explain);
std::string html_why_body(const nlohmann::json& why);
std::string html_logs_body(const nlohmann::json& logs, ChartList& charts);
std::string html_fit_body(const nlohmann::json& fit, ChartList& charts);
std::string html_compare_body(const nlohmann::json& compare);

/// The title line of each kind: "plan · vllm 0.33.0".
std::string report_title(const nlohmann::json& doc, ReportKind kind);

}  // namespace servescope
