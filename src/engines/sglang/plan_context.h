// State shared by the SGLang rule functions while one plan is computed: the scenario, the
// rule variant, the derivation graph, and the ServerArgs values resolved so far.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engines/plan.h"
#include "engines/scenario.h"
#include "engines/sglang/sglang_inputs.h"
#include "engines/sglang/sglang_rules.h"

namespace servescope::sglang {

/// ServerArgs after __post_init__: what SGLang resolved from the flags and defaults.
struct ResolvedArgs {
  std::int64_t tp = 1, pp = 1, dp = 1, ep = 1, nnodes = 1;
  bool dp_attention = false;
  std::int64_t attn_dp = 1;  // attn_dp_size: dp with --enable-dp-attention, else 1
  std::int64_t attn_tp = 1;  // attn_tp_size: tp / attn_dp

  double gpu_memory_mib = 0;
  std::int64_t chunked_prefill_size = 0;        // -1: disabled; before the DP-attention division
  std::int64_t chunked_prefill_size_final = 0;  // after it (what the server uses and logs)
  std::int64_t max_prefill_tokens = 16384;
  std::int64_t context_len = 0;
  std::optional<std::int64_t> max_total_tokens;
  std::int64_t page_size = 1;

  std::string decode_graph_backend = "full";
  std::string prefill_graph_backend = "breakable";
  std::int64_t decode_max_bs = 0;
  std::vector<std::int64_t> decode_bs;
  std::int64_t prefill_max_bs = 0;
  std::vector<std::int64_t> prefill_bs;
  bool prefill_max_bs_typed = false;  // --cuda-graph-max-bs-prefill (or its config) was given
  bool prefill_bs_typed = false;

  bool uses_mla = false;
  bool multimodal = false;
  bool language_only = false;
  std::string disaggregation_mode = "null";
  std::string moe_a2a_backend = "none";

  std::string speculative_algorithm;  // "" when off; NEXTN is read as EAGLE
  std::int64_t speculative_steps = 0, speculative_topk = 0, speculative_draft_tokens = 0;
  std::optional<std::int64_t> max_running_requests;  // user value, or 48 for speculative decoding

  bool disable_radix_cache = false;
  bool disable_overlap_schedule = false;
  bool hybrid_linear = false;  // mambaish_config is not None
  std::string mamba_strategy;  // resolved mamba_radix_cache_strategy
  std::string linear_attn_backend = "triton";
  double mamba_full_memory_ratio = 0.9;
  std::optional<std::int64_t> max_mamba_cache_size;  // user value
  std::string mamba_ssm_dtype = "float32";

  std::string kv_cache_dtype = "bfloat16";  // resolved element type
  double kv_bytes = 2;
  std::string attention_backend;
  std::string fusion_backend;  // flashinfer_allreduce_fusion_backend after resolution, "" if off

  bool speculative() const { return !speculative_algorithm.empty(); }
};

struct PlanContext {
  const Scenario& scenario;
  const RuleVariant& variant;
  const SglangRules& rules;
  Plan& plan;
  SglangInputs& in;
  ResolvedArgs args;

  Derivation& graph() { return plan.graph; }
  void finding(Severity severity, std::string code, std::vector<std::string> flags,
               std::string message, std::string rule, std::string source) {
    plan.findings.push_back({severity, std::move(code), std::move(flags), std::move(message),
                             std::move(rule), std::move(source)});
  }
  /// The flag as typed that set `field`, or "" when it was not typed.
  std::string typed(std::string_view field) const {
    const FlagSetting* f = in.setting_for(field);
    return f == nullptr ? std::string() : f->as_typed();
  }
  void resolved(std::string name, std::string typed_value, std::string resolved_value,
                std::string why) {
    plan.resolved.push_back(
        {std::move(name), std::move(typed_value), std::move(resolved_value), std::move(why)});
  }
};

}  // namespace servescope::sglang
