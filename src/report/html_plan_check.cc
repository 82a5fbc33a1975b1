// The HTML bodies of plan and check reports.
#include <fmt/format.h>

#include <map>
#include <set>

#include "report/html_sections.h"

namespace servescope {
namespace {

using nlohmann::json;

std::string esc_text(const json& v) {
  return html_escape(json_text(v));
}

std::string engine_line(const json& engine) {
  if (!engine.is_object())
    return "";
  std::string text = str(engine, "name") + " " + str(engine, "version");
  if (!str(engine, "release").empty() && str(engine, "release") != str(engine, "version"))
    text += " (release " + str(engine, "release") + ")";
  return text;
}

std::string anchor(const std::string& id) {
  std::string out = "n-";
  for (char c : id)
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '-';
  return out;
}

class DerivationTree {
 public:
  explicit DerivationTree(const json& nodes) {
    for (const json& n : nodes)
      by_id_[str(n, "id")] = &n;
  }
  std::string render(const std::string& id, int depth) {
    auto it = by_id_.find(id);
    if (it == by_id_.end())
      return "<li><code>" + html_escape(id) +
             "</code> <span class=\"muted\">(not in the "
             "document)</span></li>\n";
    const json& n = *it->second;
    std::string head = fmt::format("<code>{}</code> = <strong>{}</strong>{}", html_escape(id),
                                   esc_text(n.value("value", json())),
                                   str(n, "unit").empty() ? "" : " " + html_escape(str(n, "unit")));
    if (!str(n, "rule").empty())
      head += " <span class=\"rule\">" + html_escape(str(n, "rule")) + "</span>";
    if (!str(n, "origin").empty())
      head += " <span class=\"badge\">" + html_escape(str(n, "origin")) + "</span>";
    if (!str(n, "source").empty())
      head += " <span class=\"srcloc mono\">" + html_escape(str(n, "source")) + "</span>";
    const std::string why =
        str(n, "why").empty() ? "" : "<p>" + html_escape(str(n, "why")) + "</p>\n";
    const json inputs = n.value("inputs", json::array());
    if (seen_.count(id) != 0) {
      return fmt::format("<li>{} <a href=\"#{}\">(derived above)</a></li>\n", head, anchor(id));
    }
    seen_.insert(id);
    if (!inputs.is_array() || inputs.empty())
      return fmt::format("<li id=\"{}\">{}{}</li>\n", anchor(id), head, why);
    std::string children;
    for (const json& in : inputs)
      children += render(in.get<std::string>(), depth + 1);
    return fmt::format(
        "<li><details id=\"{}\"{}><summary>{}</summary>\n{}<ul>\n{}</ul></details></li>\n",
        anchor(id), depth == 0 ? " open" : "", head, why, children);
  }
  std::vector<std::string> unseen() const {
    std::vector<std::string> out;
    for (const auto& [id, n] : by_id_) {
      if (seen_.count(id) == 0)
        out.push_back(id);
    }
    return out;
  }

 private:
  std::map<std::string, const json*> by_id_;
  std::set<std::string> seen_;
};

std::string findings_html(const json& findings) {
  if (!findings.is_array() || findings.empty())
    return "<p class=\"muted\">No findings.</p>\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (const json& f : findings) {
    const std::string sev = str(f, "severity");
    std::string flags;
    for (const json& fl : f.value("flags", json::array()))
      flags += "<code>" + html_escape(fl.get<std::string>()) + "</code> ";
    rows.push_back({"<span class=\"badge " +
                        std::string(sev == "error"     ? "bad"
                                    : sev == "warning" ? "warn"
                                                       : "muted") +
                        "\">" + html_escape(sev) + "</span>",
                    "<code>" + html_escape(str(f, "code")) + "</code>", flags,
                    html_escape(str(f, "message")),
                    "<span class=\"rule\">" + html_escape(str(f, "rule")) + "</span>",
                    "<span class=\"srcloc mono\">" + html_escape(str(f, "source")) + "</span>"});
  }
  return html_table({"severity", "code", "flags", "message", "rule", "source"}, rows);
}

}  // namespace

