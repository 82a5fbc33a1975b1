#include "report/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/json_read.h"
#include "report/compare_report.h"
#include "report/fit_report.h"

namespace servescope {
namespace {

using nlohmann::json;

/// A table cell: no newline, pipes escaped.
std::string md(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string code(const std::string& text) {
  if (text.empty())
    return "";
  return text.find('`') == std::string::npos ? "`" + md(text) + "`" : "`` " + md(text) + " ``";
}

std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = "|";
  std::string rule = "|";
  for (const std::string& h : header) {
    out += " " + md(h) + " |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (const auto& row : rows) {
    out += "|";
    for (const std::string& c : row)
      out += " " + c + " |";
    out += "\n";
  }
  return out + "\n";
}

std::string engine_line(const json& engine) {
  return engine.is_object() ? str(engine, "name") + " " + str(engine, "version") : "";
}

/// A Mermaid label: quotes and brackets would end it.
std::string mermaid(std::string text) {
  for (char& c : text) {
    if (c == '"' || c == '[' || c == ']' || c == '{' || c == '}' || c == '|' || c == '<' ||
        c == '>' || c == ':' || c == ';' || c == '#')
      c = '\'';
  }
  return text;
}

class DerivationList {
 public:
  explicit DerivationList(const json& nodes) {
    for (const json& n : nodes)
      by_id_[str(n, "id")] = &n;
  }
  void render(const std::string& id, int depth, std::string& out) {
    const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
    auto it = by_id_.find(id);
    if (it == by_id_.end()) {
      out += indent + "- " + code(id) + " (not in the document)\n";
      return;
    }
    const json& n = *it->second;
    std::string line = indent + "- " + code(id) + " = **" +
                       md(json_text(n.value("value", json()))) + "**" +
                       (str(n, "unit").empty() ? "" : " " + md(str(n, "unit")));
    if (!str(n, "rule").empty())
      line += " · rule " + md(str(n, "rule"));
    if (!str(n, "origin").empty())
      line += " · " + md(str(n, "origin"));
    if (!str(n, "source").empty())
      line += " · " + code(str(n, "source"));
    if (seen_.count(id) != 0) {
      out += line + " (derived above)\n";
      return;
    }
    seen_.insert(id);
    if (!str(n, "why").empty())
      line += " — " + md(str(n, "why"));
    out += line + "\n";
    for (const json& in : n.value("inputs", json::array()))
      render(in.get<std::string>(), depth + 1, out);
  }

