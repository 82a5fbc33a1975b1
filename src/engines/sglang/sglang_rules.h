// The dated rule variants of SGLang's capacity derivation. Each variant is a set of
// switches over one rule pack, valid from a main-branch date until the change that ended
// it; a release maps to the date its branch was cut from main (data/sglang/releases.csv).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/scenario.h"

namespace servescope::sglang {

/// How max_running_requests is resolved from the KV capacity T (R5.3-R5.7, §5.4).
enum class RunningRequestsEra {
  kPoolThenMin,  // ≤ 2026-03-07: pool = user or estimate, mamba cap, then min(T//2 | user//dp,
                 // pool)
  kUserClampedByEstimate,  // 2026-03-08 … 2026-06-11 (#20142): user → min(user//dp, estimate)
  kUserRespected,          // ≥ 2026-06-12 (#27399): user → min(user//attn_dp, T//2)
};

/// How the prefill (piecewise) CUDA graph is chosen and when its reserve is counted (§9.3).
enum class PrefillGraphEra {
  kOptIn,            // 2025-10 … 2026-03-01: --enable-piecewise-cuda-graph
  kDefaultOnLegacy,  // 2026-03-02 … 2026-06-08: on by default, auto-disabled before the reserve
  kPerPhaseConfig,   // ≥ 2026-06-09: cuda_graph_config; breakable default from 2026-07-01
};

/// What an explicit FlashInfer allreduce fusion request does on a GPU that lacks it (§9.1).
enum class FusionOnUnsupportedGpu {
  kCrashAtCapture,    // ≤ 2026-01-21 (#15650)
  kSilentlyInactive,  // 2026-01-22 … 2026-04-18 (#17591)
  kWorkspaceWarning,  // 2026-04-19 … 2026-06-22
  kStartupFailure,    // ≥ 2026-06-23 (#28789): ValueError in warmup
};

struct SglangRules {
  std::string from_date;   // first main date this variant describes
  std::string until_date;  // last date, or "" for the newest
  std::string ended_by;    // the change that ended it
  std::string description;

  // R2.5: activation reserve and graph terms (per-phase form since 2026-06-09).
  bool per_phase_graph_reserve = true;
  // §2.2 older heuristic: +4 GiB (STANDALONE +6, NGRAM 0) for speculative decoding.
  bool speculative_reserve_in_mem_fraction = false;
  // R4.5: draft KV scaling of the cell size (replaced the shared draft pool 2026-06-12).
  bool draft_cell_scaling = true;
  // R6.8: joint solve of mamba slots and speculative intermediates (2026-06-12).
  bool joint_mamba_speculative_solve = true;
  // R5.9: `auto` resolves to extra_buffer when overlap is on (2026-06-18, #28151).
  bool mamba_auto_extra_buffer = true;
  // The flag's name: --mamba-radix-cache-strategy (2026-06-18) or --mamba-scheduler-strategy.
  bool mamba_strategy_renamed = true;
  // The prefill graph default backend: breakable (2026-07-01, #29458) or tc_piecewise.
  bool breakable_prefill_default = true;
  RunningRequestsEra running_requests = RunningRequestsEra::kUserRespected;
  PrefillGraphEra prefill_graph = PrefillGraphEra::kPerPhaseConfig;
  FusionOnUnsupportedGpu fusion_on_unsupported_gpu = FusionOnUnsupportedGpu::kStartupFailure;
  // --enable-flashinfer-allreduce-fusion deprecated in favour of the backend flag.
  bool fusion_flag_deprecated = true;
};

/// The rule variant in force on a main-branch date ("YYYY-MM-DD").
const SglangRules& rules_for_date(std::string_view date);
/// Every modelled variant, oldest first.
const std::vector<SglangRules>& all_rule_variants();

/// Resolves "" (newest), a release ("0.5.15", "v0.5.15.post1") or a date ("2026-05-01").
Result<EngineVersion> resolve_sglang_version(std::string_view spec);

}  // namespace servescope::sglang
