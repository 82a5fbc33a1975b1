#include "report/diff_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/format.h"
#include "report/plan_json.h"

namespace servescope {
namespace {

std::string change_labels(const DiffResult& d, const std::vector<std::size_t>& idx) {
  std::vector<std::string> labels;
  for (std::size_t i : idx)
    labels.push_back(d.inputs[i].label);
  return fmt::format("{}", fmt::join(labels, " + "));
}

std::string cause_line(const DiffResult& d, const OutputChange& c) {
  if (c.attribution.empty())
    return "no subset of the changes reproduces it alone (see the evidence)";
  std::vector<std::string> causes;
  for (const Attribution& a : c.attribution) {
    causes.push_back(a.kind == "interaction"
                         ? fmt::format("{} together (neither alone)", change_labels(d, a.changes))
                         : change_labels(d, a.changes));
  }
  return fmt::format("{}", fmt::join(causes, "; or "));
}

}  // namespace

std::string render_diff_text(const DiffResult& d) {
  std::string out =
      fmt::format("A: {} {}\nB: {} {}\n\n", d.a.engine, d.a.version, d.b.engine, d.b.version);
  if (d.inputs.empty())
    return out + "A and B are the same scenario.\n";
  if (d.attribution.changes.empty()) {
    out += "No output differs.\n";
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const OutputChange& c : d.attribution.changes) {
      rows.push_back(
          {c.output, fmt::format("{} → {}", c.a_text, c.b_text), "because: " + cause_line(d, c)});
    }
    out += render_columns(rows, "");
  }
  // The capacity outputs that did not move, stated, since "unchanged" is often the answer.
  std::vector<std::string> same;
  // The headline figures are the engine's KV tokens and running-request limit (its account).
  for (const std::string& o : {d.a.account.tokens_output, d.a.account.request_limit_output}) {
    if (o.empty())
      continue;
    const Node* na = d.a.graph.find(o);
    const Node* nb = d.b.graph.find(o);
    if (na != nullptr && nb != nullptr && na->value == nb->value) {
      same.push_back(fmt::format("{} {}", o, format_value(na->value, "")));
    }
  }
  if (!same.empty())
    out += fmt::format("unchanged: {}\n", fmt::join(same, ", "));
  if (!d.attribution.cleared.empty()) {
    out += "\nCleared (moves no capacity output)\n";
    std::vector<std::vector<std::string>> rows;
    for (const Cleared& c : d.attribution.cleared)
      rows.push_back({d.inputs[c.change].label, c.reason});
    out += render_columns(rows);
  }
  out += "\nEvidence\n";
  for (const OutputChange& c : d.attribution.changes) {
    out += fmt::format("  {}: {} → {}\n", c.output, c.a_text, c.b_text);
    for (const Attribution& a : c.attribution) {
      out += fmt::format(
          "    {} {}: via {}\n", a.kind, change_labels(d, a.changes),
          a.path.empty() ? std::string("(startup)") : fmt::format("{}", fmt::join(a.path, " → ")));
    }
    if (!c.movers.empty())
      out += fmt::format("    alone on A, these move it: {}\n", change_labels(d, c.movers));
    if (!c.needed.empty())
      out +=
          fmt::format("    removed from B, these move it back: {}\n", change_labels(d, c.needed));
  }
  out += fmt::format("\n{} input change(s), {} plans evaluated\n", d.inputs.size(),
                     d.attribution.evaluations);
  return out;
}

nlohmann::json diff_to_json(const DiffResult& d) {
  nlohmann::json changes = nlohmann::json::array();
  for (const OutputChange& c : d.attribution.changes) {
    nlohmann::json attribution = nlohmann::json::array();
    for (const Attribution& a : c.attribution) {
      std::vector<std::string> inputs;
      for (std::size_t i : a.changes)
        inputs.push_back(d.inputs[i].label);
      attribution.push_back(
          {{"inputs", inputs}, {"kind", a.kind}, {"path", a.path}, {"nodes", a.nodes}});
    }
    nlohmann::json waterfall = nlohmann::json::array();
    for (const WaterfallStep& w : c.waterfall)
      waterfall.push_back({{"input", d.inputs[w.change].label}, {"value", value_to_json(w.value)}});
    changes.push_back({{"output", c.output},
                       {"a", value_to_json(c.a)},
                       {"b", value_to_json(c.b)},
                       {"attribution", attribution},
                       {"waterfall", waterfall},
                       {"explained", c.explained}});
  }
  nlohmann::json cleared = nlohmann::json::array();
  for (const Cleared& c : d.attribution.cleared)
    cleared.push_back({{"input", d.inputs[c.change].label}, {"reason", c.reason}});
  nlohmann::json inputs = nlohmann::json::array();
  for (const ScenarioChange& c : d.inputs)
    inputs.push_back(c.label);
  nlohmann::json a = plan_to_json(d.a), b = plan_to_json(d.b);
  return {{"engine", a["engine"]},
          {"a", {{"engine", a["engine"]}, {"outputs", a["outputs"]}, {"starts", d.a.starts}}},
          {"b", {{"engine", b["engine"]}, {"outputs", b["outputs"]}, {"starts", d.b.starts}}},
          {"inputs", inputs},
          {"changes", changes},
          {"cleared", cleared},
          {"evaluations", d.attribution.evaluations}};
}

}  // namespace servescope
