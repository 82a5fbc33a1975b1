// The Engine interface: everything outside engines/ talks to an engine through this.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/fit_knobs.h"
#include "engines/launch_command.h"
#include "engines/log_grammar.h"
#include "engines/plan.h"
#include "engines/scenario.h"
#include "engines/scenario_change.h"
#include "intake/launch_input.h"

namespace servescope {

/// What a flag does, for `diff`'s verdict on a change that moves no output.
struct FlagEffect {
  std::string leaf_id;         // the derivation leaf that holds the flag ("" if no rule reads it)
  std::string runtime_effect;  // what it does outside sizing, one sentence ("" if unknown)
};

/// One figure a log states, and the plan output it checks.
struct LoggedFigure {
  std::string output;  // plan output node id, e.g. "max_running_requests"
  Value value;
  std::uint64_t line = 0;
  std::string raw;             // the log line
  bool from_defaults = false;  // predicted from the typed command (the engine's defaults), not
                               // from the settings the log shows resolved
  // Non-empty: the prediction from this log bounds the figure from above, and why (the log
  // shows some ranks or stages, the engine takes the minimum over all of them).
  std::string bounded_above;
  // Half the last printed digit of a figure the log rounds ("105.87 GiB" → 0.005): the
  // prediction matches when it rounds to the logged value.
  double printed_half_step = 0;
};

/// What a log lets `check` rebuild: the commands to plan, the model, GPU and calibration, and
/// the figures to compare.
struct LogScenario {
  std::vector<std::string> capacity_command;  // every setting the log shows resolved, as flags
  std::vector<std::string> defaults_command;  // the launch command as typed (or the log's
                                              // settings minus those the engine derives)
  bool typed_command_known = false;           // the log printed the launch command
  // The log shows every setting (SGLang's server_args dump): a flag it does not show is unset
  // in the run, not unknown.
  bool settings_complete = false;
  std::string model_path;
  std::string gpu_name;     // "" when the log does not name the GPU
  Calibration calibration;  // the memory figures the log states
  // Half the last printed digit of each calibration figure ("64.60 GB" → 0.005), by
  // calibration_field name; check evaluates the plan at every corner of these intervals.
  std::map<std::string, double> rounding_gib;
  // Further below the rounding, by calibration field: the engine may have used a value this much
  // lower than the one logged (SGLang's minimum over ranks the log does not show), said in
  // `inferred`.
  std::map<std::string, double> below_gib;
  std::map<std::string, std::uint64_t> calibration_lines;  // where each figure was read
  bool calibration_complete = false;  // enough figures for the engine's capacity rules
  std::vector<LoggedFigure> figures;
  std::vector<std::string> missing;  // what the log lacks, for the "unusable" message
  // What the launch command pasted in the log sets besides flags: its environment
  // (CUDA_VISIBLE_DEVICES=0,2 SGLANG_... before the program, `docker run -e`), read by the
  // intake rules, and where it was read ("log line 3").
  std::map<std::string, std::string> environment;
  std::string launch_origin;
  // A log that names no GPU and prints no total or free memory can still bound the device's
  // memory from below (vLLM: weights + KV cache fit in gpu_memory_utilization × total); check
  // then narrows the GPU to the catalog's smallest class that holds it.
  std::optional<double> memory_at_least_gib;
  std::string memory_at_least_why;
  // Facts the log implies but does not state, each with what it was inferred from; check marks
  // the figures it compares under them.
  std::vector<std::string> inferred;
};

/// A numeric input `why` can solve for: the value that reproduces an observation.
struct NumericInput {
  std::string subject;  // canonical flag
  std::string spelled;  // how to type it
  double lo = 0;
  double hi = 0;
  bool integer = false;
};

class Engine {
 public:
  virtual ~Engine() = default;

