#include "report/check_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/explain_text.h"
#include "report/format.h"
#include "report/lint_report.h"
#include "report/plan_json.h"

namespace servescope {
namespace {

std::string shown(const Value& v) {
  return format_value(v, "");
}

bool predicted_over_estimates(const Comparison& c) {
  return !c.checked && c.estimated && c.estimated->low;
}

std::string predicted_text(const Comparison& c) {
  if (predicted_over_estimates(c)) {
    const bool whole = c.logged.is_int();
    const double lo = *c.estimated->low, hi = *c.estimated->high;
    if (lo == hi)
      return shown(whole ? Value(static_cast<std::int64_t>(lo)) : Value(lo)) + " (estimates)";
    if (whole)
      return fmt::format("{} … {} (estimates)", shown(Value(static_cast<std::int64_t>(lo))),
                         shown(Value(static_cast<std::int64_t>(hi))));
    return fmt::format("{:.2f} … {:.2f} (estimates)", lo, hi);
  }
  if (c.predicted_low && c.predicted_high && *c.predicted_high > *c.predicted_low) {
    // Whole figures (tokens, blocks) print as integers; fractional ones (concurrency 20.54x)
    // keep the logged value's kind so the bounds do not both round to 20.
    const bool whole = c.logged.is_int() || (c.logged.is_none() && c.predicted.is_int());
    if (whole)
      return fmt::format("{} … {}", shown(Value(static_cast<std::int64_t>(*c.predicted_low))),
                         shown(Value(static_cast<std::int64_t>(*c.predicted_high))));
    return fmt::format("{:.2f} … {:.2f}", *c.predicted_low, *c.predicted_high);
  }
  return c.predicted.is_none() ? std::string("—") : shown(c.predicted);
}

nlohmann::json calibration_json(Calibration cal) {
  nlohmann::json out = nlohmann::json::object();
  for (const std::string& name : calibration_field_names()) {
    const std::optional<double>* v = calibration_field(cal, name);
    if (v != nullptr && v->has_value())
      out[name + "_gib"] = **v;
  }
  return out;
}

}  // namespace

std::string render_inputs_that_would_check(const std::vector<Comparison>& comparisons) {
  std::vector<const Comparison*> unchecked;
  for (const Comparison& c : comparisons)
    unchecked.push_back(&c);
  return render_inputs_that_would_check(unchecked);
}

std::string render_inputs_that_would_check(const std::vector<const Comparison*>& unchecked) {
  return render_would_check(inputs_that_would_check(unchecked));
}

std::string render_would_check(const std::vector<std::pair<std::string, std::size_t>>& inputs) {
  if (inputs.empty())
    return "";
  std::string out = "To check more:";
  for (const auto& [option, n] : inputs)
    out += fmt::format("\n  {}  could check up to {} more figure{}", option, n, n == 1 ? "" : "s");
  return out + "\n";
}

std::string render_check_text(const std::string& file, const CheckResult& r) {
  std::string out = fmt::format("{}: {} log, version {} (inferred {})\n", file, r.engine->name(),
                                r.scenario.version.label, r.inferred.range_text());
  std::vector<std::string> memory;
  Calibration cal = r.log.calibration;
  for (const std::string& name : calibration_field_names()) {
    const std::optional<double>* v = calibration_field(cal, name);
    if (v == nullptr || !v->has_value())
      continue;
    auto line = r.log.calibration_lines.find(name);
    memory.push_back(fmt::format("{} {:.2f} GiB{}", name, **v,
                                 line == r.log.calibration_lines.end()
                                     ? std::string()
                                     : fmt::format(" (line {})", line->second)));
  }
  out += fmt::format("  rebuilt: {} on {}{}; {}; {}\n", r.scenario.model.source,
                     r.scenario.hardware.gpu.key, r.gpu_known ? "" : " (stand-in)",
                     memory.empty() ? std::string("no memory figures")
                                    : fmt::format("{}", fmt::join(memory, ", ")),
                     r.command_given             ? "launch command from " + r.command_origin
                     : r.defaults_assumed        ? std::string("the engine's defaults with --model")
                     : r.log.typed_command_known ? "launch command from the log"
                                                 : "settings from the log's argument dump");
  for (const std::string& n : r.notes)
    out += "  note: " + n + "\n";
  if (!r.filled.empty())
    out += fmt::format("  from {}: {} (the log does not show them)\n",
                       r.command_origin.empty() ? std::string("the options") : r.command_origin,
                       fmt::join(r.filled, ", "));
  for (const std::string& i : r.inferences)
    out += "  inferred: " + i + "\n";
  for (const std::string& c : r.contradictions)
    out += "  ! command and log disagree: " + c + "\n";
  out += "\n";
  std::vector<std::vector<std::string>> rows = {{"", "FIGURE", "LOGGED", "PREDICTED", "LINE"}};
  for (const Comparison& c : r.comparisons) {
    // ~ and !: not checked, predicted over its estimates' intervals, logged inside or outside.
    const std::string mark = predicted_over_estimates(c) ? (c.estimated->within ? "~" : "!")
                             : !c.checked                ? "·"
                             : !c.match                  ? "✗"
                             : c.bound                   ? "≤"
                                                         : "✓";
    rows.push_back({mark, c.field, shown(c.logged),
                    c.bound ? "≤ " + predicted_text(c) : predicted_text(c),
                    std::to_string(c.log_line)});
  }
  out += render_columns(rows);
  for (const Comparison& c : r.comparisons) {
    if (!c.checked) {
      out += fmt::format("  {} {}: not checked — {}{}\n",
                         predicted_over_estimates(c) ? (c.estimated->within ? "~" : "!") : "·",
                         c.field, c.note,
                         c.needs.empty() ? std::string() : "; to check it: " + c.needs);
      if (c.estimated && !c.estimated->note.empty())
        out += fmt::format("      {}\n", c.estimated->note);
    } else if (c.bound)
      out += fmt::format("  {} {}: {}\n", c.match ? "≤" : "✗", c.field, c.note);
  }
  for (const Comparison& c : r.comparisons) {
    if (!c.checked || c.match)
      continue;
    out += fmt::format("\n✗ {}: logged {} (line {}), predicted {}\n  log: {}\n", c.field,
                       shown(c.logged), c.log_line, predicted_text(c), c.log_raw);
    ExplainOptions eo;
    eo.max_depth = 2;
    const Plan& plan = c.from_defaults ? r.defaults_plan : r.plan;
    out += render_explain_tree(plan.graph, c.field, eo);
  }
  if (!r.consistency.empty()) {
    out += "\nThe log against itself\n";
    for (const Finding& f : r.consistency)
      out += fmt::format("  {}  {}  {}\n", severity_name(f.severity), f.code, f.message);
  }
  out += fmt::format("\n{} matched, {} mismatched, {} not checked", r.matched(), r.mismatched(),
                     r.unchecked());
  if (r.predicted() > 0)
    out += fmt::format(" ({} predicted over estimates' intervals: {} inside, {} outside)",
                       r.predicted(), r.predicted() - r.predicted_outside(), r.predicted_outside());
  out += "\n";
  out += render_inputs_that_would_check(r.comparisons);
  return out;
}

nlohmann::json inputs_json(const std::vector<const Comparison*>& unchecked) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [option, n] : inputs_that_would_check(unchecked))
    out.push_back({{"option", option}, {"figures", n}});
  return out;
}