 private:
  std::map<std::string, const json*> by_id_;
  std::set<std::string> seen_;
};

std::string findings_md(const json& findings) {
  if (!findings.is_array() || findings.empty())
    return "No findings.\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const json& f : findings) {
    rows.push_back({md(str(f, "severity")), code(str(f, "code")),
                    md(joined(f.value("flags", json::array()), " ")), md(str(f, "message")),
                    md(str(f, "rule")), code(str(f, "source"))});
  }
  return table({"severity", "code", "flags", "message", "rule", "source"}, rows);
}

std::string plan_md(const json& plan) {
  const json engine = plan.value("engine", json::object());
  const json outputs = plan.value("outputs", json::object());
  std::string out = "# servescope plan · " + engine_line(engine) + "\n\n";
  out += "- engine: " + engine_line(engine) + " (rules " + str(engine, "rules_date") + ")\n";
  if (!str(plan, "command").empty())
    out += "- command: " + code(str(plan, "command")) + "\n";
  out += plan.value("starts", true)
             ? "- startup: starts\n"
             : "- startup: **does not start**: " + str(plan, "startup_error") + "\n";
  out += "\n## Memory budget per GPU\n\n";
  const MemoryBreakdown memory = memory_breakdown(plan.value("memory", json::array()));
  std::vector<std::vector<std::string>> rows;
  for (const MemoryPart& p : memory.rows) {
    rows.push_back({md(p.item), number_text(p.gib, 3), md(p.source),
                    p.total                        ? "total"
                    : p.item == memory.extent_item ? "whole bar"
                    : p.total_of.empty()           ? "part"
                                                   : "part of " + md(p.total_of),
                    p.total || memory.extent <= 0 || p.item == memory.extent_item
                        ? ""
                        : number_text(p.gib / memory.extent * 100, 1) + "%"});
  }
  out += table({"item", "GiB", "source", "role", "share of the bar"}, rows);
  out += "## Outputs\n\n";
  rows.clear();
  for (const auto& [k, v] : outputs.items())
    rows.push_back({code(k), md(json_text(v))});
  out += table({"output", "value"}, rows);
  const json resolved = plan.value("resolved", json::array());
  if (resolved.is_array() && !resolved.empty()) {
    out += "## Resolved settings\n\n";
    rows.clear();
    for (const json& r : resolved) {
      rows.push_back({code(str(r, "name")), md(json_text(r.value("typed", json()))),
                      md(json_text(r.value("resolved", json()))), md(str(r, "why"))});
    }
    out += table({"setting", "typed", "resolved", "why"}, rows);
  }
  out += "## Findings\n\n" + findings_md(plan.value("findings", json::array()));
  const json estimated = plan.value("estimated", json::array());
  if (estimated.is_array() && !estimated.empty())
    out += "Estimated, not measured: " + joined(estimated, ", ") + ".\n\n";
  out += "## Derivation\n\n";
  const json nodes = plan.contains("derivation") ? plan["derivation"].value("nodes", json::array())
                                                 : json::array();
  DerivationList list(nodes);  // keeps pointers into nodes
  for (const auto& [k, v] : outputs.items())
    list.render(k, 0, out);
  return out + "\n";
}

std::string check_md(const json& check) {
  const json scenario = check.value("scenario", json::object());
  std::string out = "# servescope check · " + engine_line(check.value("engine", json())) + "\n\n";
  out += "- log: " + code(str(check, "file")) + "\n";
  out += "- command: " + code(str(scenario, "command")) + "\n";
  out += "- GPU: " + str(scenario, "gpu") + " · model: " + code(str(scenario, "model")) + "\n";
  out +=
      fmt::format("- **{} matched, {} mismatched**, {} not checked\n\n", check.value("matched", 0),
                  check.value("mismatched", 0), check.value("not_checked", 0));
  out += "## Predicted vs logged\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const json& c : check.value("comparisons", json::array())) {
    const json low = c.value("predicted_low", json()), high = c.value("predicted_high", json());
    rows.push_back(
        {code(str(c, "field")), md(json_text(c.value("predicted", json()))),
         low.is_number() && high.is_number() ? json_text(low) + " … " + json_text(high) : "—",
         md(json_text(c.value("logged", json()))),
         !c.value("checked", true) ? "not checked"
         : c.value("match", false) ? "✓"
                                   : "✗ **differs**",
         c.value("log_line", json()).is_number()
             ? code(str(check, "file") + ":" + json_text(c["log_line"]))
             : "—",
         md(str(c, "note"))});
  }
  out += table({"field", "predicted", "interval", "logged", "match", "log line", "note"}, rows);
  for (const char* key : {"consistency", "notes"}) {
    const json list = check.value(key, json::array());
    if (!list.is_array() || list.empty())
      continue;
    out += std::string("## ") + (key[0] == 'c' ? "Consistency" : "Notes") + "\n\n";
    for (const json& n : list)
      out += "- " + (n.is_string() ? n.get<std::string>() : n.dump()) + "\n";
    out += "\n";
  }
  return out;
}

