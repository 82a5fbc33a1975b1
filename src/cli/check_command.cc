// servescope check FILE [--model PATH|ID] [--gpu NAME] [--engine sglang@VERSION] [--json] [-- CMD]
#include <iostream>

#include "cli/command.h"
#include "cli/scenario_cli.h"
#include "diagnose/check.h"
#include "evidence/log_reader.h"
#include "report/check_report.h"

namespace servescope {

ExitStatus run_check(const CommandArgs& args) {
  CLI::App app(
      "Rebuild the scenario a log came from, predict, and hold every logged figure against the "
      "prediction.",
      "check");
  std::string file;
  CheckOptions options;
  bool json = false;
  app.add_option("FILE", file, "The server log")->required();
  app.add_option("--engine", options.engine,
                 "Engine NAME[@VERSION] (a version given here wins over inference)");
  app.add_option("--gpu", options.gpu, "GPU, when the log does not name it");
  app.add_option("--model", options.model,
                 "Model config.json, directory or bundled id, when the log's is not bundled");
  app.add_option("--env", options.env, "Engine environment variable KEY=VALUE the run had");
  app.add_flag("--json", json, "Print the comparisons as JSON");
  if (auto exit = parse_command_line(app, args))
    return *exit;
  options.command = args.launch_command;
  auto facts = read_log_file(file);
  if (!facts)
    return usage_error(facts.message());
  auto result = check_log(*facts, options);
  if (!result)
    return usage_error(file + ": " + result.message());
  if (json) {
    std::cout << check_to_json(file, *result).dump(2) << "\n";
  } else {
    std::cout << render_check_text(file, *result);
  }
  return result->ok() ? ExitStatus::kOk : ExitStatus::kFindings;
}

}  // namespace servescope
