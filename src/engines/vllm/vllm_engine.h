// The vLLM engine pack behind the Engine interface.
#pragma once

#include "engines/engine.h"

namespace servescope::vllm {

class VllmEngine final : public Engine {
 public:
  std::string_view name() const override { return "vllm"; }
  bool models_cpu_platform() const override { return true; }
  std::vector<std::string> program() const override { return {"vllm", "serve"}; }
  bool launches(const std::vector<std::string>& words) const override;
  std::vector<std::string> image_entrypoint(std::string_view image) const override;
  Result<EngineVersion> resolve_version(std::string_view spec) const override;
  Result<LaunchCommand> parse_command(const std::vector<std::string>& words) const override;
  std::string model_path(const LaunchCommand& command) const override;
  std::string draft_model_path(const LaunchCommand& command) const override;
  int gpus_needed(const LaunchCommand& command) const override;
  Result<Plan> plan(const Scenario& scenario) const override;
  std::vector<std::string> output_names() const override;
  std::unique_ptr<LogGrammar> log_grammar() const override;
  Result<LogScenario> scenario_from_log(const std::vector<Fact>& facts) const override;
  std::vector<Finding> check_log_consistency(const std::vector<Fact>& facts) const override;
  const TwinProfile* twin_profile() const override;
  const ClientProfile* client_profile() const override;
  const FitKnobs* fit_knobs() const override;
};

}  // namespace servescope::vllm