std::string report_title(const json& doc, ReportKind kind) {
  switch (kind) {
    case ReportKind::kPlan:
    case ReportKind::kCheck:
    case ReportKind::kDiff:
      return fmt::format("servescope {} · {}", report_kind_name(kind),
                         engine_line(doc.value("engine", json())));
    case ReportKind::kBench:
      return fmt::format("servescope bench · {} · {}", str(doc, "url"), str(doc, "model"));
    case ReportKind::kBisect: {
      const json metric = doc.value("metric", json::object());
      return fmt::format("servescope bisect · {} · {}",
                         metric.is_object() ? str(metric, "name") : "", str(doc, "strategy"));
    }
    case ReportKind::kExplain: {
      std::string names;
      for (const auto& [k, v] : doc.items())
        names += (names.empty() ? "" : ", ") + k;
      return "servescope explain · " + names;
    }
    case ReportKind::kWhy:
      return fmt::format("servescope why · {} = {}", str(doc, "output"),
                         json_text(doc.value("observed", json())));
    case ReportKind::kLogs:
      return fmt::format("servescope logs · {} · {}", str(doc, "file"), str(doc, "engine"));
    case ReportKind::kFit:
      return fmt::format("servescope fit · {} {} · {}", str(doc, "engine"), str(doc, "version"),
                         str(doc, "model"));
    case ReportKind::kCompare: {
      const json names = doc.value("compare", json::object());
      return fmt::format("servescope bench --compare · {} · {}", str(names, "a"), str(names, "b"));
    }
  }
  return "servescope report";
}

std::string html_plan_body(const json& plan) {
  const json engine = plan.value("engine", json::object());
  const json outputs = plan.value("outputs", json::object());
  std::string out;
  std::string starts =
      plan.value("starts", true)
          ? "<span class=\"ok\">starts</span>"
          : "<span class=\"bad\">does not start: " + html_escape(str(plan, "startup_error")) +
                "</span>";
  std::string command = str(plan, "command");
  out += meta({{"engine", html_escape(engine_line(engine))},
               {"rules", html_escape(str(engine, "rules_date"))},
               {"version basis", html_escape(str(engine, "basis"))},
               {"command", command.empty() ? "" : "<code>" + html_escape(command) + "</code>"},
               {"startup", starts}});

  out += "<h2 id=\"memory\">Memory budget per GPU</h2>\n";
  const MemoryBreakdown memory = memory_breakdown(plan.value("memory", json::array()));
  out += memory_bar_html(memory);
  std::vector<std::vector<std::string>> rows;
  for (const MemoryPart& p : memory.rows) {
    std::string role = p.total                        ? "total (bracket)"
                       : p.item == memory.extent_item ? "bar extent"
                       : p.total_of.empty()           ? "part"
                                                      : "part of " + html_escape(p.total_of);
    rows.push_back(
        {html_escape(p.item), "<span class=\"mono\">" + number_text(p.gib, 3) + "</span>",
         "<span class=\"swatch src-" + html_escape(p.source) + "\"></span>" + html_escape(p.source),
         role});
  }
  out += html_table({"item", "GiB", "source", "in the bar"}, rows);

  out += "<h2 id=\"outputs\">Outputs</h2>\n";
  rows.clear();
  for (const auto& [k, v] : outputs.items())
    rows.push_back(
        {"<code>" + html_escape(k) + "</code>", "<span class=\"mono\">" + esc_text(v) + "</span>"});
  out += html_table({"output", "value"}, rows);

  const json resolved = plan.value("resolved", json::array());
  if (resolved.is_array() && !resolved.empty()) {
    out += "<h2 id=\"resolved\">Resolved settings</h2>\n";
    rows.clear();
    for (const json& r : resolved) {
      rows.push_back({"<code>" + html_escape(str(r, "name")) + "</code>",
                      esc_text(r.value("typed", json())), esc_text(r.value("resolved", json())),
                      html_escape(str(r, "why"))});
    }
    out += html_table({"setting", "typed", "resolved", "why"}, rows);
  }

  out +=
      "<h2 id=\"findings\">Findings</h2>\n" + findings_html(plan.value("findings", json::array()));
  const json estimated = plan.value("estimated", json::array());
  if (estimated.is_array() && !estimated.empty()) {
    out += "<p class=\"note\">Estimated, not measured: ";
    for (const json& e : estimated)
      out += "<code>" + html_escape(json_text(e)) + "</code> ";
    out += "— give the log's figures (calibration) for exact numbers.</p>\n";
  }

  out +=
      "<h2 id=\"derivation\">Derivation</h2>\n<p class=\"muted\">Each output down to its "
      "inputs: rule ids and the engine source each rule mirrors. A node used twice is "
      "expanded once.</p>\n";
  const json nodes = plan.contains("derivation") ? plan["derivation"].value("nodes", json::array())
                                                 : json::array();
  DerivationTree tree(nodes);
  out += "<ul class=\"tree\">\n";
  for (const auto& [k, v] : outputs.items())
    out += tree.render(k, 0);
  out += "</ul>\n";
  const auto rest = tree.unseen();
  if (!rest.empty()) {
    out += fmt::format(
        "<details><summary>{} other nodes (not under an output)</summary>\n<ul class=\"tree\">\n",
        rest.size());
    for (const std::string& id : rest)
      out += tree.render(id, 1);
    out += "</ul></details>\n";
  }
  return out;
}

