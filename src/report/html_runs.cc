// The HTML bodies of diff, bench and bisect reports.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "report/html_sections.h"

namespace servescope {
namespace {

using nlohmann::json;

std::string pct3(const json& p, const char* metric, int digits) {
  return cell(stat(p, metric, "p50"), digits) + " / " + cell(stat(p, metric, "p90"), digits) +
         " / " + cell(stat(p, metric, "p99"), digits);
}

// --slo: each point's attainment and goodput, and each percentile objective's value and verdict.
std::string html_slo_section(const json& bench, const BenchAxis& axis) {
  if (!bench.contains("slo") || !bench["slo"].is_array())
    return "";
  const json points = bench.value("points", json::array());
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (std::size_t i = 0; i < points.size() && i < axis.x.size(); ++i) {
    const json s = points[i].value("slo", json::object());
    if (!s.is_object() || s.empty())
      continue;
    std::string verdicts;
    bool all_met = true;
    for (const json& v : s.value("percentiles", json::array())) {
      const bool met = v.value("met", false);
      all_met = all_met && met;
      verdicts += (verdicts.empty() ? "" : "<br>") + html_escape(str(v, "objective")) + ": " +
                  cell(json_number(v.value("value_ms", json()), NAN), 1) + " ms " +
                  (met ? "met" : "<strong>missed</strong>");
    }
    rows.push_back({number_text(axis.x[i], axis.x[i] == std::floor(axis.x[i]) ? 0 : 2),
                    html_escape(json_text(s.value("met", json()))) + " of " +
                        html_escape(json_text(s.value("requests", json()))),
                    cell(json_number(s.value("attainment", json()), NAN) * 100, 1),
                    cell(json_number(s.value("goodput_requests_per_s", json()), NAN), 2),
                    cell(json_number(s.value("goodput_output_tokens_per_s", json()), NAN), 1),
                    verdicts.empty() ? "—" : verdicts});
    classes.push_back(all_met ? "" : "miss");
  }
  std::string out =
      "<h2 id=\"slo\">Service-level objectives: " + html_escape(joined(bench["slo"], ", ")) +
      "</h2>\n";
  out +=
      "<p class=\"muted\">Goodput counts the requests that met every per-request objective; a "
      "percentile objective is judged on the point as a whole.</p>\n";
  out += html_table({html_escape(axis.name), "requests that met them", "attainment %",
                     "goodput req/s", "goodput out tok/s", "percentile objectives"},
                    rows, classes);
  return out;
}

}  // namespace

std::string html_diff_body(const json& diff) {
  std::string out;
  out += "<dl class=\"meta\">\n";
  out += "<dt>changed inputs</dt><dd>";
  for (const json& in : diff.value("inputs", json::array()))
    out += "<code>" + html_escape(json_text(in)) + "</code> ";
  out += fmt::format("</dd>\n<dt>evaluations</dt><dd>{}</dd>\n</dl>\n",
                     html_escape(json_text(diff.value("evaluations", json()))));
  const json changes = diff.value("changes", json::array());
  out += fmt::format("<h2 id=\"changes\">{} moved output{}</h2>\n", changes.size(),
                     changes.size() == 1 ? "" : "s");
  std::vector<std::vector<std::string>> rows;
  for (const json& c : changes) {
    std::string causes;
    for (const json& a : c.value("attribution", json::array())) {
      causes += (causes.empty() ? "" : "<br />or ") +
                html_escape(joined(a.value("inputs", json::array()), ", ")) +
                (str(a, "kind") == "interaction" ? " <em>(together, neither alone)</em>" : "");
    }
    rows.push_back({"<a href=\"#out-" + html_escape(str(c, "output")) + "\"><code>" +
                        html_escape(str(c, "output")) + "</code></a>",
                    "<span class=\"mono\">" + html_escape(json_text(c.value("a", json()))) + " → " +
                        html_escape(json_text(c.value("b", json()))) + "</span>",
                    causes.empty() ? "<span class=\"warn\">no subset of the changes reproduces "
                                     "it alone</span>"
                                   : causes});
  }
  out += html_table({"output", "A → B", "because"}, rows);
  for (const json& c : changes) {
    const json a = c.value("a", json()), b = c.value("b", json());
    out += "<h3 id=\"out-" + html_escape(str(c, "output")) + "\"><code>" +
           html_escape(str(c, "output")) + "</code></h3>\n";
    if (a.is_number() && b.is_number()) {
      // A step per change that moves the output given the ones before it (diff --json's
      // waterfall); a document without one gets a single step labelled with the causes.
      std::vector<WaterfallBar> steps;
      double at = a.get<double>();
      int still = 0;
      for (const json& w : c.value("waterfall", json::array())) {
        const json v = w.value("value", json());
        if (!v.is_number())
          continue;
        if (v.get<double>() == at) {
          ++still;
          continue;
        }
        steps.push_back({str(w, "input"), at, v.get<double>()});
        at = v.get<double>();
      }
      if (!c.contains("waterfall")) {
        std::string step;
        for (const json& cause : c.value("attribution", json::array()))
          step += (step.empty() ? "" : " | ") + joined(cause.value("inputs", json::array()), ", ");
        steps.push_back({step.empty() ? "unexplained" : step, a.get<double>(), b.get<double>()});
      }
      out += waterfall_svg(a.get<double>(), b.get<double>(), json_text(a), json_text(b), steps);
      if (still > 0)
        out += fmt::format("<p class=\"muted\">{} other change{} left it where it was.</p>\n",
                           still, still == 1 ? "" : "s");
    } else {
      out += "<p class=\"mono\">" + html_escape(json_text(a)) + " → " + html_escape(json_text(b)) +
             "</p>\n";
    }
    out += "<ul>\n";
    for (const json& at : c.value("attribution", json::array())) {
      out += "<li>" + html_escape(joined(at.value("inputs", json::array()), ", ")) + " (" +
             html_escape(str(at, "kind")) + "): through <span class=\"rule\">" +
             html_escape(joined(at.value("path", json::array()), " → ")) + "</span>";
      out += " <span class=\"muted\">nodes " +
             html_escape(joined(at.value("nodes", json::array()), ", ")) + "</span></li>\n";
    }
    out += std::string("<li>") +
           (c.value("explained", false)
                ? "<span class=\"ok\">the causes reproduce B's value exactly</span>"
                : "<span class=\"warn\">the causes do not reproduce B's value exactly</span>") +
           "</li>\n</ul>\n";
  }
  const json cleared = diff.value("cleared", json::array());
  if (cleared.is_array() && !cleared.empty()) {
    out += "<h2 id=\"cleared\">Changes that move nothing</h2>\n";
    rows.clear();
    for (const json& c : cleared)
      rows.push_back(
          {"<code>" + html_escape(str(c, "input")) + "</code>", html_escape(str(c, "reason"))});
    out += html_table({"input", "why it has no effect"}, rows);
  }
  return out;
}

std::string html_bench_body(const json& bench, ChartList& charts) {
  std::string out;
  const json workload = bench.value("workload", json::object());
  out += "<dl class=\"meta\">\n";
  out += "<dt>server</dt><dd><code>" + html_escape(str(bench, "url")) + "</code> · " +
         html_escape(str(bench, "api")) + (bench.value("stream", false) ? " · streaming" : "") +
         "</dd>\n";
  out += "<dt>workload</dt><dd>" + html_escape(str(workload, "dataset")) + "</dd>\n";
  out += "<dt>per point</dt><dd>" +
         html_escape(workload.value("requests_per_point", json()).is_number()
                         ? json_text(workload["requests_per_point"]) + " requests"
                         : json_text(workload.value("duration_s_per_point", json())) + " s") +
         (workload.value("runs_per_point", 1) > 1
              ? html_escape(" × " + json_text(workload["runs_per_point"]) +
                            " runs (latency over every run's requests)")
              : std::string()) +
         "</dd>\n</dl>\n";
  const BenchAxis axis = bench_axis(bench);
  const json points = bench.value("points", json::array());
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const json& p = points[i];
    const json server = p.value("server", json::object());
    rows.push_back(
        {number_text(axis.x[i], axis.x[i] == std::floor(axis.x[i]) ? 0 : 2),
         cell(json_number(p.value("requests_per_s", json()), NAN), 2),
         cell(json_number(p.value("output_tokens_per_s", json()), NAN), 1), pct3(p, "ttft_ms", 2),
         pct3(p, "itl_ms", 2), pct3(p, "tpot_ms", 2), pct3(p, "e2e_ms", 1),
         pct3(p, "e2e_from_intended_ms", 1),
         cell(p.contains("in_flight") ? json_number(p["in_flight"].value("max", json()), NAN) : NAN,
              0),
         cell(json_number(server.value("max_running", json()), NAN), 0),
         cell(json_number(server.value("max_queued", json()), NAN), 0),
         html_escape(json_text(p.value("requests_failed", json())))});
  }
  out += "<h2 id=\"points\">Latency and throughput per point</h2>\n";
  out += html_table(
      {html_escape(axis.name), "req/s", "out tok/s", "TTFT ms p50/90/99", "ITL ms p50/90/99",
       "TPOT ms p50/90/99", "E2E ms p50/90/99", "E2E from intended ms p50/90/99",
       "client in flight max", "server running max", "server queued max", "failed"},
      rows);
  const bool log_x = axis.x.size() > 2 && axis.x.front() > 0 && axis.x.back() / axis.x.front() >= 8;
  auto series = [&](const char* label, const char* metric, const char* key, bool dashed) {
    ChartSeries s{label, {}, dashed};
    for (const json& p : points)
      s.values.push_back(stat(p, metric, key));
    return s;
  };
  out += html_slo_section(bench, axis);
  out += "<h2 id=\"latency\">Latency vs " + html_escape(axis.name) + "</h2>\n";
  out += charts.add(
      {"TTFT percentiles",
       axis.name,
       "ms",
       axis.x,
       {series("TTFT p50", "ttft_ms", "p50", false), series("TTFT p90", "ttft_ms", "p90", false),
        series("TTFT p99", "ttft_ms", "p99", false),
        series("TTFT p99 from intended send", "ttft_from_intended_ms", "p99", true)},
       log_x});
  out += charts.add(
      {"Inter-token latency and TPOT",
       axis.name,
       "ms",
       axis.x,
       {series("ITL p50", "itl_ms", "p50", false), series("ITL p99", "itl_ms", "p99", false),
        series("TPOT p50", "tpot_ms", "p50", true), series("TPOT p99", "tpot_ms", "p99", true)},
       log_x});
  out += "<h2 id=\"throughput\">Throughput vs " + html_escape(axis.name) + "</h2>\n";
  ChartSeries tok{"output tokens/s", {}, false};
  ChartSeries req{"requests/s × 100", {}, true};
  for (const json& p : points) {
    tok.values.push_back(json_number(p.value("output_tokens_per_s", json()), NAN));
    req.values.push_back(json_number(p.value("requests_per_s", json()), NAN) * 100);
  }
  std::vector<ChartSeries> throughput = {tok, req};
  if (bench.contains("slo") && bench["slo"].is_array()) {
    ChartSeries good{"goodput output tokens/s", {}, true};
    for (const json& p : points)
      good.values.push_back(json_number(
          p.value("slo", json::object()).value("goodput_output_tokens_per_s", json()), NAN));
    throughput.push_back(good);
  }
  out += charts.add({"Throughput", axis.name, "per second", axis.x, throughput, log_x});

