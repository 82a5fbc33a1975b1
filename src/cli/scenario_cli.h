// Registers the common scenario options (ARCHITECTURE.md) on a CLI11 app and parses a
// subcommand's own arguments with one-line errors.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

#include "cli/command.h"
#include "diagnose/scenario_builder.h"

namespace servescope {

/// `model_option` names the model-config option: "--model" except where a command already
/// uses `--model` for something else (bench: the model name sent to the server).
void add_scenario_options(CLI::App& app, ScenarioOptions& options,
                          const std::string& model_option = "--model");

/// Parses `args.options` with `app`. Returns kOk to continue, or the status to exit with
/// (help printed: kOk is returned through `exit_now`).
std::optional<ExitStatus> parse_command_line(CLI::App& app, const CommandArgs& args);

}  // namespace servescope
