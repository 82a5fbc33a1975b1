// State shared by the vLLM rule functions while one plan is computed: the scenario, the rule
// variant, the derivation graph, and the engine config values resolved so far.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engines/plan.h"
#include "engines/scenario.h"
#include "engines/vllm/vllm_args.h"
#include "engines/vllm/vllm_rules.h"

namespace servescope::vllm {

/// VllmConfig after __post_init__: what vLLM resolved from the flags and defaults.
struct ResolvedArgs {
  std::int64_t tp = 1, pp = 1, dp = 1, dcp = 1, pcp = 1;
  bool expert_parallel = false;

  std::int64_t max_model_len = 0;
  bool auto_fit_max_model_len = false;  // --max-model-len -1 / auto
  double gpu_memory_utilization = 0.92;
  bool utilization_typed = false;
  // V2.9: the extensible KV cache (0.34.0+), sized after warmup from measured memory.
  bool extensible_kv_cache = false;
  std::optional<std::int64_t> kv_cache_memory_bytes;
  std::optional<std::int64_t> num_gpu_blocks_override;
  std::optional<std::int64_t> user_block_size;

  std::string cache_dtype = "auto";  // as typed
  std::string kv_dtype;              // resolved element type ("bfloat16", "fp8_e4m3", ...)
  double kv_bytes = 2;
  bool fp8_kv = false;

  bool prefix_caching = true;
  bool chunked_prefill = true;
  std::string mamba_cache_mode = "none";
  bool hybrid_kv_manager = true;  // !disable_hybrid_kv_cache_manager

  std::int64_t max_num_seqs = 0;
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t max_num_scheduled_tokens = 0;
  std::string performance_mode = "balanced";

  bool enforce_eager = false;
  int optimization_level = 2;
  bool compiled = true;                // compilation mode VLLM_COMPILE (else NONE)
  std::string cudagraph_mode;          // after the config-time rules (V7.1, V7.2)
  std::string runtime_cudagraph_mode;  // after the attention-support check (V7.4)
  std::vector<std::int64_t> capture_sizes;
  std::int64_t max_capture_size = 0;
  bool fuse_allreduce_rms = false;

  std::string spec_method;  // "" when off
  std::int64_t spec_k = 0;  // num_speculative_tokens
  int draft_layers = 0;     // drafter attention layers added to the KV cache

  std::string attention_backend;  // FLASH_ATTN, FLASHINFER, FLASH_ATTN_MLA, ...
  std::string cudagraph_support;  // ALWAYS, UNIFORM_BATCH, UNIFORM_SINGLE_TOKEN_DECODE, NEVER
  std::int64_t block_size = 16;

  bool speculative() const { return !spec_method.empty(); }
};

/// One attention or mamba layer's KV spec on one worker (vllm/v1/kv_cache_interface.py).
// kMlaIndexer: a sparse-attention indexer's key cache (MLAAttentionSpec, cache_role INDEXER).
enum class SpecKind { kFull, kSlidingWindow, kChunkedLocal, kMla, kMamba, kMlaIndexer };

struct LayerSpec {
  int layer = 0;  // index in the model (drafter layers follow the target's)
  SpecKind kind = SpecKind::kFull;
  std::int64_t block_size = 16;
  std::int64_t page_bytes = 0;   // page_size_bytes (padded where vLLM pads)
  std::int64_t window = 0;       // sliding window or attention chunk
  std::int64_t spec_blocks = 0;  // MambaSpec.num_speculative_blocks
  // MambaSpec.num_prefill_checkpoint_blocks: 1 for a layer exporting prefill checkpoints (V3.5b)
  std::int64_t checkpoint_blocks = 0;

  /// A key that is equal exactly when vLLM's spec dataclasses compare equal.
  std::string key() const;
};

struct PlanContext {
  const Scenario& scenario;
  const VllmRules& rules;
  Plan& plan;
  VllmArgs& in;
  ResolvedArgs args;
  std::vector<LayerSpec> specs;  // the whole model, per-rank shapes

  Derivation& graph() { return plan.graph; }
  void finding(Severity severity, std::string code, std::vector<std::string> flags,
               std::string message, std::string rule, std::string source) {
    plan.findings.push_back({severity, std::move(code), std::move(flags), std::move(message),
                             std::move(rule), std::move(source)});
  }
  void resolved(std::string name, std::string typed_value, std::string resolved_value,
                std::string why) {
    plan.resolved.push_back(
        {std::move(name), std::move(typed_value), std::move(resolved_value), std::move(why)});
  }
  /// Stops sizing: vLLM would raise at startup with `error`.
  void refuse(std::string error) {
    if (plan.starts) {
      plan.starts = false;
      plan.startup_error = std::move(error);
    }
  }
};

}  // namespace servescope::vllm
