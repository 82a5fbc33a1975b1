#include "report/report_document.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/text.h"

namespace servescope {

Result<ReportKind> detect_report_kind(const nlohmann::json& doc) {
  if (!doc.is_object())
    return fail("the document is not a JSON object: give the output of a --json command");
  auto has = [&](const char* key) { return doc.contains(key); };
  if (has("experiments") && has("culprits"))
    return ReportKind::kBisect;
  if (has("compare") && has("differences"))
    return ReportKind::kCompare;
  if (has("points") && doc["points"].is_array())
    return ReportKind::kBench;
  if (has("comparisons"))
    return ReportKind::kCheck;
  if (has("changes") && has("a") && has("b"))
    return ReportKind::kDiff;
  if (has("outputs") && has("memory"))
    return ReportKind::kPlan;
  if (has("hypotheses") && has("experiments") && has("observed"))
    return ReportKind::kWhy;
  if (has("configurations") && has("target") && has("hardware_points"))
    return ReportKind::kFit;
  if (has("timelines") && has("summary") && doc["format"].is_string() &&
      doc["format"].get<std::string>().rfind("servescope.logs/", 0) == 0)
    return ReportKind::kLogs;
  // explain: every member is an output's list of derivation nodes.
  bool trees = !doc.empty();
  for (const auto& [k, v] : doc.items()) {
    trees = trees && v.is_array() && !v.empty() && v[0].is_object() && v[0].contains("id") &&
            v[0].contains("inputs") && v[0].contains("rule");
  }
  if (trees)
    return ReportKind::kExplain;
  return fail(
      "not a servescope result: expected plan (outputs, memory), check (comparisons), diff "
      "(changes, a, b), bench (points), bisect (experiments, culprits), why (hypotheses, "
      "experiments, observed), fit (configurations, target, hardware_points), logs (format "
      "servescope.logs/…, summary, timelines) fields, or "
      "explain's {OUTPUT: [nodes with id, inputs, rule]}, or bench --compare (compare, "
      "differences)");
}

nlohmann::json explain_nodes(const nlohmann::json& doc) {
  nlohmann::json nodes = nlohmann::json::array();
  std::set<std::string> seen;
  if (!doc.is_object())
    return nodes;
  for (const auto& [k, tree] : doc.items()) {
    if (!tree.is_array())
      continue;
    for (const auto& n : tree) {
      if (n.is_object() && seen.insert(n.value("id", std::string())).second)
        nodes.push_back(n);
    }
  }
  return nodes;
}

std::string_view report_kind_name(ReportKind kind) {
  switch (kind) {
    case ReportKind::kPlan:
      return "plan";
    case ReportKind::kCheck:
      return "check";
    case ReportKind::kDiff:
      return "diff";
    case ReportKind::kBench:
      return "bench";
    case ReportKind::kBisect:
      return "bisect";
    case ReportKind::kExplain:
      return "explain";
    case ReportKind::kWhy:
      return "why";
    case ReportKind::kLogs:
      return "logs";
    case ReportKind::kFit:
      return "fit";
    case ReportKind::kCompare:
      return "compare";
  }
  return "?";
}

std::string number_text(double v, int digits) {
  if (!std::isfinite(v))
    return std::isnan(v) ? "NaN" : (v > 0 ? "∞" : "−∞");
  std::string text = fmt::format("{:.{}f}", std::fabs(v), digits);
  const std::size_t dot = text.find('.');
  const std::string whole = text.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : text.substr(dot);
  auto grouped = parse_int(whole);
  std::string out = grouped ? with_thousands(*grouped) : whole;
  return (v < 0 && text.find_first_not_of("0.") != std::string::npos ? "-" : "") + out + frac;
}

double json_number(const nlohmann::json& v, double fallback) {
  return v.is_number() ? v.get<double>() : fallback;
}

std::string str(const nlohmann::json& doc, const char* key) {
  return doc.is_object() && doc.contains(key) && doc[key].is_string() ? doc[key].get<std::string>()
                                                                      : "";
}

std::string joined(const nlohmann::json& list, const char* sep) {
  std::string out;
  if (!list.is_array())
    return out;
  for (const nlohmann::json& v : list)
    out += (out.empty() ? "" : sep) + json_text(v);
  return out;
}

double stat(const nlohmann::json& point, const char* metric, const char* key) {
  if (!point.contains(metric) || !point[metric].is_object())
    return std::numeric_limits<double>::quiet_NaN();
  return json_number(point[metric].value(key, nlohmann::json()),
                     std::numeric_limits<double>::quiet_NaN());
}

std::string cell(double v, int digits) {
  return std::isfinite(v) ? number_text(v, digits) : "—";
}

std::string json_text(const nlohmann::json& v) {
  if (v.is_null())
    return "—";
  if (v.is_boolean())
    return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer())
    return with_thousands(v.get<long long>());
  if (v.is_number()) {
    const double d = v.get<double>();
    const double mag = std::fabs(d);
    // Four significant decimals for fractions, two for the rest: 0.7851, 54.18, 1,176.33.
    std::string text = number_text(d, mag != 0 && mag < 1 ? 4 : 2);
    if (text.find('.') != std::string::npos) {
      while (text.back() == '0')
        text.pop_back();
      if (text.back() == '.')
        text.pop_back();
    }
    return text;
  }
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_array()) {
    std::vector<std::string> items;
    for (const auto& e : v)
      items.push_back(json_text(e));
    if (items.size() > 8) {
      return fmt::format("[{}, {}, {}, …, {}] ({} values)", items[0], items[1], items[2],
                         items.back(), items.size());
    }
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
      out += (i ? ", " : "") + items[i];
    return out + "]";
  }
  return v.dump();
}