nlohmann::json inputs_json(const std::vector<Comparison>& comparisons) {
  std::vector<const Comparison*> all;
  for (const Comparison& c : comparisons)
    all.push_back(&c);
  return inputs_json(all);
}

nlohmann::json check_to_json(const std::string& file, const CheckResult& r) {
  nlohmann::json comparisons = nlohmann::json::array();
  for (const Comparison& c : r.comparisons) {
    nlohmann::json j = {
        {"field", c.field},
        {"logged", value_to_json(c.logged)},
        {"predicted", value_to_json(c.predicted)},
        {"predicted_low",
         c.predicted_low ? nlohmann::json(*c.predicted_low) : nlohmann::json(nullptr)},
        {"predicted_high",
         c.predicted_high ? nlohmann::json(*c.predicted_high) : nlohmann::json(nullptr)},
        {"match", c.checked ? nlohmann::json(c.match) : nlohmann::json(nullptr)},
        {"checked", c.checked},
        {"bound", c.bound},
        {"note", c.note},
        {"needs", c.checked || c.needs.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.needs)},
        {"estimated", nlohmann::json(nullptr)},
        {"log_line", c.log_line}};
    if (!c.checked && c.estimated) {
      const EstimatedPrediction& e = *c.estimated;
      j["estimated"] = {{"estimates", e.estimates},
                        {"low", e.low ? nlohmann::json(*e.low) : nlohmann::json(nullptr)},
                        {"high", e.high ? nlohmann::json(*e.high) : nlohmann::json(nullptr)},
                        {"within", e.low ? nlohmann::json(e.within) : nlohmann::json(nullptr)},
                        {"note", e.note}};
    }
    comparisons.push_back(std::move(j));
  }
  nlohmann::json consistency = nlohmann::json::array();
  for (const Finding& f : r.consistency)
    consistency.push_back(finding_to_json(f));
  nlohmann::json evidence = nlohmann::json::array();
  for (const VersionEvidence& e : r.inferred.evidence) {
    evidence.push_back({{"observation", e.observation},
                        {"line", e.line},
                        {"from", e.from_date},
                        {"until", e.until_date},
                        {"rule", e.rule},
                        {"conflicting", e.conflicting}});
  }
  return {{"file", file},
          {"engine",
           {{"name", std::string(r.engine->name())},
            {"version", r.scenario.version.label},
            {"basis", r.version_basis}}},
          {"inferred_version",
           {{"from", r.inferred.from_date},
            {"until", r.inferred.until_date},
            {"range", r.inferred.range_text()},
            {"evidence", evidence}}},
          {"scenario",
           {{"model", r.scenario.model.source},
            {"gpu", r.scenario.hardware.gpu.key},
            {"gpu_named", r.gpu_known},
            {"command", r.scenario.command.to_string()},
            {"calibration", calibration_json(r.log.calibration)},
            {"typed_command_known", r.log.typed_command_known}}},
          {"comparisons", comparisons},
          {"consistency", consistency},
          {"notes", r.notes},
          {"command",
           {{"given", r.command_given},
            {"origin", r.command_origin},
            {"filled", r.filled},
            {"contradictions", r.contradictions}}},
          {"inferred", r.inferences},
          {"would_check", inputs_json(r.comparisons)},
          {"matched", r.matched()},
          {"mismatched", r.mismatched()},
          {"not_checked", r.unchecked()},
          {"predicted", r.predicted()},
          {"predicted_outside", r.predicted_outside()}};
}

}  // namespace servescope