  out += "<h2 id=\"server-view\">The server's view beside the client's</h2>\n";
  out +=
      "<p class=\"muted\">What the client had in flight against what the server's own metrics "
      "said it ran and queued, sampled during each point.</p>\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const json& p = points[i];
    const json server = p.value("server", json::object());
    const json samples = server.value("samples", json::array());
    out += fmt::format("<h3>{} {}</h3>\n", html_escape(axis.name),
                       number_text(axis.x[i], axis.x[i] == std::floor(axis.x[i]) ? 0 : 2));
    if (!server.value("available", false) || !samples.is_array() || samples.empty()) {
      out += "<p class=\"muted\">No server view at this point.</p>\n";
      continue;
    }
    LineChart c{"client in flight vs server running", "time (s)", "requests", {}, {}, false};
    ChartSeries client{"client in flight", {}, false}, running{"server running", {}, false},
        queued{"server queued", {}, true};
    for (const json& s : samples) {
      c.x.push_back(json_number(s.value("t_s", json())));
      client.values.push_back(json_number(s.value("client_in_flight", json()), NAN));
      running.values.push_back(json_number(s.value("running", json()), NAN));
      queued.values.push_back(json_number(s.value("queued", json()), NAN));
    }
    c.series = {client, running, queued};
    out += charts.add(c);
    std::vector<std::pair<std::string, std::string>> facts = {
        {"server ran at most", json_text(server.value("max_running", json()))},
        {"server queued at most", json_text(server.value("max_queued", json()))},
        {"its stated limit", json_text(server.value("stated_max_running", json()))},
        {"effective running limit", json_text(server.value("effective_running_limit", json()))},
        {"sources", str(server, "sources")}};
    out += "<dl class=\"meta\">\n";
    for (const auto& [k, v] : facts)
      out += "<dt>" + html_escape(k) + "</dt><dd>" + html_escape(v) + "</dd>\n";
    out += "</dl>\n";
    for (const json& w : p.value("warnings", json::array()))
      out += "<p class=\"note\">" + html_escape(json_text(w)) + "</p>\n";
  }
  if (bench.contains("expected") && !bench["expected"].is_null())
    out += "<h2 id=\"expected\">Expected from the log</h2>\n<pre>" +
           html_escape(bench["expected"].dump(2)) + "</pre>\n";
  return out;
}