std::string diff_md(const json& diff) {
  std::string out = "# servescope diff · " + engine_line(diff.value("engine", json())) + "\n\n";
  out += "- changed inputs: " + md(joined(diff.value("inputs", json::array()), ", ")) + "\n";
  out += "- evaluations: " + json_text(diff.value("evaluations", json())) + "\n\n";
  const json changes = diff.value("changes", json::array());
  out += fmt::format("## {} moved output{}\n\n", changes.size(), changes.size() == 1 ? "" : "s");
  std::vector<std::vector<std::string>> rows;
  for (const json& c : changes) {
    std::string causes;
    std::string paths;
    for (const json& a : c.value("attribution", json::array())) {
      causes += (causes.empty() ? "" : "; or ") + joined(a.value("inputs", json::array()), ", ") +
                (str(a, "kind") == "interaction" ? " (together)" : "");
      paths += (paths.empty() ? "" : "; ") + joined(a.value("path", json::array()), " → ");
    }
    rows.push_back({code(str(c, "output")), md(json_text(c.value("a", json()))),
                    md(json_text(c.value("b", json()))),
                    causes.empty() ? "no subset reproduces it alone" : md(causes), md(paths)});
  }
  out += table({"output", "A", "B", "because", "rule path"}, rows);
  // The waterfalls: each change's step, given the ones before it (those that move nothing left
  // out).
  for (const json& c : changes) {
    std::vector<std::vector<std::string>> steps;
    json before = c.value("a", json());
    for (const json& w : c.value("waterfall", json::array())) {
      const json v = w.value("value", json());
      if (v == before)
        continue;
      std::string delta;
      if (v.is_number() && before.is_number()) {
        const double d = v.get<double>() - before.get<double>();
        delta = (d >= 0 ? "+" : "−") + json_text(json(std::fabs(d)));
      }
      steps.push_back({md(str(w, "input")), md(json_text(v)), delta});
      before = v;
    }
    if (steps.size() > 1) {
      out += "Waterfall of " + code(str(c, "output")) +
             " (A = " + md(json_text(c.value("a", json()))) + "):\n\n";
      out += table({"then", "value", "step"}, steps);
    }
  }
  if (!changes.empty()) {
    out += "```mermaid\nflowchart LR\n";
    int i = 0;
    for (const json& c : changes) {
      std::string cause;
      for (const json& a : c.value("attribution", json::array()))
        cause += (cause.empty() ? "" : " or ") + joined(a.value("inputs", json::array()), ", ");
      out += fmt::format("  a{0}[\"{1}: {2}\"] -->|\"{3}\"| b{0}[\"{4}\"]\n", i,
                         mermaid(str(c, "output")), mermaid(json_text(c.value("a", json()))),
                         mermaid(cause.empty() ? "unexplained" : cause),
                         mermaid(json_text(c.value("b", json()))));
      ++i;
    }
    out += "```\n\n";
  }
  const json cleared = diff.value("cleared", json::array());
  if (cleared.is_array() && !cleared.empty()) {
    out += "## Changes that move nothing\n\n";
    for (const json& c : cleared)
      out += "- " + code(str(c, "input")) + ": " + str(c, "reason") + "\n";
    out += "\n";
  }
  return out;
}

std::string bench_md(const json& bench) {
  std::string out =
      "# servescope bench · " + str(bench, "url") + " · " + str(bench, "model") + "\n\n";
  const json workload = bench.value("workload", json::object());
  out +=
      "- API: " + str(bench, "api") + (bench.value("stream", false) ? " (streaming)" : "") + "\n";
  out += "- workload: " + str(workload, "dataset") + "\n\n";
  const BenchAxis axis = bench_axis(bench);
  const json points = bench.value("points", json::array());
  std::vector<std::vector<std::string>> rows;
  std::vector<std::vector<std::string>> server_rows;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const json& p = points[i];
    const std::string x = number_text(axis.x[i], axis.x[i] == std::floor(axis.x[i]) ? 0 : 2);
    auto p3 = [&](const char* m, int d) {
      return cell(stat(p, m, "p50"), d) + " / " + cell(stat(p, m, "p90"), d) + " / " +
             cell(stat(p, m, "p99"), d);
    };
    rows.push_back({x, cell(json_number(p.value("requests_per_s", json()), NAN), 2),
                    cell(json_number(p.value("output_tokens_per_s", json()), NAN), 1),
                    p3("ttft_ms", 2), p3("itl_ms", 2), p3("tpot_ms", 2), p3("e2e_ms", 1),
                    p3("e2e_from_intended_ms", 1),
                    md(json_text(p.value("requests_failed", json())))});
    const json server = p.value("server", json::object());
    server_rows.push_back(
        {x,
         cell(p.contains("in_flight") ? json_number(p["in_flight"].value("max", json()), NAN) : NAN,
              0),
         cell(json_number(server.value("max_running", json()), NAN), 0),
         cell(json_number(server.value("max_queued", json()), NAN), 0),
         md(json_text(server.value("stated_max_running", json()))), md(str(server, "sources"))});
  }
  out += "## Latency and throughput\n\n";
  out +=
      table({axis.name, "req/s", "out tok/s", "TTFT ms p50/90/99", "ITL ms p50/90/99",
             "TPOT ms p50/90/99", "E2E ms p50/90/99", "E2E from intended ms p50/90/99", "failed"},
            rows);
  out += "## The server's view beside the client's\n\n";
  out += table({axis.name, "client in flight max", "server running max", "server queued max",
                "stated limit", "sources"},
               server_rows);
  // --slo: goodput and attainment per point, and each percentile objective's verdict.
  if (bench.contains("slo") && bench["slo"].is_array()) {
    std::vector<std::vector<std::string>> slo_rows;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const json& s = json_obj(points[i], "slo");
      if (s.empty())
        continue;
      std::string verdicts;
      for (const json& v : json_arr(s, "percentiles")) {
        verdicts += (verdicts.empty() ? "" : ", ") + json_str(v, "objective") + " " +
                    number_text(json_num(v, "value_ms", NAN), 1) + " ms " +
                    (json_bool(v, "met", false) ? "met" : "**missed**");
      }
      slo_rows.push_back({number_text(axis.x[i], axis.x[i] == std::floor(axis.x[i]) ? 0 : 2),
                          cell(json_num(s, "attainment", NAN) * 100, 1),
                          cell(json_num(s, "goodput_requests_per_s", NAN), 2),
                          cell(json_num(s, "goodput_output_tokens_per_s", NAN), 1), md(verdicts)});
    }
    std::string objectives;
    for (const json& o : bench["slo"])
      objectives += (objectives.empty() ? "" : ", ") + json_text(o);
    out += "## Service-level objectives: " + md(objectives) + "\n\n";
    out += table({axis.name, "attainment %", "goodput req/s", "goodput out tok/s", "percentiles"},
                 slo_rows);
  }
  for (const json& p : points) {
    for (const json& w : p.value("warnings", json::array()))
      out += "> " + json_text(w) + "\n\n";
  }
  return out;
}

