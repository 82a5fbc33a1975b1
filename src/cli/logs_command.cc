// servescope logs FILE [--json] [--summary-only] [--engine NAME] [--html FILE] [--markdown FILE]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "diagnose/log_command_merge.h"
#include "evidence/log_reader.h"
#include "report/given_command.h"
#include "report/logs_json.h"
#include "report/logs_text.h"

namespace servescope {

ExitStatus run_logs(const CommandArgs& args) {
  CLI::App app(
      "Read a server log: its startup capacity facts, inferred engine version and "
      "batch-line timeline.",
      "logs");
  std::string file;
  std::string engine_spec;
  bool json = false;
  bool summary_only = false;
  app.add_option("FILE", file, "The log file ('-' reads standard input)")->required();
  app.add_flag("--json", json,
               "Print every fact, the timeline and the counts as JSON (schema: "
               "src/report/logs_json.h)");
  app.add_flag("--summary-only", summary_only,
               "With --json: leave out the facts array (summary, version, timeline, counts)");
  app.add_option("--engine", engine_spec,
                 "Read the log with this engine's grammar (default: detected from the content)");
  std::string from;
  app.add_option("--from", from,
                 "The run's launch command in a file (as check reads it): said beside the log, "
                 "with every setting it disagrees with")
      ->check(CLI::ExistingFile);
  ReportOutputs reports;
  add_report_outputs(app, reports);
  if (auto exit = parse_command_line(app, args))
    return *exit;
  if (args.had_separator && args.launch_command.empty())
    return usage_error("logs: nothing after --; give the run's launch command there, or drop --");

  LogReadOptions options;
  if (!engine_spec.empty()) {
    auto engine = find_engine(engine_spec.substr(0, engine_spec.find('@')));
    if (!engine)
      return usage_error(engine.message());
    options.engine = *engine;
  }
  LogsJsonWriter writer(stdout, file == "-" ? "<stdin>" : file, !summary_only);
  if (json)
    options.sink = &writer;
  auto facts = file == "-" ? read_log(std::cin, "<stdin>", options) : read_log_file(file, options);
  if (!facts)
    return usage_error(facts.message());
  if (reports.any()) {
    // The report's document is --json --summary-only's: every fact of a large log would not fit.
    nlohmann::json doc = {{"format", "servescope.logs/1"},
                          {"file", file == "-" ? "<stdin>" : file},
                          {"facts", nlohmann::json::array()}};
    doc.update(logs_tail_to_json(*facts));
    if (Status st = write_reports(reports, doc); !st)
      return usage_error(st.message());
  }
  std::optional<GivenCommand> given;
  if (!from.empty() || !args.launch_command.empty()) {
    auto read = given_command_beside(*facts, from, args.launch_command);
    if (!read)
      return usage_error("logs: " + read.message());
    given = std::move(*read);
  }
  if (json) {
    if (given)
      writer.extra("command", given_command_to_json(*given));
    writer.finish(*facts);
  } else {
    std::cout << render_logs_text(*facts, file == "-" ? "<stdin>" : file);
    if (given)
      std::cout << render_given_command(*given);
  }
  return ExitStatus::kOk;
}

}  // namespace servescope
