// `check`: rebuild the scenario a log came from, predict, and hold each logged figure against
// the prediction. Logged free memory is rounded (0.01 GB), so a prediction is an interval:
// the plan at both ends of the rounding (capacity grows with free memory after the load and
// shrinks with free memory before it); a figure rounding cannot move must match exactly.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "diagnose/scenario_builder.h"
#include "engines/engine.h"
#include "evidence/log_facts.h"

namespace servescope {

struct CheckOptions {
  std::string engine;  // "sglang" or "sglang@VERSION"; the version given wins over inference
  std::string gpu;
  std::string model;
  std::vector<std::string> env;
  std::vector<std::string> command;  // the launch command given after --
  std::string from;                  // --from FILE: the launch command (or flags, or env) in a file
  std::string command_origin;        // names the command in the output ("run.cmd beside the log")
  std::optional<int> tp;             // --tp N: the tensor parallelism, when the log does not say
  std::optional<int> gpus;           // --gpus N: GPUs per node
};

// A figure's prediction over the intervals of the estimates it rests on.
struct EstimatedPrediction {
  std::vector<std::string> estimates;  // the estimate nodes it rests on
  std::optional<double> low, high;     // unset: no interval (note says why)
  bool within = false;                 // the logged value lies inside [low, high]
  std::string note;
};

struct Comparison {
  std::string field;
  Value logged;
  Value predicted;
  std::optional<double> predicted_low, predicted_high;
  bool checked = true;  // false: the scenario lacks what the prediction needs (see note)
  bool match = false;
  std::string note;
  std::uint64_t log_line = 0;
  std::string log_raw;
  bool from_defaults = false;
  bool bound = false;  // the prediction is an upper bound: match means logged ≤ predicted
  // For a figure not checked: the input that would check it and the option that supplies it
  // ("--gpu NAME: the GPU's memory"); "" when no input of the user's would (not modelled).
  std::string needs;
  // A figure not checked because its prediction rests on estimates, still predicted: over the
  // intervals the estimates' own evidence spans (check_estimates.h), counted apart from checked.
  std::optional<EstimatedPrediction> estimated;
};

/// The options a user gives check, each with the unchecked figures it would check
/// ("--gpu NAME" → 3), over one or many results, most figures first.
std::vector<std::pair<std::string, std::size_t>> inputs_that_would_check(
    const std::vector<const Comparison*>& unchecked);

struct CheckResult {
  const Engine* engine = nullptr;
  LogScenario log;
  Scenario scenario;   // the capacity scenario (every setting the log shows resolved)
  Plan plan;           // its plan
  Plan defaults_plan;  // the plan of the typed (or default-only) command
  Scenario defaults_scenario;
  VersionInference inferred;
  std::string version_basis;
  std::vector<std::string> notes;
  std::vector<Comparison> comparisons;
  std::vector<Finding> consistency;
  bool gpu_known = true;
  bool command_given = false;       // the user gave a launch command (after --, --from, or beside)
  std::string command_origin;       // where it came from
  bool defaults_assumed = false;    // no settings anywhere: the engine's defaults with --model
  std::vector<std::string> filled;  // settings the user's input supplied
  std::vector<std::string> contradictions;  // where it disagrees with the log (the log wins)
  std::vector<std::string> inferences;      // facts the log implies but does not state, and why

  std::size_t matched() const;
  std::size_t mismatched() const;
  std::size_t unchecked() const;
  std::size_t predicted() const;          // not checked, predicted over estimates' intervals
  std::size_t predicted_outside() const;  // of those, logged outside the interval
  bool ok() const;
};

/// Fails (the log is unusable for a check) with one line naming what is missing.
Result<CheckResult> check_log(const LogFacts& facts, const CheckOptions& options);

/// The scenario of the run a log file records, rebuilt as `check` does (`diff --a-log`).
/// Fails with "PATH: why".
Result<BuiltScenario> scenario_of_log_file(const std::string& path, const CheckOptions& options);

}  // namespace servescope