std::string bisect_md(const json& bisect) {
  const json metric = bisect.value("metric", json::object());
  std::string out =
      "# servescope bisect · " + str(metric, "name") + " · " + str(bisect, "strategy") + "\n\n";
  out += "- launch: " + code(str(bisect, "launch")) + "\n";
  out += "- bad: " + code(str(bisect, "bad")) + "\n";
  out += fmt::format("- launches: {} (one at a time would take {}), wall time {} s\n",
                     json_text(bisect.value("launches", json())),
                     json_text(bisect.value("one_at_a_time_launches", json())),
                     number_text(json_number(bisect.value("wall_seconds", json())), 1));
  out += "- model: " + str(bisect, "model") + "\n\n## Culprits\n\n";
  const json culprits = bisect.value("culprits", json::array());
  if (!culprits.is_array() || culprits.empty())
    out += "No culprit was isolated.\n";
  for (const json& set : culprits)
    out += "- **" + md(joined(set, " + ")) + "**\n";
  for (const json& e : bisect.value("culprit_evidence", json::array())) {
    for (const json& ev : e.value("alone", json::object()).value("evidence", json::array()))
      out += "  - " + code(str(ev, "file") + ":" + json_text(ev.value("line", json()))) + ": " +
             code(str(ev, "text")) + "\n";
  }
  out += "\n## Experiments\n\n";
  std::vector<std::vector<std::string>> rows;
  std::string gantt =
      "```mermaid\ngantt\n  title Experiments, end to end in the order run\n"
      "  dateFormat X\n  axisFormat %M:%S\n  section launches\n";
  double t = 0;
  for (const json& x : bisect.value("experiments", json::array())) {
    const bool culprit = is_culprit_experiment(bisect, x);
    std::string config = joined(x.value("flags", json::array()), " ");
    if (config.empty())
      config = "(the good configuration)";
    const double seconds = json_number(x.value("seconds", json()));
    const std::string id = json_text(x.value("id", json()));
    rows.push_back({culprit ? "**" + id + "**" : id, code(config) + (culprit ? " **culprit**" : ""),
                    md(str(x, "outcome")), md(str(x, "verdict")), number_text(seconds, 1),
                    code(deciding_line(x))});
    const std::string verdict = str(x, "verdict");
    gantt += fmt::format("  exp {} {} :{}e{}, {}, {}s\n", id,
                         mermaid(config.size() > 40 ? config.substr(0, 39) + "…" : config),
                         culprit             ? "crit, "
                         : verdict == "good" ? "done, "
                                             : "active, ",
                         id, static_cast<long long>(std::llround(t)),
                         std::max(1LL, static_cast<long long>(std::llround(seconds))));
    t += seconds;
  }
  out += table({"#", "configuration", "outcome", "verdict", "s", "deciding log line"}, rows);
  out += gantt + "```\n\n";
  const json notes = bisect.value("notes", json::array());
  if (notes.is_array() && !notes.empty()) {
    out += "## Notes\n\n";
    for (const json& n : notes)
      out += "- " + json_text(n) + "\n";
    out += "\n";
  }
  return out;
}