MemoryBreakdown memory_breakdown(const nlohmann::json& memory) {
  MemoryBreakdown out;
  if (!memory.is_array())
    return out;
  for (const auto& r : memory) {
    out.rows.push_back({r.value("item", std::string()),
                        json_number(r.value("gib", nlohmann::json())),
                        r.value("source", std::string())});
  }
  const std::size_t n = out.rows.size();
  double largest = 0;
  for (const MemoryPart& p : out.rows)
    largest = std::max(largest, p.gib);
  const double tolerance = std::max(0.005, largest * 1e-6);
  // A row is a total when the rows right after it add up to it (the smallest such run).
  std::vector<std::size_t> run_end(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (std::size_t j = i + 1; j < n; ++j) {
      sum += out.rows[j].gib;
      if (j > i + 1 && std::fabs(sum - out.rows[i].gib) <= tolerance) {
        out.rows[i].total = true;
        run_end[i] = j;
        break;
      }
      if (sum > out.rows[i].gib + tolerance)
        break;
    }
  }
  // A run's rows that are themselves totals cover theirs: skip them when summing the parts.
  bool any_total = false;
  for (std::size_t i = 0; i < n; ++i)
    any_total = any_total || out.rows[i].total;
  std::vector<bool> stacked(n, !any_total);
  for (std::size_t i = 0; i < n; ++i) {
    if (!out.rows[i].total)
      continue;
    for (std::size_t j = i + 1; j <= run_end[i]; ++j) {
      if (!out.rows[j].total) {
        stacked[j] = true;
        out.rows[j].total_of = out.rows[i].item;  // later (inner) totals overwrite
      }
    }
  }
  // Without totals, the largest row that holds all the others is the extent, not a part.
  std::size_t extent_row = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (out.rows[i].gib == largest && !out.rows[i].total)
      extent_row = i;
  }
  if (extent_row < n) {
    double others = 0;
    for (std::size_t i = 0; i < n; ++i)
      others += i != extent_row && stacked[i] ? out.rows[i].gib : 0;
    if (others <= largest + tolerance) {
      stacked[extent_row] = false;
      out.extent_item = out.rows[extent_row].item;
    }
  }
  double offset = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (stacked[i]) {
      out.rows[i].offset = offset;
      offset += out.rows[i].gib;
    }
  }
  out.stacked = offset;
  // A total starts where its first stacked part does.
  for (std::size_t i = 0; i < n; ++i) {
    if (!out.rows[i].total)
      continue;
    for (std::size_t j = i + 1; j <= run_end[i]; ++j) {
      if (stacked[j]) {
        out.rows[i].offset = out.rows[j].offset;
        break;
      }
    }
  }
  out.extent = out.extent_item.empty() ? out.stacked : std::max(largest, out.stacked);
  return out;
}

std::string deciding_line(const nlohmann::json& experiment) {
  const auto& evidence = experiment.value("evidence", nlohmann::json::array());
  if (evidence.is_array() && !evidence.empty()) {
    const auto& e = evidence.front();
    return fmt::format("{}:{}: {}", e.value("file", std::string()),
                       json_text(e.value("line", nlohmann::json())),
                       e.value("text", std::string()));
  }
  return experiment.value("failure", std::string());
}

bool is_culprit_experiment(const nlohmann::json& report, const nlohmann::json& experiment) {
  const auto flags = experiment.value("flags", nlohmann::json::array());
  for (const auto& set : report.value("culprits", nlohmann::json::array())) {
    if (set.is_array() && !set.empty() && flags.is_array()) {
      std::vector<std::string> a = set.get<std::vector<std::string>>();
      std::vector<std::string> b = flags.get<std::vector<std::string>>();
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (a == b)
        return true;
    }
  }
  return false;
}

BenchAxis bench_axis(const nlohmann::json& bench) {
  BenchAxis axis{"concurrency", {}};
  bool rate = false;
  for (const auto& p : bench.value("points", nlohmann::json::array()))
    rate = rate || p.value("rate", nlohmann::json()).is_number();
  if (rate)
    axis.name = "rate (req/s)";
  for (const auto& p : bench.value("points", nlohmann::json::array()))
    axis.x.push_back(json_number(p.value(rate ? "rate" : "concurrency", nlohmann::json())));
  return axis;
}

}  // namespace servescope
