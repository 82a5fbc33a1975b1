// The dated rule variants of vLLM's capacity derivation (docs/research/vllm-capacity.md §12). A
// variant is the set of switches in force on a main-branch date: the oldest modelled behaviour with
// every change point up to that date applied. A release maps to the main date its branch was cut
// from (data/vllm/releases.csv).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/scenario.h"
#include "engines/shared_sysmem.h"

namespace servescope::vllm {

/// Whether the CUDA-graph memory estimate G is computed and subtracted (V2.3).
enum class CudaGraphProfiling {
  kAbsent,     // before 2026-03-07: no estimate
  kOptIn,      // 2026-03-07 (#30515): estimated, subtracted only with the env var set to 1
  kDefaultOn,  // 2026-04-21 (#38284): the env var defaults to 1
};

/// How "GPU KV cache size: N tokens" is computed (V5.2).
enum class KvTokensFormula {
  kBlocksPerGroup,       // num_blocks // num_groups × min_block_size (× dcp·pcp)
  kConcurrencyTimesLen,  // int(max_concurrency × max_model_len) (#41069, 2026-04-28)
};

/// When allreduce+RMSNorm fusion is on by default at O2/O3 (V8.1).
enum class FusionDefault {
  kOptIn,           // before 2026-02-11: never by default
  kSm90Plus,        // 2026-02-11 (#34299): TP > 1 and SM ≥ 9.0
  kSm90Or100,       // 2026-02-15 (#34392): SM 9.0 or 10.0, DP = 1
  kSm90Or10xFamily  // 2026-03-22 (#37755): SM 9.0 or the 10.x family
};

struct VllmRules {
  std::string from_date;   // first main date of this variant
  std::string changed_by;  // the change that started it ("" for the oldest)
  std::string description;

  double default_gpu_memory_utilization = 0.92;  // 0.9 before #38284
  CudaGraphProfiling cudagraph_profiling = CudaGraphProfiling::kDefaultOn;
  KvTokensFormula kv_tokens = KvTokensFormula::kConcurrencyTimesLen;
  bool override_rewrites_memory = true;        // #41069: the override also sizes the fit check
  double hybrid_group_threshold = 1.5;         // 1.25 before #36684
  bool full_and_piecewise_default = true;      // #25444; PIECEWISE before
  bool optimization_levels = true;             // #26847: -O is O0..O3; a compilation level before
  bool capture_step16_from_256 = true;         // #26016: sizes step 16 from 256 (8 before)
  bool spec_aware_capture_sizes = true;        // #30330: max capture size × (1 + k)
  bool capture_max_num_batched_tokens = true;  // #40734: the token budget itself is captured
  FusionDefault fusion = FusionDefault::kSm90Or10xFamily;
  bool fusion_needs_dp1 = false;  // #34392 … #41458
  bool fusion_needs_pp1 = false;  // #35424 … #41458
  // After main 2026-05-27 (docs/research/currency-2026-12.md §2.2, read in git to 2026-08-20).
  bool hybrid_prefix_caching_default = true;  // V6, 2026-08-04 (#50991): on for hybrids (align)
  bool capture_1024_on_sm10x = true;          // V15, 2026-08-07 (#49390)
  bool drafting_slots_cut_budget = false;     // V16: until 2026-08-10 (#51725)
  bool tier_160gib = true;                    // V17, 2026-08-11 (#51726): 16384 / 1024
  bool hybrid_align_to_block_size = true;     // first in 0.20.0 (wheel grep)
  bool gdn_checkpoint_alignment = true;       // first in 0.33.0 (wheel grep)
  bool fit_leaves_null_block = true;          // V19, 2026-08-17 (#52216)
  bool in_flight_batches = true;  // first in 0.30.0 (wheel diff): SW keeps every in-flight batch
  // V2.1: which GPUs' free memory is psutil's (engines/shared_sysmem.h): by SM from 0.11.1,
  // torch's is_integrated from 0.20.0 (#35356); dated by the wheels.
  SystemMemoryAsFree system_memory_as_free = SystemMemoryAsFree::kIsIntegrated;
  // First in 0.33.0 (wheel grep): NVML's NotSupported total on an integrated GPU falls back to
  // torch's total_memory, and get_batch_defaults keeps GB10 (SM 12.1) on the small tier.
  bool nvml_total_fallback = true;
  // CacheConfig.DEFAULT_BLOCK_SIZE, the block a backend is given unless it prefers another:
  // 64 from 0.34.0 (wheel diff and oracle), 16 before.
  std::int64_t default_block_size = 64;
  // First in 0.34.0 (wheel diff): the extensible KV cache, on by default on CUDA and ROCm, is
  // sized from the memory measured after warmup; an unset utilization resolves to 1.0.
  bool extensible_kv_cache = true;
  // First in 0.34.0 (wheel diff, oracle): prefill and decode CUDA-graph sizes resolved apart
  // (SM100's wider grids, drafters' FULL decode graphs), recorded as their union.
  bool split_capture_sizes = true;
};

/// One change on vLLM main, applied on top of the variant before it.
struct ChangePoint {
  std::string date;
  std::string pr;
  std::string what;
  std::function<void(VllmRules&)> apply;
};

/// Every modelled change point, oldest first.
const std::vector<ChangePoint>& change_points();
/// The rule variant in force on a main-branch date ("YYYY-MM-DD").
VllmRules rules_for_date(std::string_view date);

/// The newest main date modelled (docs/research/vllm-capacity.md §0: 52a31ccec, 2026-05-27).
std::string_view newest_modelled_date();

/// One row of data/vllm/releases.csv: a release and the main date its branch was cut from.
struct VllmRelease {
  std::string name;  // "0.19.0"
  std::string date;  // "2026-03-29"
  std::string evidence;
};
/// The release table, oldest first.
const std::vector<VllmRelease>& vllm_releases();

/// Resolves "" (newest), a release ("0.19.0", "v0.19.0") or a date ("2026-05-01").
Result<EngineVersion> resolve_vllm_version(std::string_view spec);

}  // namespace servescope::vllm
