// The SGLang engine pack behind the Engine interface.
#pragma once

#include "engines/engine.h"

namespace servescope::sglang {

class SglangEngine final : public Engine {
 public:
  std::string_view name() const override { return "sglang"; }
  std::vector<std::string> program() const override {
    return {"python", "-m", "sglang.launch_server"};
  }
  bool launches(const std::vector<std::string>& words) const override;
  Result<EngineVersion> resolve_version(std::string_view spec) const override;
  Result<LaunchCommand> parse_command(const std::vector<std::string>& words) const override;
  std::string model_path(const LaunchCommand& command) const override;
  int gpus_needed(const LaunchCommand& command) const override;
  Result<Plan> plan(const Scenario& scenario) const override;
  std::vector<std::string> output_names() const override;
  std::vector<std::string> setting_names() const override;
  std::vector<Finding> lint(const Scenario& scenario, const Plan& plan) const override;
  FlagEffect flag_effect(const std::string& canonical) const override;
  std::vector<ScenarioChange> candidate_changes(const Scenario& scenario) const override;
  std::vector<NumericInput> numeric_inputs(const Scenario& scenario) const override;
  Result<LogScenario> scenario_from_log(const std::vector<Fact>& facts) const override;
  std::vector<Finding> check_log_consistency(const std::vector<Fact>& facts) const override;
  const TwinProfile* twin_profile() const override;
  const ClientProfile* client_profile() const override;
  const FitKnobs* fit_knobs() const override;
  std::unique_ptr<LogGrammar> log_grammar() const override;
};

}  // namespace servescope::sglang
