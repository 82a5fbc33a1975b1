// The HTML bodies of why and logs reports.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "report/html_sections.h"

namespace servescope {
namespace {

using nlohmann::json;

// The most rows a table of timeline points shows (the charts carry every point).
constexpr std::size_t kMaxPointRows = 500;

std::string esc_text(const json& v) {
  return html_escape(json_text(v));
}

std::string codes(const json& list, const char* sep) {
  std::string out;
  if (!list.is_array())
    return out;
  for (const json& v : list)
    out += (out.empty() ? "" : sep) + ("<code>" + esc_text(v) + "</code>");
  return out;
}

std::string hypotheses_table(const json& list, const char* prefix) {
  std::vector<std::vector<std::string>> rows;
  std::size_t i = 0;
  for (const json& h : list) {
    rows.push_back({fmt::format("{}{}", prefix, ++i),
                    codes(h.value("changes", json::array()), " + "),
                    "<span class=\"mono\">" + esc_text(h.value("predicted", json())) + "</span>",
                    h.value("exact", false) ? "<span class=\"ok\">yes</span>" : "no",
                    html_escape(str(h, "solved_range")),
                    "<span class=\"rule\">" + html_escape([&] {
                      std::string p;
                      for (const json& r : h.value("path", json::array()))
                        p += (p.empty() ? "" : " → ") + json_text(r);
                      return p;
                    }()) +
                        "</span>",
                    esc_text(h.value("score", json()))});
  }
  return html_table({"#", "changes", "predicted", "exact", "any value in", "rule path", "score"},
                    rows);
}

/// A log line number as the editor shows it: 1035, not 1,035.
std::string line_no(const json& v) {
  return v.is_number_integer() ? std::to_string(v.get<long long>()) : html_escape(json_text(v));
}

double num_or_nan(const json& p, const char* key) {
  return json_number(p.value(key, json()), std::numeric_limits<double>::quiet_NaN());
}

std::string peak_line(const json& peaks, const char* key) {
  if (!peaks.is_object() || !peaks.contains(key) || !peaks[key].is_object())
    return "";
  const json& p = peaks[key];
  return fmt::format("{} at line {} ({})", esc_text(p.value("value", json())),
                     line_no(p.value("line", json())), html_escape(str(p, "time")));
}

}  // namespace

std::string html_why_body(const json& why) {
  std::string out;
  const bool has_expected = why.contains("expected");
  out += meta({{"output", "<code>" + html_escape(str(why, "output")) + "</code>"},
               {"observed", "<strong>" + esc_text(why.value("observed", json())) + "</strong>"},
               {"the plan predicts", esc_text(why.value("predicted", json()))},
               {"expected", has_expected ? esc_text(why["expected"]) : ""},
               {"plans evaluated", esc_text(why.value("evaluations", json()))}});
  const json hypotheses = why.value("hypotheses", json::array());
  const json closest = why.value("closest", json::array());
  out += "<h2 id=\"hypotheses\">Hypotheses</h2>\n";
  if (hypotheses.is_array() && !hypotheses.empty()) {
    out += fmt::format(
        "<p class=\"muted\">{} change{} that reproduce {} exactly, fewest and most likely "
        "first.</p>\n",
        hypotheses.size(), hypotheses.size() == 1 ? "" : "s",
        esc_text(why.value("observed", json())));
    out += hypotheses_table(hypotheses, "H");
  } else {
    out += "<p class=\"note\">No single change or pair reproduces the observed value exactly.";
    out += closest.is_array() && !closest.empty() ? " Closest:</p>\n" : " None moves it.</p>\n";
    if (closest.is_array() && !closest.empty())
      out += hypotheses_table(closest, "C");
  }
  const json experiments = why.value("experiments", json::array());
  out += "<h2 id=\"experiments\">Experiments that tell them apart</h2>\n";
  if (!experiments.is_array() || experiments.empty()) {
    out += "<p class=\"muted\">None: fewer than two hypotheses to tell apart.</p>\n";
    return out;
  }
  std::size_t columns = 0;
  for (const json& e : experiments)
    columns = std::max(columns, e.value("predicted", json::array()).size());
  out += fmt::format(
      "<p class=\"muted\">The predicted outcome of each experiment under each hypothesis "
      "(H1…H{}); a value that differs from H1's is marked. Running the experiments in order "
      "separates every pair.</p>\n",
      columns);
  if (hypotheses.is_array() && hypotheses.size() > columns)
    out += fmt::format(
        "<p class=\"muted\">H{}…H{} are not in the plan: it tells apart the first "
        "{}.</p>\n",
        columns + 1, hypotheses.size(), columns);
  std::vector<std::string> header = {"experiment", "changes"};
  for (std::size_t h = 0; h < columns; ++h)
    header.push_back(fmt::format("H{}", h + 1));
  header.push_back("pairs separated");
  std::vector<std::vector<std::string>> rows;
  for (const json& e : experiments) {
    std::vector<std::string> row = {html_escape(str(e, "description")),
                                    codes(e.value("changes", json::array()), " + ")};
    const json predicted = e.value("predicted", json::array());
    for (std::size_t h = 0; h < columns; ++h) {
      if (h >= predicted.size()) {
        row.push_back("—");
        continue;
      }
      const bool differs = h > 0 && predicted[h] != predicted[0];
      row.push_back(std::string(differs ? "<span class=\"warn\">" : "<span>") +
                    esc_text(predicted[h]) + "</span>");
    }
    row.push_back(esc_text(e.value("pairs_separated", json())));
    rows.push_back(std::move(row));
  }
  out += html_table(header, rows);
  return out;
}

std::string html_logs_body(const json& logs, ChartList& charts) {
  const json summary = logs.value("summary", json::object());
  const json version = logs.value("inferred_version", json::object());
  std::string out;
  std::string parallel;
  for (const char* k : {"tp", "dp", "pp", "ep"}) {
    if (summary.is_object() && summary.value(k, json()).is_number())
      parallel += fmt::format("{}{} {}", parallel.empty() ? "" : " · ", k, json_text(summary[k]));
  }
  out += meta({{"file", "<code>" + html_escape(str(logs, "file")) + "</code>"},
               {"engine", html_escape(str(logs, "engine"))},
               {"inferred version",
                version.is_object()
                    ? html_escape(str(version, "range")) +
                          (str(version, "printed_version").empty()
                               ? ""
                               : " (printed " + html_escape(str(version, "printed_version")) + ")")
                    : ""},
               {"model", html_escape(str(summary, "model"))},
               {"model class", html_escape(str(summary, "model_class"))},
               {"GPU", html_escape(str(summary, "gpu"))},
               {"parallelism", html_escape(parallel)}});

  auto fact_table = [&](const char* key) {
    std::vector<std::vector<std::string>> rows;
    for (const json& f : summary.value(key, json::array())) {
      rows.push_back({html_escape(str(f, "name")),
                      "<span class=\"mono\">" + esc_text(f.value("value", json())) + "</span>",
                      "<span class=\"mono\">" + line_no(f.value("line", json())) + "</span>",
                      "<code>" + html_escape(str(f, "kind")) + "</code>"});
    }
    return html_table({"fact", "value", "log line", "kind"}, rows);
  };
  out += "<h2 id=\"capacity\">Capacity facts</h2>\n" + fact_table("capacity");
  if (!summary.value("problems", json::array()).empty())
    out += "<h2 id=\"problems\">Problems</h2>\n" + fact_table("problems");
  if (!summary.value("notes", json::array()).empty())
    out += "<h2 id=\"notes\">Notes</h2>\n" + fact_table("notes");

  out += "<h2 id=\"timeline\">Timeline</h2>\n";
  const json timelines = logs.value("timelines", json::array());
  if (!timelines.is_array() || timelines.empty())
    out += "<p class=\"muted\">The log has no batch lines: no timeline.</p>\n";
  for (const json& t : timelines) {
    const std::string rank = str(t, "rank");
    out += "<h3>" + (rank.empty() ? std::string("all ranks") : "rank " + html_escape(rank)) +
           "</h3>\n";
    const json peaks = t.value("peaks", json::object());
    out += meta(
        {{"samples", fmt::format("{} ({} decode, {} prefill)", esc_text(t.value("samples", json())),
                                 esc_text(t.value("decode_samples", json())),
                                 esc_text(t.value("prefill_samples", json())))},
         {"span", esc_text(t.value("span_s", json())) + " s"},
         {"peak running", peak_line(peaks, "running_req")},
         {"peak queued", peak_line(peaks, "queue_req")},
         {"peak KV usage", peak_line(peaks, "token_usage")},
         {"peak generation tok/s", peak_line(peaks, "gen_throughput_tok_per_s")}});
    const json points = t.value("points", json::array());
    if (!points.is_array() || points.empty())
      continue;
    // x is the log line each point starts at: a point on the chart is a place in the log.
    LineChart requests{"running and queued requests", "log line", "requests", {}, {}, false};
    ChartSeries running{"running", {}, false}, queued{"queued", {}, true};
    LineChart usage{"KV cache usage", "log line", "fraction of the KV cache", {}, {}, false};
    ChartSeries kv{"token usage", {}, false};
    for (const json& p : points) {
      const double line = num_or_nan(p, "first_line");
      requests.x.push_back(line);
      usage.x.push_back(line);
      running.values.push_back(num_or_nan(p, "running_req"));
      queued.values.push_back(num_or_nan(p, "queue_req"));
      kv.values.push_back(num_or_nan(p, "token_usage"));
    }
    requests.series = {running, queued};
    usage.series = {kv};
    out += charts.add(requests);
    out += charts.add(usage);
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < points.size() && i < kMaxPointRows; ++i) {
      const json& p = points[i];
      rows.push_back(
          {fmt::format("<span class=\"mono\">{}–{}</span>", line_no(p.value("first_line", json())),
                       line_no(p.value("last_line", json()))),
           html_escape(str(p, "time")), esc_text(p.value("offset_s", json())),
           esc_text(p.value("samples", json())), esc_text(p.value("running_req", json())),
           esc_text(p.value("queue_req", json())), esc_text(p.value("token_usage", json())),
           esc_text(p.value("gen_throughput_tok_per_s", json()))});
    }
    out += fmt::format(
        "<details><summary>The {} points and their log lines{}</summary>\n", points.size(),
        points.size() > kMaxPointRows
            ? fmt::format(" (the first {} shown; the charts have all)", kMaxPointRows)
            : "");
    out += html_table({"log lines", "time", "offset (s)", "samples", "running", "queued",
                       "KV usage", "gen tok/s"},
                      rows);
    out += "</details>\n";
  }
  const json counts = logs.value("counts", json::object());
  if (counts.is_object()) {
    out += "<h2 id=\"counts\">Lines read</h2>\n";
    out += meta({{"lines", esc_text(counts.value("lines", json()))},
                 {"bytes", esc_text(counts.value("bytes", json()))},
                 {"facts", esc_text(counts.value("facts", json()))},
                 {"known / unknown", fmt::format("{} / {}", esc_text(counts.value("known", json())),
                                                 esc_text(counts.value("unknown", json())))},
                 {"unknown capacity lines", esc_text(counts.value("unknown_capacity", json()))}});
  }
  return out;
}

}  // namespace servescope