  virtual std::string_view name() const = 0;
  /// Whether a command's words launch this engine ("python -m sglang.launch_server ...").
  virtual bool launches(const std::vector<std::string>& words) const = 0;
  /// The command a container image runs when it is this engine's own image and its
  /// entrypoint is the server ("vllm/vllm-openai:v0.10.1.1" → vllm serve); else empty.
  virtual std::vector<std::string> image_entrypoint(std::string_view /*image*/) const { return {}; }
  /// The words that start this engine's server ("vllm serve"): what a file of flags alone, or
  /// a log that shows no command, stands on.
  virtual std::vector<std::string> program() const = 0;
  /// Resolves "" (newest modelled), a release ("0.5.15") or a main-branch date ("2026-05-01").
  virtual Result<EngineVersion> resolve_version(std::string_view spec) const = 0;
  /// Parses a launch command; bad values are errors naming the flag.
  virtual Result<LaunchCommand> parse_command(const std::vector<std::string>& words) const = 0;
  /// The model path the command names (--model-path / positional), or "".
  virtual std::string model_path(const LaunchCommand& command) const = 0;
  /// The separate drafter model the command names for speculative decoding, or "".
  virtual std::string draft_model_path(const LaunchCommand& /*command*/) const { return {}; }
  /// Whether this engine's rules model its CPU platform (--gpu cpu).
  virtual bool models_cpu_platform() const { return false; }
  /// GPUs per node the command's parallelism needs.
  virtual int gpus_needed(const LaunchCommand& command) const = 0;
  /// Computes the plan. Never throws; a scenario the engine would refuse becomes a plan
  /// with starts=false, and bad input an error.
  virtual Result<Plan> plan(const Scenario& scenario) const = 0;
  /// Capacity outputs this engine's plans carry, for `explain` and `why` validation.
  virtual std::vector<std::string> output_names() const = 0;
  /// Resolved settings worth comparing between scenarios (backends chosen, features the
  /// engine turned on or off): derivation node ids. Default: none.
  virtual std::vector<std::string> setting_names() const { return {}; }

  /// Findings about a command beyond the plan's own: flags this GPU or version lacks, flags
  /// that do nothing for this model, values the engine overrides, contradictions (`lint`).
  virtual std::vector<Finding> lint(const Scenario& /*scenario*/, const Plan& /*plan*/) const {
    return {};
  }
  /// The derivation leaf of a flag and its runtime effect (`diff`'s "cleared" reasons).
  virtual FlagEffect flag_effect(const std::string& /*canonical*/) const { return {}; }
  /// Plausible single changes to a scenario — each modelled flag over its meaningful values,
  /// each dated rule variant — for `why`'s hypothesis search.
  virtual std::vector<ScenarioChange> candidate_changes(const Scenario& /*scenario*/) const {
    return {};
  }
  /// Rebuilds a scenario from a log's facts (`check`, `--calibrate-from`).
  virtual Result<LogScenario> scenario_from_log(const std::vector<Fact>& /*facts*/) const {
    return fail(std::string(name()) + ": rebuilding a scenario from a log is not modelled");
  }
  /// Checks a log against itself: batch lines running more than the limit, a typed limit the
  /// final line contradicts, graphs captured beyond the running limit.
  virtual std::vector<Finding> check_log_consistency(const std::vector<Fact>& /*facts*/) const {
    return {};
  }
  /// Numeric flags `why` solves for (a fraction, a pool size, a request limit).
  virtual std::vector<NumericInput> numeric_inputs(const Scenario& /*scenario*/) const {
    return {};
  }
  /// A fresh grammar for reading one of this engine's logs (engines/log_grammar.h), or
  /// nullptr while the engine has none.
  virtual std::unique_ptr<LogGrammar> log_grammar() const { return nullptr; }
  /// How the engine behaves when the twin plays it (engines/twin_profile.h), or nullptr
  /// while the engine has none.
  virtual const class TwinProfile* twin_profile() const { return nullptr; }
  /// How a load generator reads this engine's server (engines/client_profile.h), or nullptr.
  virtual const struct ClientProfile* client_profile() const { return nullptr; }
  /// The flags and outputs `fit` searches (engines/fit_knobs.h), or nullptr while it has none.
  virtual const FitKnobs* fit_knobs() const { return nullptr; }
};

/// All engines servescope models.
const std::vector<std::unique_ptr<Engine>>& engines();
/// The engine named `name`, or an error listing the modelled engines.
Result<const Engine*> find_engine(std::string_view name);
/// What the intake layer asks of the engines: which words launch one (only `engine`, when
/// given) and which images run one by their entrypoint.
LaunchRecognizer launch_recognizer(const Engine* engine = nullptr);
/// The engine whose launch program the command uses, or an error.
Result<const Engine*> engine_for_command(const std::vector<std::string>& words);

}  // namespace servescope
