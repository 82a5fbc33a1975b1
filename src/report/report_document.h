// The documents `servescope report` renders: any `--json` output of plan, check, diff, bench,
// bisect (bisect's DIR/report.json), explain, why, logs or bench --compare. The renderers read only
// that JSON, so a result can be rendered later or elsewhere; the kind is told from the document's
// own fields.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

enum class ReportKind {
  kPlan,
  kCheck,
  kDiff,
  kBench,
  kBisect,
  kExplain,
  kWhy,
  kLogs,
  kFit,
  kCompare
};

/// The kind of a `--json` document, from the fields only that kind has; an error names the
/// fields looked for.
Result<ReportKind> detect_report_kind(const nlohmann::json& doc);
std::string_view report_kind_name(ReportKind kind);

/// explain --json: {OUTPUT: [node, ...], ...}, every node {"id", "inputs", "rule", "source",
/// "value", ...}. The nodes of all the trees, each once, in the document's order.
nlohmann::json explain_nodes(const nlohmann::json& doc);

/// A JSON value as a person reads it: 2036790 -> "2,036,790", 0.78512345 -> "0.7851",
/// true -> "yes", null -> "—", long lists shortened ("[1, 2, 4, …, 512] (51 values)").
std::string json_text(const nlohmann::json& v);
/// A number with `digits` decimals and thousands separators: 7508.45 -> "7,508.5" (digits 1).
std::string number_text(double v, int digits);
/// The number in `v`, or `fallback` when it is not a number.
double json_number(const nlohmann::json& v, double fallback = 0.0);
/// The string at `doc[key]`, or "" when `doc` is no object or the value no string.
std::string str(const nlohmann::json& doc, const char* key);
/// The items of a JSON list as people read them (json_text), joined by `sep`; "" for no list.
std::string joined(const nlohmann::json& list, const char* sep);
/// A bench point's statistic `point[metric][key]` ("ttft_ms", "p99"), NaN when absent.
double stat(const nlohmann::json& point, const char* metric, const char* key);
/// number_text for a table cell: "—" for NaN or infinity.
std::string cell(double v, int digits);

/// One row of a plan's "memory" list, placed in the stacked bar: the rows that are the sum of
/// the rows after them are totals (a bracket over their parts); the others are stacked.
struct MemoryPart {
  std::string item;
  double gib = 0;
  std::string source;
  double offset = 0;  // GiB from the bar's start (parts and totals alike)
  bool total = false;
  std::string total_of;  // for a part: the innermost total it belongs to
};
struct MemoryBreakdown {
  std::vector<MemoryPart> rows;  // every row, in the document's order
  double extent = 0;             // the bar's full width in GiB: the largest row or the parts' sum
  std::string extent_item;       // the row that is the extent ("" when it is the parts' sum)
  double stacked = 0;            // the parts' sum
};
MemoryBreakdown memory_breakdown(const nlohmann::json& memory);

/// One bisect experiment's deciding log line: the first evidence line, else its failure text.
std::string deciding_line(const nlohmann::json& experiment);
/// True when the experiment's flags are exactly one of the culprit sets.
bool is_culprit_experiment(const nlohmann::json& report, const nlohmann::json& experiment);

/// The x axis of a bench sweep: "concurrency" or "rate" (requests/s), and each point's value.
struct BenchAxis {
  std::string name;  // "concurrency" or "rate (req/s)"
  std::vector<double> x;
};
BenchAxis bench_axis(const nlohmann::json& bench);

}  // namespace servescope
