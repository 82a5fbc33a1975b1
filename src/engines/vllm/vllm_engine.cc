#include "engines/vllm/vllm_engine.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "engines/vllm/vllm_command.h"
#include "engines/vllm/vllm_log_grammar.h"
#include "engines/vllm/vllm_log_scenario.h"
#include "engines/vllm/vllm_planner.h"
#include "engines/vllm/vllm_rules.h"

namespace servescope::vllm {

bool VllmEngine::launches(const std::vector<std::string>& words) const {
  return launches_vllm(words);
}

// The project's images (vllm/vllm-openai, and the CPU and ROCm builds beside it) run
// `vllm serve` as their entrypoint (docker/Dockerfile: ENTRYPOINT ["vllm", "serve"]).
std::vector<std::string> VllmEngine::image_entrypoint(std::string_view image) const {
  const auto slash = image.rfind('/');
  const std::string_view name = image.substr(slash == std::string_view::npos ? 0 : slash + 1);
  if (name.rfind("vllm-openai", 0) == 0 || name.rfind("vllm-cpu", 0) == 0 ||
      image.rfind("vllm/", 0) == 0 || image.find("/vllm/") != std::string_view::npos)
    return {"vllm", "serve"};
  return {};
}

Result<EngineVersion> VllmEngine::resolve_version(std::string_view spec) const {
  return resolve_vllm_version(spec);
}

Result<LaunchCommand> VllmEngine::parse_command(const std::vector<std::string>& words) const {
  auto parsed = parse_vllm_command(words);
  if (!parsed)
    return parsed.error();
  return std::move(parsed->command);
}

std::string VllmEngine::model_path(const LaunchCommand& command) const {
  const FlagSetting* f = command.find("--model");
  return f == nullptr ? std::string() : f->value();
}

// --speculative-config's "model": an EAGLE/EAGLE3 head or a draft model with a config.json of
// its own (config/speculative.py::SpeculativeConfig.model).
std::string VllmEngine::draft_model_path(const LaunchCommand& command) const {
  const FlagSetting* f = command.find("--speculative-config");
  if (f == nullptr)
    return {};
  const auto j = nlohmann::json::parse(f->value(), nullptr, false);
  if (!j.is_object())
    return {};
  const auto model = j.find("model");
  return model != j.end() && model->is_string() ? model->get<std::string>() : std::string();
}

int VllmEngine::gpus_needed(const LaunchCommand& command) const {
  auto get = [&](const char* name) {
    const FlagSetting* f = command.find(name);
    return f == nullptr ? 1 : static_cast<int>(parse_int(f->value()).value_or(1));
  };
  // Each DP rank runs its own TP × PP group; --nnodes spreads them over nodes.
  const int world =
      get("--tensor-parallel-size") * get("--pipeline-parallel-size") * get("--data-parallel-size");
  return std::max(1, world / std::max(1, get("--nnodes")));
}

Result<Plan> VllmEngine::plan(const Scenario& scenario) const {
  // Re-parse against the resolved version's surface for its notes (unknown or ambiguous flags).
  auto parsed = parse_vllm_command(scenario.command.words, scenario.version.main_date);
  std::vector<ParseNote> notes;
  if (parsed)
    notes = parsed->notes;
  return plan_vllm(scenario, notes);
}

std::vector<std::string> VllmEngine::output_names() const {
  return vllm_output_names();
}

std::unique_ptr<LogGrammar> VllmEngine::log_grammar() const {
  return std::make_unique<VllmLogGrammar>();
}

Result<LogScenario> VllmEngine::scenario_from_log(const std::vector<Fact>& facts) const {
  return vllm_scenario_from_log(facts);
}

std::vector<Finding> VllmEngine::check_log_consistency(const std::vector<Fact>& facts) const {
  return vllm_log_consistency(facts);
}

}  // namespace servescope::vllm
