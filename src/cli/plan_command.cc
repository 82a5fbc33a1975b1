// servescope plan [scenario options] [--json] -- CMD
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "report/plan_json.h"
#include "report/plan_text.h"

namespace servescope {

ExitStatus run_plan(const CommandArgs& args) {
  CLI::App app("Predict what the engine decides at startup, every number with its derivation.",
               "plan");
  ScenarioOptions options;
  bool json = false;
  add_scenario_options(app, options);
  app.add_flag("--json", json, "Print the plan as JSON (ARCHITECTURE.md field names)");
  ReportOutputs reports;
  add_report_outputs(app, reports);
  if (auto exit = parse_command_line(app, args))
    return *exit;
  options.command = args.launch_command;
  auto built = build_scenario(options);
  if (!built)
    return usage_error(built.message());
  auto plan = built->engine->plan(built->scenario);
  if (!plan)
    return usage_error(plan.message());
  if (json || reports.any()) {
    nlohmann::json out = plan_to_json(*plan);
    out["inputs_read"] = built->scenario.inputs_read;
    if (!options.command.empty())
      out["command"] = fmt::format("{}", fmt::join(options.command, " "));
    if (Status st = write_reports(reports, out); !st)
      return usage_error(st.message());
    if (json)
      std::cout << out.dump(2) << "\n";
  }
  if (!json) {
    std::cout << render_plan_text(built->scenario, *plan);
  }
  return ExitStatus::kOk;
}

}  // namespace servescope
