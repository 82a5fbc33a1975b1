// The phases of vLLM's capacity derivation (docs/research/vllm-capacity.md §13), each a rule
// function over the PlanContext, in the order vLLM runs them at startup.
#pragma once

#include "engines/vllm/plan_context.h"

namespace servescope::vllm {

/// V3.3: whether vLLM caches a latent-attention model's latent (DeepSeek-style MLA), or builds
/// its attention as plain attention of every head and caches those (trait vllm-caches-heads:
/// models/minicpm3.py MiniCPM3Attention is Attention(num_local_heads, qk_nope + qk_rope,
/// num_kv_heads=num_local_heads)).
inline bool caches_latent(const ModelShape& m) {
  return m.uses_mla() && !m.has_trait("vllm-caches-heads");
}

/// V2.5: the device total T the worker's memory snapshot sees (calibration, the device-total
/// table, or NVML total − 0.6 GiB as an estimate); records node device_total_memory_gib once.
double device_total_gib(PlanContext& ctx);

/// V1.1–V1.3, V6.1–V6.5, V9.3–V9.4: parallelism, max_model_len, chunked prefill and prefix
/// caching defaults, max_num_seqs / max_num_batched_tokens by GPU, speculative settings.
/// Fails for values vLLM's argument parser or config validation rejects outright.
Status resolve_engine_config(PlanContext& ctx);

/// V7.1–V7.3, V8.1: optimization level, compilation and cudagraph mode with the config-time
/// downgrades, capture sizes, and the allreduce+RMSNorm fusion default.
void resolve_compilation(PlanContext& ctx);

/// V3.2, V8.2, V3.1: the KV element type, the attention backend and its block size and
/// CUDA-graph support.
void resolve_attention(PlanContext& ctx);

/// V3.3–V3.6, V9.1–V9.2: the per-layer KV specs of one worker (drafter layers included) and
/// the hybrid attention/mamba block alignment.
void resolve_kv_specs(PlanContext& ctx);

/// V2.1–V2.8: requested memory, weights, activation peak, non-torch growth, the CUDA-graph
/// estimate, and the memory left for the KV cache (or --kv-cache-memory-bytes).
void resolve_memory_profile(PlanContext& ctx);

/// V4.1–V4.5, V5.1–V5.2: grouping, num_blocks, the fit check and auto-fit, the maximum
/// concurrency and the GPU KV cache size.
void resolve_kv_cache(PlanContext& ctx);

/// V7.4: the cudagraph mode after the attention backends' support check, and the hybrid
/// max_num_seqs ≤ num_blocks constraint of FULL graphs.
void resolve_runtime_cudagraphs(PlanContext& ctx);

/// The plan's KV arithmetic (V2.2, V4.2) in the engine-neutral account (engines/plan.h), for
/// the cross-engine diff. Leaves the account empty when no KV cache was sized.
void fill_capacity_account(PlanContext& ctx);

}  // namespace servescope::vllm
