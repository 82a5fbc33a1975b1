#include "report/compare_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/json_read.h"
#include "report/html_sections.h"

namespace servescope {
namespace {

using nlohmann::json;

std::string percent(double x) {
  const double p = std::round(x * 1000) / 10;
  return fmt::format("{:.1f}%", p == 0 ? 0.0 : p);  // no "-0.0%"
}

bool has_interval(const json& d) {
  return d.contains("ci_low") && d["ci_low"].is_number() && d.contains("ci_high") &&
         d["ci_high"].is_number();
}

std::string interval_text(const json& d) {
  return has_interval(d) ? percent(json_num(d, "ci_low")) + " to " + percent(json_num(d, "ci_high"))
                         : "–";
}

// "a real difference (worse)" from "TTFT p50 is 7.1% higher in B (…): a real difference (worse)".
std::string verdict_words(const json& d) {
  const std::string s = json_str(d, "verdict");
  const auto at = s.rfind(": ");
  return at == std::string::npos ? s : s.substr(at + 2);
}

bool worse(const json& d) {
  const double change = json_num(d, "change");
  return json_bool(d, "real_difference", false) &&
         (json_bool(d, "lower_is_better", true) ? change > 0 : change < 0);
}

// The change and its interval on an axis through zero: is zero inside the interval?
std::string change_svg(const json& d) {
  const double change = json_num(d, "change");
  const bool iv = has_interval(d);
  const double low = iv ? json_num(d, "ci_low") : change,
               high = iv ? json_num(d, "ci_high") : change;
  double lo = std::min({low, change, 0.0}), hi = std::max({high, change, 0.0});
  const double span = std::max(hi - lo, 0.02);
  lo -= span * 0.05;
  hi += span * 0.05;
  constexpr double w = 180;
  auto px = [&](double v) { return 4 + (v - lo) / (hi - lo) * (w - 8); };
  std::string svg = fmt::format(
      "<svg class=\"interval\" viewBox=\"0 0 {0} 18\" width=\"{0}\" height=\"18\" role=\"img\" "
      "aria-label=\"the change from A to B with its 95% interval; the line is no change\">"
      "<line class=\"axis\" x1=\"4\" y1=\"9\" x2=\"{1:.1f}\" y2=\"9\" />",
      w, w - 4);
  if (iv)
    svg += fmt::format("<rect class=\"iv\" x=\"{:.1f}\" y=\"4\" width=\"{:.1f}\" height=\"10\" />",
                       px(low), std::max(2.0, px(high) - px(low)));
  svg += fmt::format(
      "<line class=\"pred\" x1=\"{0:.1f}\" y1=\"1\" x2=\"{0:.1f}\" y2=\"17\" />"
      "<circle class=\"logged {1}\" cx=\"{2:.1f}\" cy=\"9\" r=\"4\" /></svg>",
      px(0), worse(d) ? "miss" : "ok", px(change));
  return svg;
}

}  // namespace

std::string compare_markdown(const json& doc) {
  const json& names = json_obj(doc, "compare");
  std::string out = fmt::format("# servescope bench --compare\n\n- A: `{}`\n- B: `{}`\n\n",
                                json_str(names, "a"), json_str(names, "b"));
  out += "| point | metric | A | B | change | 95% CI | verdict |\n|---|---|---|---|---|---|---|\n";
  for (const json& d : json_arr(doc, "differences")) {
    out += fmt::format("| {} | {} | {:.2f} | {:.2f} | {} | {} | {} |\n", json_str(d, "point"),
                       json_str(d, "metric"), json_num(d, "a"), json_num(d, "b"),
                       percent(json_num(d, "change")), interval_text(d), verdict_words(d));
  }
  for (const json& n : json_arr(doc, "notes"))
    out += "\n> " + (n.is_string() ? n.get<std::string>() : n.dump()) + "\n";
  return out;
}

std::string html_compare_body(const json& doc) {
  const json& names = json_obj(doc, "compare");
  const json& rows = json_arr(doc, "differences");
  int real = 0, worse_n = 0;
  for (const json& d : rows) {
    real += json_bool(d, "real_difference", false) ? 1 : 0;
    worse_n += worse(d) ? 1 : 0;
  }
  std::string out = "<dl class=\"meta\">\n";
  out += "<dt>A</dt><dd><code>" + html_escape(json_str(names, "a")) + "</code></dd>\n";
  out += "<dt>B</dt><dd><code>" + html_escape(json_str(names, "b")) + "</code></dd>\n";
  out += fmt::format(
      "<dt>intervals</dt><dd>95%, percentile bootstrap ({} resamples) over each run's requests "
      "for latency, over each run's repeats for throughput; a difference counts from {}</dd>\n",
      static_cast<long long>(json_num(doc, "resamples")), percent(json_num(doc, "min_effect")));
  out += "</dl>\n";
  out += fmt::format("<p>{} of {} figures differ beyond noise: {} better in B, {} worse.</p>\n",
                     real, rows.size(), real - worse_n, worse_n);
  std::string point;
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> classes;
  auto flush = [&] {
    if (table.empty())
      return;
    out += "<h2>" + html_escape(point) + "</h2>\n";
    out += html_table({"metric", "A", "B", "change", "95% CI", "against no change", "verdict"},
                      table, classes);
    table.clear();
    classes.clear();
  };
  for (const json& d : rows) {
    if (json_str(d, "point") != point) {
      flush();
      point = json_str(d, "point");
    }
    table.push_back({html_escape(json_str(d, "metric")), number_text(json_num(d, "a"), 2),
                     number_text(json_num(d, "b"), 2), percent(json_num(d, "change")),
                     interval_text(d), change_svg(d), html_escape(verdict_words(d))});
    classes.push_back(worse(d) ? "miss" : "");
  }
  flush();
  for (const json& n : json_arr(doc, "notes"))
    out += "<p class=\"note\">" + html_escape(n.is_string() ? n.get<std::string>() : n.dump()) +
           "</p>\n";
  return out;
}

}  // namespace servescope
