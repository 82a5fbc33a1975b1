// Builds a Scenario from the common scenario options and the launch command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine.h"
#include "engines/scenario.h"
#include "intake/launch_input.h"

namespace servescope {

/// The common scenario options (ARCHITECTURE.md, "Command-line contract"), as typed.
struct ScenarioOptions {
  std::string engine;  // "sglang", "sglang@0.5.15", "" = inferred from the command
  std::string gpu;
  std::optional<int> gpus;
  std::string model;
  std::string calibrate_from;  // a log whose memory figures (and GPU name) calibrate the plan
  std::optional<double> free_before_load_gib;
  std::optional<double> free_after_load_gib;
  // Memory-profile calibration (engines/scenario.h Calibration), GiB.
  std::optional<double> total_memory_gib;
  std::optional<double> weights_gib;
  std::optional<double> activation_peak_gib;
  std::optional<double> non_torch_gib;
  std::optional<double> cuda_graph_gib;
  std::optional<double> kv_memory_gib;
  std::vector<std::string> env;      // K=V
  std::vector<std::string> command;  // words after -- (or one word holding a whole command)
  std::string from;                  // --from FILE: a script, unit, compose file or manifest
};

struct BuiltScenario {
  Scenario scenario;
  const Engine* engine = nullptr;
};

/// The launch command of the options (--from FILE, or the words after --) as the intake
/// layer reads it: the engine's argv, its environment, GPUs and provenance. `engine` narrows
/// what counts as a launch (nullptr: any modelled engine).
Result<LaunchInput> read_launch_input(const ScenarioOptions& options, const Engine* engine);

/// Fails with one line naming the option and the fix (unknown GPU, missing model, bad
/// calibration values, a command no engine launches).
Result<BuiltScenario> build_scenario(const ScenarioOptions& options);

}  // namespace servescope
