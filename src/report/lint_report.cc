#include "report/lint_report.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/plan_json.h"
#include "report/plan_text.h"

namespace servescope {

nlohmann::json finding_to_json(const Finding& f) {
  return {{"severity", std::string(severity_name(f.severity))},
          {"code", f.code},
          {"flags", f.flags},
          {"message", f.message},
          {"rule", f.rule},
          {"source", f.source}};
}

std::string render_lint_text(const Scenario& scenario, const LintResult& r) {
  std::string out = scenario_headline(scenario, r.plan) + "\n\n";
  std::size_t errors = 0, warnings = 0;
  std::vector<std::vector<std::string>> rows;
  for (const Finding& f : r.findings) {
    errors += f.severity == Severity::kError ? 1 : 0;
    warnings += f.severity == Severity::kWarning ? 1 : 0;
    std::string rule = f.rule.empty() ? std::string() : "[" + f.rule + "]";
    rows.push_back({std::string(severity_name(f.severity)), f.code, f.message, rule});
  }
  out += rows.empty() ? "  no findings\n" : render_columns(rows);
  out += fmt::format("\n{} error(s), {} warning(s), {} note(s)\n", errors, warnings,
                     r.findings.size() - errors - warnings);
  return out;
}

nlohmann::json lint_to_json(const LintResult& r) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : r.findings)
    findings.push_back(finding_to_json(f));
  nlohmann::json plan = plan_to_json(r.plan);
  return {{"engine", plan["engine"]},
          {"outputs", plan["outputs"]},
          {"starts", r.plan.starts},
          {"findings", findings}};
}

}  // namespace servescope
