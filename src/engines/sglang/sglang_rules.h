// SGLang's capacity derivation over time. One rule pack, many switches: a variant is the
// baseline (Sep 2024) with every dated change point up to a main-branch date applied. Each
// change point names its date, the pull request and what it changed (the dates are main-branch
// commit dates, read from each pull request's merge). A release maps to the main date its branch
// was cut from (data/sglang/releases.csv), plus the cherry-picks the table lists.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/scenario.h"
#include "engines/shared_sysmem.h"

namespace servescope::sglang {

/// R2.5: how mem_fraction_static is chosen when --mem-fraction-static is not given.
enum class MemFractionRule {
  kTpTable,         // ≤ 2025-06-09: a table by tp size (with big-GPU refinements)
  kReserveByTier,   // 2025-06-10 … 2025-09-28 (#7054): a reserve by GPU memory tier
  kReserveFormula,  // ≥ 2025-09-29 (#10975/#11076): 512 + 1.5·activations + graphs + tp·pp/8 GiB
};

/// The big-GPU refinements of the tp table (2025-04-21 … 2025-06-09).
enum class BigGpuFraction {
  kNone,               // ≤ 2025-04-20
  kMinus13GibAbove80,  // 2025-04-21 (#5604): gpu > 81920 MiB → (gpu − 13 GiB)/gpu
  kCapAbove96,  // 2025-04-29 (#5893): table, then > 96 GiB: min(m + 48 GiB·(1−m)/gpu, (gpu − 18
                // GiB)/gpu)
  kTableUpTo80ThenCap,  // 2025-04-30 (#5724): table by tp·pp only ≤ 81920 MiB else 0.88, then the
                        // cap
};

/// R2.6: the prefill (piecewise) graph term of the reserve.
enum class PrefillGraphReserve {
  kNone,              // before 2025-11-10
  kMaxTokensDiv4,     // 2025-11-10 (#12996): + max_tokens // 4 after the floor, if enabled
  kMaxTokensDiv8,     // 2025-12-24 (#15700): + max_tokens // 8 after the floor, if enabled
  kSizesTimes8,       // 2026-01-10 (#15927): + len(sizes)·8 before the floor, if enabled
  kSizesTimes8OrMla,  // 2026-03-02 (#16331): MHA len(sizes)·8, MLA 1.5 GiB, if still enabled
};

/// R2.1: defaults of chunked_prefill_size and the decode graph max_bs by GPU memory.
enum class TierDefaults {
  kFixed,            // ≤ 2024-11-14: 8192 / 160
  kSmallGpuBs4,      // 2024-11-15 (#2044): < 25000 MiB → 2048 / 4
  kSmallGpuBs8,      // 2024-11-29 (#2268): < 25000 MiB → 2048 / 8
  kSmallGpuBs8Or80,  // 2024-12-06 (#2360): < 25000 MiB → 2048 / (8 if tp < 4 else 80), else 8192 /
                     // 160
  kRuntimeMaxBs,  // 2025-04-21 (#5604): ≥ 25000 MiB → max_bs unset (the capture list decides)
  kTiers35,       // 2025-06-10 (#7054): < 35 GiB 2048; < 160 GiB 8192; else 16384
  kTiers50,       // 2025-09-27 (#10372)
  kTiers60,       // 2025-09-29 (#10975): the HEAD table with 16/80 at 20–35 GiB
  kHead,          // 2025-10-25 (#12124): 24/80 at 20–35 GiB
  kTiers35Wide,   // first in 0.5.20 (wheel diff): 4096 and 48/160 at 20–35 GiB
};

/// R2.2: how the decode capture list is generated.
enum class DecodeCaptureList {
  kUpTo160,         // ≤ 2025-05-11: [1,2,4] + 8..160 step 8
  kUpTo160Stepped,  // 2025-05-12 (#6201): [1,2,4,8] + 16..160 step 8, big GPUs extend
  kGenerated,       // 2025-09-27 (#10372): generated in server_args (HEAD pattern)
};

/// R9.3: how the prefill graph is enabled.
enum class PrefillGraphEra {
  kAbsent,          // < 2025-10-11
  kOptIn,           // 2025-10-11 (#10062): --enable-piecewise-cuda-graph
  kDefaultOn,       // 2026-03-02 (#16331): on by default, auto-disabled before the reserve
  kPerPhaseConfig,  // 2026-06-09 (#23906): cuda_graph_config per phase
};

/// R5.3–R5.7: how max_running_requests and the request pool are sized.
enum class RunningRequestsEra {
  kPoolMinusOne,  // ≤ 2024-09-09: pool clamp(.., 2048, 5120), printed pool − 1 → 2047
  kPool,          // 2024-09-10 (#1380): printed min(T//2, pool) → 2048
  kPoolPlusOne,   // 2024-09-18 (#1457): pool = estimate + 1 → 2049
  kPoolAgain,     // 2025-06-01 (#6803): pool = estimate → 2048
  kUserClampedByEstimate,  // 2026-03-08 (#20142): user → min(user//dp, estimate)
  kUserRespected,          // 2026-06-12 (#27399): user → min(user//attn_dp, T//2)
};

/// R4.5: how speculative decoding's draft KV is accounted.
enum class DraftKv {
  kSeparate,     // 2025-01-02 … 03-04: the draft pool gets its own headroom
  kHeadroom,     // 2025-03-05 (#3986): T += max_num_reqs·(steps·topk + draft_tokens) + 100
  kShared,       // 2025-12-24 (#15748): the draft shares T, no headroom
  kCellScaling,  // 2026-06-12 (#23862): cell × (1 + draft_layers/layers)
};

/// R6: the mamba (linear-attention) state pool.
enum class MambaPool {
  kAbsent,      // < 2025-09-11
  kFixed,       // 2025-09-11 (#10233): --max-mamba-cache-size or --max-running-requests or 512
  kRatioSplit,  // 2025-10-13 (#11214): K = rest·r/(1+r) // per_req // (1+D)
  kIntermediateFirst,  // 2025-12-14 (#14792): speculative intermediates first, then the split
  kJointSolve,         // 2026-05-27 (#23837): K = budget // (per_req·(1 + D/ratio))
};

/// R9.1: what an explicit FlashInfer allreduce fusion does on a GPU that lacks it (SM120).
enum class FusionOnUnsupportedGpu {
  kCrashAtCapture,    // ≤ 2026-01-21 (#15650)
  kSilentlyInactive,  // 2026-01-22 (#17591)
  kWorkspaceWarning,  // 2026-04-19 (#21249)
  kStartupFailure,    // 2026-06-23 (#28789; cherry-picked into v0.5.14)
};

struct SglangRules {
  // R2.5–R2.8
  MemFractionRule mem_fraction = MemFractionRule::kTpTable;
  double tp8_fraction = 0.83;  // tp ≥ 8 in the tp table: 0.83, 0.82 (2024-11-16), 0.81 (2024-12-02)
  BigGpuFraction big_gpu = BigGpuFraction::kNone;
  bool big_gpu_speculative_20gib = false;    // 2025-05-27 (#6606)
  bool small_gpu_speculative_scale = false;  // 2025-05-28 (#6726): ≤ 96 GiB with speculation ×0.95
  bool b200_fraction = false;                // 2025-05-29 (#6718): > 180000 MiB → 0.79
  bool tier_reserve_2025_09_27 = false;      // #10372 raised the 90/100/160 GiB tiers
  double speculative_reserve_mib =
      0;  // EAGLE family: 2048 (2025-06-10), 4096 (2026-02-26), 0 (2026-06-12)
  bool standalone_reserve = false;  // STANDALONE +6 GiB (2025-09-07 … 2026-06-11)
  PrefillGraphReserve prefill_graph_reserve = PrefillGraphReserve::kNone;
  bool decode_graph_reserve_always =
      true;                     // until 2026-07-04 (#29615): 2·max_bs even with graphs off
  bool deepep_reserve = false;  // 2026-07-04 (#29615): +2 GiB with DeepEP
  int vlm_factor = 0;           // 0 none, 1 ×0.90 (2025-07-04), 2 ViT-scaled (2025-07-18)
  bool vlm_skipped_for_language_only = false;  // 2026-02-01 (#18011)

