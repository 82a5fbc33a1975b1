// servescope lint [scenario options] [--json] -- CMD
#include <iostream>

#include "cli/command.h"
#include "cli/scenario_cli.h"
#include "diagnose/lint.h"
#include "report/lint_report.h"

namespace servescope {

ExitStatus run_lint(const CommandArgs& args) {
  CLI::App app(
      "Criticise a launch command: flags this GPU or version lacks, no-ops, overrides, "
      "contradictions.",
      "lint");
  ScenarioOptions options;
  bool json = false;
  add_scenario_options(app, options);
  app.add_flag("--json", json, "Print the findings as JSON");
  if (auto exit = parse_command_line(app, args))
    return *exit;
  options.command = args.launch_command;
  auto built = build_scenario(options);
  if (!built)
    return usage_error(built.message());
  auto result = lint_scenario(*built->engine, built->scenario);
  if (!result)
    return usage_error(result.message());
  if (json) {
    std::cout << lint_to_json(*result).dump(2) << "\n";
  } else {
    std::cout << render_lint_text(built->scenario, *result);
  }
  return result->has_error() ? ExitStatus::kFindings : ExitStatus::kOk;
}

}  // namespace servescope
