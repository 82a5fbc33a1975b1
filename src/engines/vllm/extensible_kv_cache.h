// V2.9: vLLM 0.34's extensible KV cache: whether it is on, the utilization it resolves, and the
// size measured after warmup (extensible_kv_cache.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/vllm/plan_context.h"

namespace servescope::vllm {

/// Settles enable_extensible_kv_cache and gpu_memory_utilization (1.0 when the cache is measured
/// and no utilization is typed). Fails as vLLM does when the flag is typed where unsupported.
Status resolve_extensible_kv_cache(PlanContext& ctx);

/// What measure_kv_cache_bytes reads, in bytes: from a 0.34 log's 'Memory after warmup' line or
/// estimated.
struct MeasuredKvInputs {
  double free_at_startup_bytes = 0;    // F0: the init snapshot's free memory
  double free_after_warmup_bytes = 0;  // F1: free after warmup, graphs and empty_cache
  double committed_bytes = 0;          // C: physical bytes warmup committed to the KV cache
  double requested_bytes = 0;          // R = ceil(T × utilization)
  double transient_peak_bytes = 0;     // P: the profiled or warmup activation peak
  double torch_growth_bytes = 0;       // Gr: torch's reservation growth over a sizing step
  bool estimated = true;
  std::vector<std::string> inputs;  // the graph nodes the estimate rests on
};

struct MeasuredKv {
  double bytes = 0;
  bool capped_by_utilization = false;
};

/// measure_kv_cache_bytes, with its derivation nodes and the utilization-cap warning.
MeasuredKv measure_kv_cache(PlanContext& ctx, const MeasuredKvInputs& in);

/// The memory profile's figures the measurement starts from when no log gives it (GiB).
struct ProfileFigures {
  double free_at_startup_gib = 0;
  double weights_gib = 0;
  double activation_gib = 0;
  double non_torch_gib = 0;
  double graph_pool_gib = 0;
  double requested_bytes = 0;
  std::string weights_id;
};

/// The measured KV bytes (node measured_kv_cache_bytes): from a 0.34 log's 'Memory after
/// warmup' figures when calibrated, else estimated from the profile's.
void resolve_measured_kv(PlanContext& ctx, const ProfileFigures& p);

/// ExtensibleKVCache.physical_bytes_for: each segment's blocks rounded up to the granule.
std::int64_t segment_bytes(std::int64_t blocks, const std::vector<std::int64_t>& strides,
                           std::int64_t granule);

/// ExtensibleKVCache.blocks_within: the most blocks (at most `capacity`) whose granule-rounded
/// segments fit in `bytes`.
std::int64_t blocks_within(std::int64_t bytes, const std::vector<std::int64_t>& strides,
                           std::int64_t capacity, std::int64_t granule);

}  // namespace servescope::vllm
