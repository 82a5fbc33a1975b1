#include "engines/sglang/sglang_engine.h"

#include "core/text.h"
#include "engines/sglang/sglang_command.h"
#include "engines/sglang/sglang_flags.h"
#include "engines/sglang/sglang_hypotheses.h"
#include "engines/sglang/sglang_lint.h"
#include "engines/sglang/sglang_log_grammar.h"
#include "engines/sglang/sglang_log_scenario.h"
#include "engines/sglang/sglang_planner.h"
#include "engines/sglang/sglang_rules.h"
#include "engines/sglang/sglang_twin_profile.h"

namespace servescope::sglang {

bool SglangEngine::launches(const std::vector<std::string>& words) const {
  return launches_sglang(words);
}

Result<EngineVersion> SglangEngine::resolve_version(std::string_view spec) const {
  return resolve_sglang_version(spec);
}

Result<LaunchCommand> SglangEngine::parse_command(const std::vector<std::string>& words) const {
  auto parsed = parse_sglang_command(words);
  if (!parsed)
    return parsed.error();
  return std::move(parsed->command);
}

std::string SglangEngine::model_path(const LaunchCommand& command) const {
  const FlagSetting* f = command.find("--model-path");
  return f == nullptr ? std::string() : f->value();
}

int SglangEngine::gpus_needed(const LaunchCommand& command) const {
  auto get = [&](const char* name) {
    const FlagSetting* f = command.find(name);
    return f == nullptr ? 1 : static_cast<int>(parse_int(f->value()).value_or(1));
  };
  const FlagSetting* dpa = command.find("--enable-dp-attention");
  const int nnodes = get("--nnodes");
  // With DP attention the DP ranks live inside the TP group; otherwise DP replicates it.
  const int world = get("--tp-size") * get("--pp-size") * (dpa != nullptr ? 1 : get("--dp-size"));
  return std::max(1, world / std::max(1, nnodes));
}

std::vector<Finding> SglangEngine::lint(const Scenario& scenario, const Plan& plan) const {
  return lint_sglang(scenario, plan);
}

std::vector<ScenarioChange> SglangEngine::candidate_changes(const Scenario& scenario) const {
  return sglang_candidate_changes(scenario);
}

Result<LogScenario> SglangEngine::scenario_from_log(const std::vector<Fact>& facts) const {
  return sglang_scenario_from_log(facts);
}

std::vector<Finding> SglangEngine::check_log_consistency(const std::vector<Fact>& facts) const {
  return sglang_log_consistency(facts);
}

std::vector<NumericInput> SglangEngine::numeric_inputs(const Scenario& scenario) const {
  return sglang_numeric_inputs(scenario);
}

Result<Plan> SglangEngine::plan(const Scenario& scenario) const {
  // Re-parse for the notes (ambiguous or removed flags): the scenario keeps only the command.
  auto parsed = parse_sglang_command(scenario.command.words);
  std::vector<ParseNote> notes;
  if (parsed)
    notes = parsed->notes;
  return plan_sglang(scenario, notes);
}

std::vector<std::string> SglangEngine::setting_names() const {
  return {"attention_backend.resolved",
          "flashinfer_allreduce_fusion_backend.resolved",
          "cuda_graph_backend_prefill.resolved",
          "mamba_radix_cache_strategy.resolved",
          "page_size.resolved",
          "kv_cache_dtype.resolved",
          "speculative_num_draft_tokens.resolved"};
}

FlagEffect SglangEngine::flag_effect(const std::string& canonical) const {
  const FlagSpec* spec = find_capacity_flag(canonical);
  if (spec == nullptr) {
    return {"",
            "not modelled: servescope knows no sizing effect of it (it is kept and reported, not "
            "dropped)"};
  }
  return {"arg." + spec->field, spec->runtime_effect};
}

std::vector<std::string> SglangEngine::output_names() const {
  return {"max_total_num_tokens",
          "max_running_requests",
          "max_mamba_cache_size",
          "mem_fraction_static",
          "chunked_prefill_size",
          "cuda_graph_max_bs",
          "cuda_graph_bs",
          "context_len",
          "kv_cell_bytes",
          "mamba_ratio",
          "mamba_state_bytes_per_request"};
}

const TwinProfile* SglangEngine::twin_profile() const {
  return &sglang_twin_profile();
}

std::unique_ptr<LogGrammar> SglangEngine::log_grammar() const {
  return std::make_unique<SglangLogGrammar>();
}

}  // namespace servescope::sglang
