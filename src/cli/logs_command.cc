// servescope logs FILE [--json] [--summary-only] [--engine NAME] [--html FILE] [--markdown FILE]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "evidence/log_reader.h"
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
  ReportOutputs reports;
  add_report_outputs(app, reports);
  if (auto exit = parse_command_line(app, args))
    return *exit;
  if (!args.launch_command.empty() || args.had_separator)
    return usage_error("logs: takes a log file, not a launch command");

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
  if (json) {
    writer.finish(*facts);
  } else {
    std::cout << render_logs_text(*facts, file == "-" ? "<stdin>" : file);
  }
  return ExitStatus::kOk;
}

}  // namespace servescope
