// The Engine interface: everything outside engines/ talks to an engine through this.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/launch_command.h"
#include "engines/log_grammar.h"
#include "engines/plan.h"
#include "engines/scenario.h"

namespace servescope {

class Engine {
 public:
  virtual ~Engine() = default;

  virtual std::string_view name() const = 0;
  /// Whether a command's words launch this engine ("python -m sglang.launch_server ...").
  virtual bool launches(const std::vector<std::string>& words) const = 0;
  /// Resolves "" (newest modelled), a release ("0.5.15") or a main-branch date ("2026-05-01").
  virtual Result<EngineVersion> resolve_version(std::string_view spec) const = 0;
  /// Parses a launch command; bad values are errors naming the flag.
  virtual Result<LaunchCommand> parse_command(const std::vector<std::string>& words) const = 0;
  /// The model path the command names (--model-path / positional), or "".
  virtual std::string model_path(const LaunchCommand& command) const = 0;
  /// GPUs per node the command's parallelism needs.
  virtual int gpus_needed(const LaunchCommand& command) const = 0;
  /// Computes the plan. Never throws; a scenario the engine would refuse becomes a plan
  /// with starts=false, and bad input an error.
  virtual Result<Plan> plan(const Scenario& scenario) const = 0;
  /// Capacity outputs this engine's plans carry, for `explain` and `why` validation.
  virtual std::vector<std::string> output_names() const = 0;
  /// A fresh grammar for reading one of this engine's logs (engines/log_grammar.h), or
  /// nullptr while the engine has none.
  virtual std::unique_ptr<LogGrammar> log_grammar() const { return nullptr; }
  /// How the engine behaves when the twin plays it (engines/twin_profile.h), or nullptr
  /// while the engine has none.
  virtual const class TwinProfile* twin_profile() const { return nullptr; }
};

/// All engines servescope models.
const std::vector<std::unique_ptr<Engine>>& engines();
/// The engine named `name`, or an error listing the modelled engines.
Result<const Engine*> find_engine(std::string_view name);
/// The engine whose launch program the command uses, or an error.
Result<const Engine*> engine_for_command(const std::vector<std::string>& words);

}  // namespace servescope
