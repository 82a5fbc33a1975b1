// servescope why OUTPUT=VALUE [--expected VALUE] [scenario] -- CMD
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "core/text.h"
#include "diagnose/why.h"
#include "report/why_report.h"

namespace servescope {

ExitStatus run_why(const CommandArgs& args) {
  CLI::App app(
      "Which plausible changes reproduce an observed value, and which experiments tell them apart.",
      "why");
  ScenarioOptions options;
  std::string observation, expected;
  std::size_t limit = 10;
  bool json = false;
  app.add_option("OUTPUT=VALUE", observation, "The observed value, e.g. max_running_requests=26")
      ->required();
  app.add_option("--expected", expected, "The value you expected (checked against the plan)");
  app.add_option("--limit", limit, "At most this many hypotheses (default 10)");
  add_scenario_options(app, options);
  app.add_flag("--json", json, "Print the hypotheses and experiments as JSON");
  ReportOutputs reports;
  add_report_outputs(app, reports);
  if (auto exit = parse_command_line(app, args))
    return *exit;
  const auto eq = observation.find('=');
  if (eq == std::string::npos || eq == 0) {
    return usage_error(
        fmt::format("why {}: expected OUTPUT=VALUE, e.g. max_running_requests=26", observation));
  }
  Observation obs;
  obs.output = observation.substr(0, eq);
  const std::string value = observation.substr(eq + 1);
  if (obs.output == "starts" && (value == "false" || value == "true")) {
    obs.observed = value == "true" ? 1 : 0;
  } else if (auto v = parse_double(value)) {
    obs.observed = *v;
  } else {
    return usage_error(fmt::format("why {}: '{}' is not a number", observation, value));
  }
  if (!expected.empty()) {
    auto e = parse_double(expected);
    if (!e)
      return usage_error(fmt::format("why --expected {}: not a number", expected));
    obs.expected = *e;
  }
  options.command = args.launch_command;
  auto built = build_scenario(options);
  if (!built)
    return usage_error(built.message());
  auto result = explain_observation(*built->engine, built->scenario, obs, limit);
  if (!result)
    return usage_error(result.message());
  if (json || reports.any()) {
    const nlohmann::json doc = why_to_json(*result);
    if (Status st = write_reports(reports, doc); !st)
      return usage_error(st.message());
    if (json)
      std::cout << doc.dump(2) << "\n";
  }
  if (!json) {
    std::cout << render_why_text(*result);
  }
  return ExitStatus::kOk;
}

}  // namespace servescope