std::string explain_md(const json& explain) {
  std::string out = "# servescope explain\n\n";
  out +=
      "Each output asked for down to its inputs: rule ids and the engine source each rule "
      "mirrors. A node used twice is expanded once.\n\n";
  const json nodes = explain_nodes(explain);
  DerivationList list(nodes);  // keeps pointers into nodes
  for (const auto& [k, v] : explain.items())
    list.render(k, 0, out);
  return out + "\n";
}

std::string hypotheses_md(const json& list, const char* prefix) {
  std::vector<std::vector<std::string>> rows;
  std::size_t i = 0;
  for (const json& h : list) {
    std::string changes;
    for (const json& c : h.value("changes", json::array()))
      changes += (changes.empty() ? "" : " + ") + code(json_text(c));
    rows.push_back({fmt::format("{}{}", prefix, ++i), changes,
                    md(json_text(h.value("predicted", json()))),
                    h.value("exact", false) ? "yes" : "no", md(str(h, "solved_range")),
                    md(joined(h.value("path", json::array()), " → ")),
                    md(json_text(h.value("score", json())))});
  }
  return table({"#", "changes", "predicted", "exact", "any value in", "rule path", "score"}, rows);
}

std::string why_md(const json& why) {
  std::string out = fmt::format("# servescope why · {} = {}\n\n", md(str(why, "output")),
                                md(json_text(why.value("observed", json()))));
  out += fmt::format("- observed: **{}**\n- the plan predicts: {}\n",
                     md(json_text(why.value("observed", json()))),
                     md(json_text(why.value("predicted", json()))));
  if (why.contains("expected"))
    out += "- expected: " + md(json_text(why["expected"])) + "\n";
  out += "- plans evaluated: " + md(json_text(why.value("evaluations", json()))) + "\n\n";
  const json hypotheses = why.value("hypotheses", json::array());
  const json closest = why.value("closest", json::array());
  out += "## Hypotheses\n\n";
  if (hypotheses.is_array() && !hypotheses.empty()) {
    out += "Changes that reproduce the observed value exactly, fewest and most likely first.\n\n";
    out += hypotheses_md(hypotheses, "H");
  } else if (closest.is_array() && !closest.empty()) {
    out += "No single change or pair reproduces the observed value exactly. Closest:\n\n";
    out += hypotheses_md(closest, "C");
  } else {
    out += "No single change or pair reproduces the observed value; none moves it.\n\n";
  }
  out += "## Experiments that tell them apart\n\n";
  const json experiments = why.value("experiments", json::array());
  if (!experiments.is_array() || experiments.empty())
    return out + "None: fewer than two hypotheses to tell apart.\n";
  std::size_t columns = 0;
  for (const json& e : experiments)
    columns = std::max(columns, e.value("predicted", json::array()).size());
  out += fmt::format(
      "The predicted outcome of each experiment under each hypothesis (H1…H{}); a value that "
      "differs from H1's is in bold.\n\n",
      columns);
  if (hypotheses.is_array() && hypotheses.size() > columns)
    out += fmt::format("H{}…H{} are not in the plan: it tells apart the first {}.\n\n", columns + 1,
                       hypotheses.size(), columns);
  std::vector<std::string> header = {"experiment", "changes"};
  for (std::size_t h = 0; h < columns; ++h)
    header.push_back(fmt::format("H{}", h + 1));
  header.push_back("pairs separated");
  std::vector<std::vector<std::string>> rows;
  for (const json& e : experiments) {
    std::vector<std::string> row = {md(str(e, "description")),
                                    md(joined(e.value("changes", json::array()), " + "))};
    const json predicted = e.value("predicted", json::array());
    for (std::size_t h = 0; h < columns; ++h) {
      if (h >= predicted.size()) {
        row.push_back("—");
        continue;
      }
      const std::string text = md(json_text(predicted[h]));
      row.push_back(h > 0 && predicted[h] != predicted[0] ? "**" + text + "**" : text);
    }
    row.push_back(md(json_text(e.value("pairs_separated", json()))));
    rows.push_back(std::move(row));
  }
  return out + table(header, rows);
}

