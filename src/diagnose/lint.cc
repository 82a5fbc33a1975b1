#include "diagnose/lint.h"

#include <fmt/format.h>

#include <algorithm>

#include "diagnose/counterfactuals.h"

namespace servescope {
namespace {

// For each typed flag a rule reads: what removing it would change. A flag that moves a
// capacity output is worth knowing about even when it is what the user wanted.
void capacity_side_effects(const Engine& engine, const Scenario& s, const Plan& plan,
                           std::vector<Finding>& out) {
  const std::vector<std::string> outputs = {"max_total_num_tokens", "max_running_requests",
                                            "max_mamba_cache_size", "mem_fraction_static"};
  for (const FlagSetting& f : s.command.flags) {
    if (!f.modelled || f.name == "--model-path")
      continue;
    if (s.command.find(f.name) != &f)
      continue;  // the last occurrence decides
    ScenarioChange remove = remove_flag_change(f.name, s);
    auto other = engine.plan(apply_changes(s, {&remove}));
    if (!other)
      continue;
    std::vector<std::string> moved;
    for (const std::string& o : outputs) {
      if (plan.graph.find(o) == nullptr)
        continue;
      if (!(output_value(plan, o) == output_value(*other, o))) {
        moved.push_back(
            fmt::format("{} {} (without it: {})", o, output_text(plan, o), output_text(*other, o)));
      }
    }
    if (plan.starts != other->starts)
      moved.push_back(fmt::format("startup: {} (without it: {})", output_text(plan, "starts"),
                                  output_text(*other, "starts")));
    if (moved.empty())
      continue;
    std::string list;
    for (const std::string& m : moved)
      list += (list.empty() ? "" : "; ") + m;
    out.push_back({Severity::kInfo,
                   "flag-moves-capacity",
                   {f.as_typed()},
                   fmt::format("{} moves capacity: {}", f.as_typed(), list),
                   "",
                   ""});
  }
}

}  // namespace

bool LintResult::has_error() const {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity == Severity::kError; });
}

Result<LintResult> lint_scenario(const Engine& engine, const Scenario& scenario) {
  LintResult out;
  auto plan = engine.plan(scenario);
  if (!plan)
    return plan.error();
  out.plan = std::move(*plan);
  out.findings = out.plan.findings;
  for (Finding& f : engine.lint(scenario, out.plan))
    out.findings.push_back(std::move(f));
  capacity_side_effects(engine, scenario, out.plan, out.findings);
  std::erase_if(out.findings, [](const Finding& f) { return f.code == "estimated-input"; });
  std::stable_sort(out.findings.begin(), out.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  return out;
}

}  // namespace servescope
