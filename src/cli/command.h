// The subcommand table: one entry per `servescope NAME`, each in its own file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace servescope {

enum class ExitStatus { kOk = 0, kFindings = 1, kUsage = 2, kInterrupted = 130 };

/// What a subcommand receives: its own arguments (before `--`) and the launch command
/// (after `--`, exactly as typed).
struct CommandArgs {
  std::vector<std::string> options;
  std::vector<std::string> launch_command;
  bool had_separator = false;
};

struct Command {
  std::string_view name;
  std::string_view summary;
  ExitStatus (*run)(const CommandArgs& args);
};

const std::vector<Command>& commands();

/// Prints "servescope: error: MESSAGE" on stderr and returns kUsage.
ExitStatus usage_error(std::string_view message);

ExitStatus run_plan(const CommandArgs& args);
ExitStatus run_explain(const CommandArgs& args);
ExitStatus run_lint(const CommandArgs& args);
ExitStatus run_diff(const CommandArgs& args);
ExitStatus run_why(const CommandArgs& args);
ExitStatus run_fit(const CommandArgs& args);
ExitStatus run_check(const CommandArgs& args);
ExitStatus run_logs(const CommandArgs& args);
ExitStatus run_gpus(const CommandArgs& args);
ExitStatus run_models(const CommandArgs& args);
ExitStatus run_simulate(const CommandArgs& args);
ExitStatus run_twin(const CommandArgs& args);
ExitStatus run_bisect(const CommandArgs& args);
ExitStatus run_bench(const CommandArgs& args);
ExitStatus run_report(const CommandArgs& args);

}  // namespace servescope
