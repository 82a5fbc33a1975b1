// `fit --html/--markdown`: the configurations that meet the target as a table with their launch
// commands, the closest misses, and a chart of the requests each holds at the target's length
// against its cost, the Pareto front (the most requests for the money so far) marked.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/json_read.h"
#include "report/fit_report.h"
#include "report/html_sections.h"
#include "report/report_document.h"

namespace servescope {
namespace {

using nlohmann::json;

std::string text(const json& j, const char* key) {
  return json_str(j, key);
}

std::string hardware(const json& c) {
  std::string out = fmt::format("{:g}× {}", json_num(c, "gpus"), text(c, "gpu"));
  if (json_num(c, "data_parallel", 1) > 1)
    out += fmt::format(" as {:g} replicas", json_num(c, "data_parallel", 1));
  if (json_num(c, "nodes", 1) > 1)
    out += fmt::format(" ({:g} nodes)", json_num(c, "nodes", 1));
  return out + fmt::format(", TP {:g} · PP {:g}", json_num(c, "tensor_parallel", 1),
                           json_num(c, "pipeline_parallel", 1));
}

std::string changes(const json& c) {
  std::string out;
  for (const json& ch : json_arr(c, "changes"))
    out += (out.empty() ? "" : ", ") + (ch.is_string() ? ch.get<std::string>() : ch.dump());
  return out.empty() ? "(as typed)" : out;
}

std::string margin(const json& c) {
  return c.is_object() && c.contains("margin") && c["margin"].is_number()
             ? fmt::format("{:+.1f}%", c["margin"].get<double>() * 100)
             : "";
}

double kv_tokens(const json& c) {
  return json_num(c, "kv_tokens", NAN);
}

}  // namespace

std::string fit_markdown(const json& doc) {
  std::string out = fmt::format("# servescope fit · {} {} · {}\n\n", text(doc, "engine"),
                                text(doc, "version"), text(doc, "model"));
  out += fmt::format("- target: `{}`\n- searched: {} hardware points, {} plans\n\n",
                     json_obj(doc, "target").dump(), json_num(doc, "hardware_points"),
                     json_num(doc, "plans"));
  const json& rows = json_arr(doc, "configurations");
  if (rows.empty())
    out += "**No configuration in the space meets the target.**\n\n";
  else
    out +=
        "| # | hardware | KV tokens | requests at the length | margin | binds | changes |\n"
        "|---|---|---|---|---|---|---|\n";
  int rank = 0;
  for (const json& c : rows) {
    out += fmt::format("| {} | {} | {}{} | {} | {} | {} | {} |\n", ++rank, hardware(c),
                       json_bool(c, "estimated", false) ? "~" : "", number_text(kv_tokens(c), 0),
                       number_text(json_num(c, "requests_at_context"), 2), margin(c),
                       text(c, "binding"), changes(c));
  }
  rank = 0;
  for (const json& c : rows)
    out += fmt::format("\n{}. `{}`\n", ++rank, text(c, "command"));
  const json& closest = json_arr(doc, "closest");
  if (!closest.empty()) {
    out += "\n## Short of the target\n\n";
    for (const json& c : closest)
      out += fmt::format("- {}: {}\n", hardware(c), text(c, "why_not"));
  }
  return out;
}

std::string html_fit_body(const json& doc, ChartList& charts) {
  std::string out =
      meta({{"engine", html_escape(text(doc, "engine") + " " + text(doc, "version"))},
            {"model", html_escape(text(doc, "model"))},
            {"target", "<code>" + html_escape(json_obj(doc, "target").dump()) + "</code>"},
            {"searched", fmt::format("{:g} hardware points, {:g} plans",
                                     json_num(doc, "hardware_points"), json_num(doc, "plans"))}});
  const json& rows = json_arr(doc, "configurations");
  // Cost against the requests held at the target's length: every configuration that meets it,
  // and the Pareto front — the most requests at each cost or below.
  std::map<double, double> best_at_cost;
  for (const json& c : rows) {
    const double cost = json_num(c, "cost"), held = json_num(c, "requests_at_context");
    best_at_cost[cost] = std::max(best_at_cost[cost], held);
  }
  if (best_at_cost.size() >= 2) {
    LineChart chart;
    chart.title = "Requests held at the target's length against cost";
    chart.x_label = text(doc, "cost_unit");
    chart.y_label = "requests held";
    ChartSeries best{"best configuration at this cost", {}, false};
    ChartSeries front{"Pareto front (most requests for the cost or less)", {}, true};
    double running = 0;
    for (const auto& [cost, held] : best_at_cost) {
      chart.x.push_back(cost);
      best.values.push_back(held);
      running = std::max(running, held);
      front.values.push_back(running);
    }
    chart.series = {best, front};
    out += charts.add(chart);
  }
  std::vector<std::vector<std::string>> cells;
  int rank = 0;
  for (const json& c : rows) {
    cells.push_back({std::to_string(++rank), html_escape(hardware(c)),
                     (json_bool(c, "estimated", false) ? "~" : "") + number_text(kv_tokens(c), 0),
                     number_text(json_num(c, "requests_at_context"), 2), html_escape(margin(c)),
                     html_escape(text(c, "binding")), html_escape(changes(c)),
                     "<code>" + html_escape(text(c, "command")) + "</code>"});
  }
  out += "<h2 id=\"configurations\">Configurations that meet the target</h2>\n";
  out += rows.empty() ? "<p><strong>No configuration in the space meets the target.</strong></p>\n"
                      : html_table({"#", "hardware", "KV tokens", "requests at the length",
                                    "margin", "binds", "changes", "launch command"},
                                   cells);
  const json& closest = json_arr(doc, "closest");
  if (!closest.empty()) {
    out += "<h2>Short of the target</h2>\n<ul>\n";
    for (const json& c : closest)
      out += "<li>" + html_escape(hardware(c) + ": " + text(c, "why_not")) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

}  // namespace servescope