/// A log line number as the editor shows it: 1035, not 1,035.
std::string line_no(const json& v) {
  return v.is_number_integer() ? std::to_string(v.get<long long>()) : md(json_text(v));
}

std::string logs_md(const json& logs) {
  constexpr std::size_t kMaxPointRows = 500;
  const json summary = logs.value("summary", json::object());
  const json version = logs.value("inferred_version", json::object());
  std::string out = fmt::format("# servescope logs · {} · {}\n\n", md(str(logs, "file")),
                                md(str(logs, "engine")));
  out += "- inferred version: " + md(str(version, "range")) + "\n";
  out += "- model: " + md(str(summary, "model")) + " (" + md(str(summary, "model_class")) + ")\n";
  out += "- GPU: " + md(json_text(summary.value("gpu", json()))) + "\n\n";
  auto fact_table = [&](const char* key) {
    std::vector<std::vector<std::string>> rows;
    for (const json& f : summary.value(key, json::array())) {
      rows.push_back({md(str(f, "name")), md(json_text(f.value("value", json()))),
                      line_no(f.value("line", json())), code(str(f, "kind"))});
    }
    return table({"fact", "value", "log line", "kind"}, rows);
  };
  out += "## Capacity facts\n\n" + fact_table("capacity");
  if (!summary.value("problems", json::array()).empty())
    out += "## Problems\n\n" + fact_table("problems");
  if (!summary.value("notes", json::array()).empty())
    out += "## Notes\n\n" + fact_table("notes");
  out += "## Timeline\n\n";
  const json timelines = logs.value("timelines", json::array());
  if (!timelines.is_array() || timelines.empty())
    out += "The log has no batch lines: no timeline.\n\n";
  for (const json& t : timelines) {
    const std::string rank = str(t, "rank");
    out += "### " + (rank.empty() ? std::string("all ranks") : "rank " + md(rank)) + "\n\n";
    std::vector<std::vector<std::string>> peaks;
    const json pk = t.value("peaks", json::object());
    for (const char* key :
         {"running_req", "queue_req", "token_usage", "gen_throughput_tok_per_s"}) {
      if (pk.is_object() && pk.contains(key) && pk[key].is_object()) {
        peaks.push_back({code(key), md(json_text(pk[key].value("value", json()))),
                         line_no(pk[key].value("line", json())), md(str(pk[key], "time"))});
      }
    }
    out += table({"peak", "value", "log line", "time"}, peaks);
    const json points = t.value("points", json::array());
    if (!points.is_array() || points.empty())
      continue;
    if (points.size() > kMaxPointRows)
      out += fmt::format("The first {} of {} points:\n\n", kMaxPointRows, points.size());
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < points.size() && i < kMaxPointRows; ++i) {
      const json& p = points[i];
      rows.push_back(
          {line_no(p.value("first_line", json())) + "–" + line_no(p.value("last_line", json())),
           md(str(p, "time")), md(json_text(p.value("running_req", json()))),
           md(json_text(p.value("queue_req", json()))),
           md(json_text(p.value("token_usage", json()))),
           md(json_text(p.value("gen_throughput_tok_per_s", json())))});
    }
    out += table({"log lines", "time", "running", "queued", "KV usage", "gen tok/s"}, rows);
  }
  return out;
}

}  // namespace

std::string render_markdown_report(const json& doc, ReportKind kind) {
  switch (kind) {
    case ReportKind::kPlan:
      return plan_md(doc);
    case ReportKind::kCheck:
      return check_md(doc);
    case ReportKind::kDiff:
      return diff_md(doc);
    case ReportKind::kBench:
      return bench_md(doc);
    case ReportKind::kBisect:
      return bisect_md(doc);
    case ReportKind::kExplain:
      return explain_md(doc);
    case ReportKind::kWhy:
      return why_md(doc);
    case ReportKind::kLogs:
      return logs_md(doc);
    case ReportKind::kFit:
      return fit_markdown(doc);
    case ReportKind::kCompare:
      return compare_markdown(doc);
  }
  return "";
}

Result<std::string> render_markdown_report(const json& doc) {
  auto kind = detect_report_kind(doc);
  if (!kind)
    return kind.error();
  return render_markdown_report(doc, *kind);
}

}  // namespace servescope