std::string html_bisect_body(const json& bisect) {
  std::string out;
  const json metric = bisect.value("metric", json::object());
  out += "<dl class=\"meta\">\n";
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"launch", str(bisect, "launch")},
           {"good", str(bisect, "good").empty() ? "(the launch as given)" : str(bisect, "good")},
           {"bad", str(bisect, "bad")},
           {"strategy", str(bisect, "strategy")},
           {"model", str(bisect, "model")}}) {
    out += "<dt>" + k + "</dt><dd><code>" + html_escape(v) + "</code></dd>\n";
  }
  out += fmt::format(
      "<dt>launches</dt><dd>{} ({} beyond the two endpoints; one at a time would take {}), {} "
      "reused · wall time {} s</dd>\n</dl>\n",
      json_text(bisect.value("launches", json())),
      json_text(bisect.value("launches_beyond_endpoints", json())),
      json_text(bisect.value("one_at_a_time_launches", json())),
      json_text(bisect.value("reused", json())),
      number_text(json_number(bisect.value("wall_seconds", json())), 1));
  if (!bisect.value("error", json()).is_null())
    out += "<p class=\"note bad\">" + html_escape(json_text(bisect["error"])) + "</p>\n";

  out += "<h2 id=\"culprits\">Culprits</h2>\n";
  const json culprits = bisect.value("culprits", json::array());
  if (!culprits.is_array() || culprits.empty())
    out += "<p class=\"muted\">No culprit was isolated.</p>\n";
  for (const json& e : bisect.value("culprit_evidence", json::array())) {
    out += "<div class=\"note\"><strong>" +
           html_escape(joined(e.value("flags", json::array()), " + ")) +
           "</strong> <span class=\"badge\">" + html_escape(str(e, "kind")) + "</span>";
    const json alone = e.value("alone", json::object());
    const json without = e.value("without", json::object());
    out += fmt::format("<br />alone (experiment {}): {}; without it (experiment {}): {}",
                       html_escape(json_text(alone.value("experiment", json()))),
                       html_escape(str(alone, "outcome")),
                       html_escape(json_text(without.value("experiment", json()))),
                       html_escape(str(without, "outcome") + " " + str(without, "verdict")));
    out += "<ul>\n";
    for (const json& ev : alone.value("evidence", json::array())) {
      out += "<li><code>" + html_escape(str(ev, "file")) + ":" +
             html_escape(json_text(ev.value("line", json()))) + "</code> <code>" +
             html_escape(str(ev, "text")) + "</code></li>\n";
    }
    out += "</ul></div>\n";
  }

  out += "<h2 id=\"experiments\">Experiments</h2>\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  std::vector<TimelineBar> bars;
  // Where each ran and how long it queued, when a scheduler ran any (bisect --launcher slurm).
  bool scheduled = false;
  for (const json& x : bisect.value("experiments", json::array()))
    scheduled = scheduled || x.value("job_id", json()).is_string();
  for (const json& x : bisect.value("experiments", json::array())) {
    const bool culprit = is_culprit_experiment(bisect, x);
    const std::string verdict = str(x, "verdict");
    const std::string outcome = str(x, "outcome");
    std::string config = joined(x.value("flags", json::array()), " ");
    if (config.empty())
      config = "(the good configuration)";
    const json prediction = x.value("prediction", json());
    rows.push_back({html_escape(json_text(x.value("id", json()))),
                    "<code>" + html_escape(config) + "</code>" +
                        (culprit ? " <span class=\"badge warn\">culprit</span>" : ""),
                    html_escape(outcome), html_escape(verdict),
                    number_text(json_number(x.value("seconds", json())), 1),
                    number_text(json_number(x.value("startup_seconds", json())), 1),
                    prediction.is_object() ? html_escape(str(prediction, "verdict")) : "—",
                    "<code>" + html_escape(deciding_line(x)) + "</code>"});
    if (scheduled) {
      std::string where = str(x, "launcher");
      if (x.value("job_id", json()).is_string())
        where += " job " + str(x, "job_id");
      if (x.value("node", json()).is_string())
        where += " on " + str(x, "node");
      if (x.value("reattached", false))
        where += " (re-attached)";
      rows.back().push_back(html_escape(where));
      rows.back().push_back(number_text(json_number(x.value("queued_seconds", json())), 1));
    }
    classes.push_back(culprit ? "culprit" : "");
    bars.push_back({"#" + json_text(x.value("id", json())), json_number(x.value("seconds", json())),
                    culprit                                       ? "culprit"
                    : verdict == "good"                           ? "good"
                    : verdict == "reproduces" || verdict == "bad" ? "bad"
                                                                  : "other"});
  }
  std::vector<std::string> head = {"#", "configuration", "outcome",    "verdict",
                                   "s", "startup s",     "model said", "deciding log line"};
  if (scheduled) {
    head.push_back("where");
    head.push_back("queued s");
  }
  out += html_table(head, rows, classes);
  out +=
      "<h3>Timeline</h3>\n<p class=\"muted\">Experiments end to end in the order run "
      "(report.json gives durations, not start times); culprit runs in amber, bad in red, good "
      "in green.</p>\n";
  out += timeline_svg(bars);
  const json notes = bisect.value("notes", json::array());
  if (notes.is_array() && !notes.empty()) {
    out += "<h2 id=\"notes\">Notes</h2>\n<ul>\n";
    for (const json& n : notes)
      out += "<li>" + html_escape(json_text(n)) + "</li>\n";
    out += "</ul>\n";
  }
  out += "<details><summary>Commands</summary>\n<ol>\n";
  for (const json& x : bisect.value("experiments", json::array()))
    out += "<li><code>" + html_escape(joined(x.value("command", json::array()), " ")) +
           "</code></li>\n";
  out += "</ol></details>\n";
  return out;
}

}  // namespace servescope