  // R2.1–R2.3
  TierDefaults tiers = TierDefaults::kFixed;
  int dp_attention_chunk_divisor = 0;  // 0 none; 2 (2024-11-16); dp_size (2025-03-13) → -1
  DecodeCaptureList decode_list = DecodeCaptureList::kUpTo160;
  bool decode_list_tail_step_32 = false;    // 2025-10-02 (#...): the 512.. tail steps by 32
  bool decode_list_speculative_64 = false;  // 2025-10-29: speculative range(40, 65, 4)
  bool decode_list_appends_max_bs = false;  // 2026-03-31 (#21005)
  PrefillGraphEra prefill_graph = PrefillGraphEra::kAbsent;
  bool prefill_graph_off_for_speculative = false;  // 2026-03-02 … 2026-04-16 (#22128)
  bool breakable_prefill_default = false;          // 2026-07-01 (#29458)
  int prefill_list =
      0;  // 0: 2025-10-11 list; 1: 2026-01-10; 2: 2026-01-29 (HEAD, 58 sizes for 8192)

  // R2.6 after main 2026-07-20: the breakable prefill graph's compatibility rules relaxed
  // (currency-2026-12.md S1, S4, S9, S10, S18).
  bool breakable_allows_dp_attention = false;  // 2026-07-21 (#31682)
  bool breakable_allows_lora = false;          // 2026-07-26 (#30988)
  int breakable_a2a_allowed = 0;      // 1: deepep (2026-07-31, #31987); 2: + megamoe, flashinfer
                                      // (2026-08-02, #33150)
  bool breakable_allows_mla = false;  // 2026-08-09 (#33661)
  bool prefill_max_bs_clamped_to_context = true;  // until 2026-08-03 (#30206)
  bool prefill_max_bs_follows_dp_chunk = false;   // first in 0.5.16: DP attention re-clamps it
  bool breakable_opt_in_with_pp = false;          // first in 0.5.19: pp > 1 → disabled by default
  bool decode_max_bs_capped_by_running_requests = false;  // first in 0.5.22 (wheel diff)
  bool mla_prefill_max_bs_8192 = false;  // first in 0.5.23: MLA min(8192, chunked) (wheel diff)
  bool dsa_indexer_in_cell = false;      // first in 0.5.3.post1: DSA indexer keys in the cell size
  bool dsa_backend_named_dsa = false;    // 0.5.13: the DSA attention backend nsa renamed dsa

