// servescope check FILE... [--model PATH|ID] [--gpu NAME] [--engine sglang@VERSION] [--tp N]
// [--gpus N] [--from FILE | -- CMD] [--json]
// One log: its report. Several logs, or a directory of them: one row each and a total. A file
// with a log's stem and a command's extension beside it (run.log + run.cmd) is its command.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "diagnose/check.h"
#include "diagnose/log_command_merge.h"
#include "evidence/log_reader.h"
#include "report/check_report.h"
#include "report/check_table.h"

namespace servescope {

ExitStatus run_check(const CommandArgs& args) {
  CLI::App app(
      "Rebuild the scenario a log came from, predict, and hold every logged figure against the "
      "prediction.",
      "check");
  std::vector<std::string> inputs;
  CheckOptions options;
  bool json = false;
  app.add_option("FILE", inputs, "Server logs, or directories of them")->required();
  app.add_option("--engine", options.engine,
                 "Engine NAME[@VERSION] (a version given here wins over inference)");
  app.add_option("--gpu", options.gpu, "GPU, when the log does not name it");
  app.add_option("--model", options.model,
                 "Model config.json, directory or bundled id, when the log's is not bundled");
  app.add_option("--env", options.env, "Engine environment variable KEY=VALUE the run had");
  app.add_option("--from", options.from,
                 "The run's launch command in a file: a script, systemd unit, compose file, "
                 "Kubernetes manifest, `docker run` line, a file of flags, or an env file")
      ->check(CLI::ExistingFile);
  app.add_option("--tp", options.tp, "Tensor parallelism, when the log does not show it")
      ->check(CLI::PositiveNumber);
  app.add_option("--gpus", options.gpus, "GPUs per node, when the log does not show them")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json", json, "Print the comparisons as JSON");
  ReportOutputs reports;
  add_report_outputs(app, reports);
  if (auto exit = parse_command_line(app, args))
    return *exit;
  options.command = args.launch_command;
  // Directories stand for the regular files in them, in name order.
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(in, ec)) {
      if (!std::filesystem::exists(in, ec))
        return usage_error(fmt::format("check: {}: no such file", in));
      files.push_back(in);
      continue;
    }
    std::vector<std::string> inside;
    for (const auto& e : std::filesystem::directory_iterator(in, ec)) {
      if (e.is_regular_file(ec) && e.path().filename().string().front() != '.')
        inside.push_back(e.path().string());
    }
    std::sort(inside.begin(), inside.end());
    if (inside.empty())
      return usage_error(fmt::format("check: {}: the directory holds no files", in));
    files.insert(files.end(), inside.begin(), inside.end());
  }
  // A command file beside a log (run.log + run.cmd) is that log's command, not a log.
  std::erase_if(files, [&](const std::string& f) { return pairs_with_a_log(f, files); });
  const bool user_command = !options.command.empty() || !options.from.empty();
  // A command file beside the log is used when the user gave none; one that is not a command
  // servescope reads does not stop the check: the log is checked alone, and the output says why.
  auto check_one = [&](const LogFacts& facts, const std::string& log) -> Result<CheckResult> {
    const std::string beside = user_command ? std::string() : command_file_beside(log);
    if (beside.empty())
      return check_log(facts, options);
    CheckOptions o = options;
    o.from = beside;
    o.command_origin = beside + " (beside the log)";
    auto with = check_log(facts, o);
    if (with)
      return with;
    auto alone = check_log(facts, options);
    if (!alone)
      return with;  // the command file's own error says more than the log's
    alone->notes.push_back(
        fmt::format("{} beside the log was not used: {}", beside, with.message()));
    return alone;
  };
  if (files.size() == 1 && !std::filesystem::is_directory(inputs.front())) {
    const std::string& file = files.front();
    auto facts = read_log_file(file);
    if (!facts)
      return usage_error(facts.message());
    auto result = check_one(*facts, file);
    if (!result)
      return usage_error(file + ": " + result.message());
    if (json || reports.any()) {
      const nlohmann::json doc = check_to_json(file, *result);
      if (Status st = write_reports(reports, doc); !st)
        return usage_error(st.message());
      if (json)
        std::cout << doc.dump(2) << "\n";
    }
    if (!json) {
      std::cout << render_check_text(file, *result);
    }
    return result->ok() ? ExitStatus::kOk : ExitStatus::kFindings;
  }
  if (reports.any())
    return usage_error("check: --html and --markdown report one log; give one file");
  std::vector<CheckRow> rows;
  bool all_ok = true;
  for (const std::string& file : files) {
    CheckRow row;
    row.file = file;
    auto facts = read_log_file(file);
    if (!facts) {
      row.error = facts.message();
      rows.push_back(std::move(row));
      continue;
    }
    row.engine = std::string(facts->engine());
    if (auto engine = find_engine(row.engine)) {
      if (auto ls = (*engine)->scenario_from_log(facts->all()))
        row.stated = ls->figures.size();
    }
    auto result = check_one(*facts, file);
    if (result) {
      all_ok = all_ok && result->ok();
      row.result = std::move(*result);
    } else {
      row.error = result.message();
    }
    rows.push_back(std::move(row));
  }
  if (json)
    std::cout << check_table_to_json(rows).dump(2) << "\n";
  else
    std::cout << render_check_table(rows);
  return all_ok ? ExitStatus::kOk : ExitStatus::kFindings;
}

}  // namespace servescope