std::string html_explain_body(const json& explain) {
  const json nodes = explain_nodes(explain);
  std::string out = meta(
      {{"outputs", fmt::format("{}", explain.size())}, {"nodes", fmt::format("{}", nodes.size())}});
  out +=
      "<h2 id=\"derivation\">Derivation</h2>\n<p class=\"muted\">Each output asked for down to "
      "its inputs: rule ids and the engine source each rule mirrors. A node used twice is "
      "expanded once, then linked.</p>\n";
  DerivationTree tree(nodes);
  out += "<ul class=\"tree\">\n";
  for (const auto& [k, v] : explain.items())
    out += tree.render(k, 0);
  return out + "</ul>\n";
}

std::string html_check_body(const json& check) {
  std::string out;
  const json scenario = check.value("scenario", json::object());
  const json version = check.value("inferred_version", json::object());
  out +=
      meta({{"log", "<code>" + html_escape(str(check, "file")) + "</code>"},
            {"engine", html_escape(engine_line(check.value("engine", json())))},
            {"version from the log", html_escape(version.is_object() ? str(version, "range") : "")},
            {"command", "<code>" + html_escape(str(scenario, "command")) + "</code>"},
            {"GPU", html_escape(str(scenario, "gpu"))},
            {"model", "<code>" + html_escape(str(scenario, "model")) + "</code>"}});
  const int mismatched = check.value("mismatched", 0);
  out += fmt::format(
      "<p><strong class=\"{}\">{} matched, {} mismatched</strong>, {} not checked.</p>\n",
      mismatched > 0 ? "bad" : "ok", check.value("matched", 0), mismatched,
      check.value("not_checked", 0));
  out += "<h2 id=\"comparisons\">Predicted vs logged</h2>\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (const json& c : check.value("comparisons", json::array())) {
    const bool match = c.value("match", false);
    const bool checked = c.value("checked", true);
    const json low = c.value("predicted_low", json()), high = c.value("predicted_high", json());
    const json predicted = c.value("predicted", json()), logged = c.value("logged", json());
    std::string interval = "—";
    std::string picture;
    if (low.is_number() && high.is_number()) {
      interval = json_text(low) + " … " + json_text(high);
      if (predicted.is_number() && logged.is_number()) {
        picture = interval_svg(low.get<double>(), high.get<double>(), predicted.get<double>(),
                               logged.get<double>(), match);
      }
    }
    const std::string line = c.value("log_line", json()).is_number()
                                 ? html_escape(str(check, "file")) + ":" + esc_text(c["log_line"])
                                 : "—";
    rows.push_back({"<code>" + html_escape(str(c, "field")) + "</code>",
                    "<span class=\"mono\">" + esc_text(predicted) + "</span>",
                    "<span class=\"mono\">" + html_escape(interval) + "</span>",
                    "<span class=\"mono\">" + esc_text(logged) + "</span>", picture,
                    !checked ? "<span class=\"muted\">not checked</span>"
                    : match  ? "<span class=\"ok\">✓ match</span>"
                             : "<span class=\"bad\">✗ differs</span>",
                    "<code>" + line + "</code>", html_escape(str(c, "note"))});
    classes.push_back(checked && !match ? "miss" : "");
  }
  out += html_table(
      {"field", "predicted", "interval (low … high)", "logged", "", "", "log line", "note"}, rows,
      classes);
  const json consistency = check.value("consistency", json::array());
  if (consistency.is_array() && !consistency.empty()) {
    out += "<h2 id=\"consistency\">Consistency of the log with itself</h2>\n<ul>\n";
    for (const json& c : consistency)
      out += "<li>" + html_escape(c.is_string() ? c.get<std::string>() : c.dump()) + "</li>\n";
    out += "</ul>\n";
  }
  const json notes = check.value("notes", json::array());
  if (notes.is_array() && !notes.empty()) {
    out += "<h2 id=\"notes\">Notes</h2>\n<ul>\n";
    for (const json& n : notes)
      out += "<li>" + html_escape(json_text(n)) + "</li>\n";
    out += "</ul>\n";
  }
  if (version.is_object() && version.contains("evidence")) {
    out += "<h2 id=\"version\">Engine version, from the log</h2>\n";
    rows.clear();
    for (const json& e : version["evidence"]) {
      rows.push_back({"<code>" + html_escape(str(check, "file")) + ":" +
                          esc_text(e.value("line", json())) + "</code>",
                      html_escape(str(e, "observation")), html_escape(str(e, "from")),
                      html_escape(str(e, "until")), html_escape(str(e, "rule"))});
    }
    out += html_table({"log line", "observation", "from", "until", "rule"}, rows);
  }
  return out;
}

}  // namespace servescope