  // R3.1
  // Which GPUs' free memory is psutil's (engines/shared_sysmem.h): by SM from 0.5.4, torch's
  // is_integrated from 0.5.9; dated by the wheels.
  SystemMemoryAsFree system_memory_as_free = SystemMemoryAsFree::kNever;

  // R4
  bool page_alignment = false;        // 2025-03-12 (#4354)
  bool hybrid_swa_pools = false;      // 2025-06-27 (#6563): separate full and sliding-window pools
  bool cell_uses_v_head_dim = false;  // 2025-12-19 (#15207); before, 2·head_dim
  DraftKv draft_kv = DraftKv::kSeparate;
  bool draft_kv_additive = false;  // first in 0.5.22: cell + int(cell·n/L) (wheel diff)

  // R5
  RunningRequestsEra running_requests = RunningRequestsEra::kPoolMinusOne;
  bool user_pool_divided_by_dp = false;          // 2026-03-06 (#20063)
  int speculative_default_running_requests = 0;  // 32 (2025-03-05), 48 (2025-03-30)
  int speculative_params =
      0;  // 0: (5, 8, 64) fields; 1: (5, 4, 8); 2: DeepSeek (3, 1, 4); 3: all others (3, 1, 4)

  // R6
  MambaPool mamba = MambaPool::kAbsent;
  double mamba_full_memory_ratio = 0.2;        // 0.9 from 2025-10-15 (#11679)
  bool mamba_no_buffer_ratio_bug = false;      // 2025-12-14 … 2026-01-04: +2 even for no_buffer
  bool extra_buffer_ratio_by_overlap = false;  // 2026-03-06/09: +2 overlap, +1 without
  bool mamba_auto_extra_buffer = false;        // 2026-06-18 (#28151)
  bool mamba_strategy_renamed = false;         // 2026-06-18 (#28151)
  bool mamba_padding_slot = false;             // 2026-07-23 (#32184): K + 1 slots, solved for K
  bool mm_kv_reservation = false;  // 2026-08-12 (#34141): VLM cache out of the KV budget (S23)

  // R9.1
  FusionOnUnsupportedGpu fusion_on_unsupported_gpu = FusionOnUnsupportedGpu::kCrashAtCapture;
  bool fusion_flag_deprecated = false;             // 2026-06-15 (#23402)
  bool fusion_auto_enable_includes_sm120 = false;  // 2025-12-14 … 2026-01-02 (#14764 / #16283)
  bool fusion_auto_enable = false;                 // 2025-12-14 (#14764)

  // R2.10–R2.11: attention backend and page size
  bool hybrid_sm100_trtllm_mha = false;  // first in 0.5.16 (wheel diff): Qwen3.5/Qwen3-Next on
                                         // SM100 pick trtllm_mha (page 64) or triton (page 1)
};

/// One dated change to the rules.
struct ChangePoint {
  std::string date;  // main-branch commit date, YYYY-MM-DD
  std::string pr;    // "#23862"
  std::string what;  // one line
  void (*apply)(SglangRules&);
};

/// Every modelled change, oldest first.
const std::vector<ChangePoint>& change_points();

/// The rule variant in force on a main-branch date, with the changes that made it and the
/// change that ended it (nullptr for the newest).
struct RuleVariant {
  SglangRules rules;
  std::string date;
  const ChangePoint* latest = nullptr;  // the last change applied
  const ChangePoint* next = nullptr;    // the change that ended this variant
  std::string describe()
      const;  // "main 2026-05-01: since 2026-04-19 (#21249 ...) until 2026-05-27 (#23837 ...)"
};

RuleVariant rules_for_date(std::string_view date,
                           const std::vector<std::string>& cherry_picks = {});

/// The newest main date modelled (the research snapshot).
std::string_view newest_modelled_date();

/// Resolves "" (newest), a release ("0.5.15", "v0.5.15.post1", "0.4.6") or a date.
Result<EngineVersion> resolve_sglang_version(std::string_view spec);

}  // namespace servescope::sglang
