#include "engines/vllm/vllm_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "catalog/embedded_data.h"
#include "core/text.h"
#include "engines/pypi_releases.h"
#include "engines/release_flags.h"
#include "engines/rules_currency.h"
#include "engines/unmodelled_changes.h"

namespace servescope::vllm {
namespace {

// The newest main date the rules follow: the cut of data/rules-currency.tsv's vllm release.
// Read in git history to 2026-08-20 (docs/research/currency-2026-12.md §2.2); after that from
// the release wheels and their oracle cases (tests/oracle/vllm-*.jsonl).
std::string_view newest_date() {
  return rules_currency("vllm").main_date;
}

constexpr std::string_view kOldestDate = "2025-08-01";

using R = VllmRules;

// The behaviour before the oldest change point below (vLLM v0.10, mid 2025).
VllmRules oldest_rules() {
  VllmRules r;
  r.from_date = std::string(kOldestDate);
  r.description = "v0.10-era main: PIECEWISE graphs, no CUDA-graph memory profiling";
  r.default_gpu_memory_utilization = 0.9;
  r.cudagraph_profiling = CudaGraphProfiling::kAbsent;
  r.kv_tokens = KvTokensFormula::kBlocksPerGroup;
  r.override_rewrites_memory = false;
  r.hybrid_group_threshold = 1.25;
  r.full_and_piecewise_default = false;
  r.optimization_levels = false;
  r.capture_step16_from_256 = false;
  r.spec_aware_capture_sizes = false;
  r.capture_max_num_batched_tokens = false;
  r.fusion = FusionDefault::kOptIn;
  r.hybrid_prefix_caching_default = false;
  r.capture_1024_on_sm10x = false;
  r.drafting_slots_cut_budget = true;
  r.tier_160gib = false;
  r.hybrid_align_to_block_size = false;
  r.gdn_checkpoint_alignment = false;
  r.fit_leaves_null_block = false;
  r.in_flight_batches = false;
  r.system_memory_as_free = SystemMemoryAsFree::kNever;
  r.nvml_total_fallback = false;
  r.default_block_size = 16;
  r.extensible_kv_cache = false;
  r.split_capture_sizes = false;
  return r;
}

const std::vector<ChangePoint> kChangePoints = {
    {"2025-09-23", "#25444", "default cudagraph_mode FULL_AND_PIECEWISE (was PIECEWISE)",
     [](R& r) { r.full_and_piecewise_default = true; }},
    {"2025-10-24", "#26016",
     "default capture sizes step 16 from 256 (step 8 up to the largest before)",
     [](R& r) { r.capture_step16_from_256 = true; }},
    // Dated by the first release whose wheel has it (tools/engine-sync/wheel_grep.py; the run
    // is in data/integrated-gpu-rules.md): the release's cut, data/vllm/releases.csv.
    {"2025-11-17", "release 0.11.1 (wheel grep; not in 0.11.0)",
     "on SM 8.7/11.0/12.1 (Orin, Thor, Spark) free memory is psutil's available memory",
     [](R& r) { r.system_memory_as_free = SystemMemoryAsFree::kSharedSysmemSms; }},
    {"2025-11-27", "#26847", "-O means optimization level O0–O3 (default O2)",
     [](R& r) { r.optimization_levels = true; }},
    {"2025-12-10", "#30330", "capture sizes up to min(max_num_seqs·(1+k)·2, 512)",
     [](R& r) { r.spec_aware_capture_sizes = true; }},
    {"2026-02-11", "#34299", "allreduce+RMSNorm fusion on by default at O2 for TP > 1 on SM ≥ 9.0",
     [](R& r) { r.fusion = FusionDefault::kSm90Plus; }},
    {"2026-02-15", "#34392", "allreduce+RMSNorm fusion default only on SM 9.0/10.0 and DP = 1",
     [](R& r) {
       r.fusion = FusionDefault::kSm90Or100;
       r.fusion_needs_dp1 = true;
     }},
    {"2026-02-27", "#35424", "allreduce+RMSNorm fusion default needs PP = 1",
     [](R& r) { r.fusion_needs_pp1 = true; }},
    {"2026-03-07", "#30515",
     "CUDA-graph memory estimated at startup; subtracted with "
     "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1",
     [](R& r) { r.cudagraph_profiling = CudaGraphProfiling::kOptIn; }},
    {"2026-03-12", "#36684", "hybrid KV grouping threshold 1.25 → 1.5",
     [](R& r) { r.hybrid_group_threshold = 1.5; }},
    {"2026-03-22", "#37755", "allreduce+RMSNorm fusion default on the SM 10.x family (10.3 too)",
     [](R& r) { r.fusion = FusionDefault::kSm90Or10xFamily; }},
    // Dated by the first release whose wheel has it (see above).
    {"2026-04-20", "#35356 (first in release 0.20.0; not in 0.19.1)",
     "psutil's available memory on every GPU torch calls integrated, not by SM",
     [](R& r) { r.system_memory_as_free = SystemMemoryAsFree::kIsIntegrated; }},
    // make wheel-grep ENGINE=vllm RE='kernel_block_alignment_size = max\('
    // FILES=platforms/interface.py: first in 0.20.0 (0.24.0's oracle showed it; it had been dated
    // by 0.25.0's wheel diff).
    {"2026-04-20", "release 0.20.0 (wheel grep; not in 0.19.1)",
     "hybrid attention/mamba block alignment unit at least the configured block size",
     [](R& r) { r.hybrid_align_to_block_size = true; }},
    {"2026-04-21", "#38284",
     "CUDA-graph memory subtracted by default; gpu_memory_utilization default 0.92",
     [](R& r) {
       r.cudagraph_profiling = CudaGraphProfiling::kDefaultOn;
       r.default_gpu_memory_utilization = 0.92;
     }},
    {"2026-04-28", "#41069",
     "GPU KV cache size = int(max_concurrency × max_model_len); the block override sizes the "
     "fit check",
     [](R& r) {
       r.kv_tokens = KvTokensFormula::kConcurrencyTimesLen;
       r.override_rewrites_memory = true;
     }},
    {"2026-04-29", "#40734",
     "max_num_batched_tokens is a capture size when it is not above the largest one",
     [](R& r) { r.capture_max_num_batched_tokens = true; }},
    {"2026-05-02", "#41458", "allreduce+RMSNorm fusion default again with DP > 1 or PP > 1",
     [](R& r) {
       r.fusion_needs_dp1 = false;
       r.fusion_needs_pp1 = false;
     }},

    // First in 0.26.0 (make wheel-grep ENGINE=vllm RE=max_in_flight_tokens
    // FILES=v1/kv_cache_interface.py: not in 0.25.1); 0.27.0's oracle showed it (0.30.0 dated it).
    {"2026-07-19", "release 0.26.0 (wheel grep; not in 0.25.1)",
     "sliding-window and chunked-local groups keep every in-flight batch's tokens "
     "(VllmConfig.max_in_flight_tokens: 2 × max_num_batched_tokens with async scheduling)",
     [](R& r) { r.in_flight_batches = true; }},
    // After 2026-05-27: currency-2026-12.md §2.2 (V6, V15-V17), dated by their merge on main.
    {"2026-08-04", "#50991",
     "prefix caching on by default for hybrid models (mamba cache mode align: 2 + k state pages)",
     [](R& r) { r.hybrid_prefix_caching_default = true; }},
    {"2026-08-07", "#49390",
     "largest capture size min(max_num_seqs·q·2, 1024) on the SM 10.x family",
     [](R& r) { r.capture_1024_on_sm10x = true; }},
    {"2026-08-10", "#51725",
     "the drafting slots no longer cut max_num_scheduled_tokens (handled at run time)",
     [](R& r) { r.drafting_slots_cut_budget = false; }},
    {"2026-08-11", "#51726", "devices of ≥ 160 GiB default to 16384 batched tokens and 1024 seqs",
     [](R& r) { r.tier_160gib = true; }},
    {"2026-08-17", "#52216", "max_model_len auto-fit and fit check leave out the null block (V19)",
     [](R& r) { r.fit_leaves_null_block = true; }},
    // After 2026-08-20 no git history is stored: the first release whose wheel shows a change
    // dates it (its cut, data/vllm/releases.csv), checked by tests/oracle/vllm-*.jsonl.
    {"2026-10-27", "release 0.33.0 (wheel grep; not in 0.32.0)",
     "an integrated GPU's total falls back to torch's when NVML has none; GB10 keeps the small "
     "batch defaults",
     [](R& r) { r.nvml_total_fallback = true; }},
    // make wheel-grep ENGINE=vllm RE=FLASHINFER_GDN_CHECKPOINT_ALIGNMENT: first in 0.33.0.
    {"2026-10-27", "release 0.33.0 (wheel grep; not in 0.32.0)",
     "GDN layers on FlashInfer's prefill kernel export prefix-cache checkpoints every 64 tokens: "
     "in mamba cache mode align the hybrid block is a multiple of 64",
     [](R& r) { r.gdn_checkpoint_alignment = true; }},
    // Its oracle (tests/oracle/vllm-0.34.0.jsonl) agrees on every KV case once this applies.
    {"2026-11-10", "release 0.34.0 (wheel diff; not in 0.33.0)",
     "the default KV block is 64 tokens (CacheConfig.DEFAULT_BLOCK_SIZE; 16 before)",
     [](R& r) { r.default_block_size = 64; }},
    {"2026-11-10", "release 0.34.0 (wheel diff; not in 0.33.0)",
     "the extensible KV cache is on by default on CUDA and ROCm: sized from the memory measured "
     "after warmup and CUDA-graph capture; an unset gpu_memory_utilization is 1.0",
     [](R& r) { r.extensible_kv_cache = true; }},
    {"2026-11-10", "release 0.34.0 (wheel diff; oracle tests/oracle/vllm-0.34.0.jsonl)",
     "prefill and decode CUDA graphs sized apart: on SM100 a prefill grid up to min(8192, "
     "max_num_batched_tokens) and a decode request grid up to max_num_seqs; drafters with two "
     "or more tokens capture FULL one-token decode graphs up to max_num_seqs",
     [](R& r) { r.split_capture_sizes = true; }},
};

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-')
    return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])))
      return false;
  }
  return true;
}

using Release = VllmRelease;

const std::vector<Release>& releases() {
  static const std::vector<Release> kReleases = [] {
    std::vector<Release> out;
    bool header_seen = false;
    for (const auto& row : embedded_csv("vllm/releases.csv")) {
      if (row.empty() || row[0].empty() || row[0][0] == '#')
        continue;
      if (!header_seen) {
        header_seen = true;  // release,main_date,evidence
        continue;
      }
      if (row.size() < 3)
        continue;
      out.push_back({row[0], row[1], row[2]});
    }
    return out;
  }();
  return kReleases;
}

}  // namespace

const std::vector<VllmRelease>& vllm_releases() {
  return releases();
}

const std::vector<ChangePoint>& change_points() {
  return kChangePoints;
}

VllmRules rules_for_date(std::string_view date) {
  VllmRules r = oldest_rules();
  for (const ChangePoint& c : kChangePoints) {
    if (c.date <= date) {
      c.apply(r);
      r.from_date = c.date;
      r.changed_by = c.pr;
      r.description = c.what;
    }
  }
  return r;
}

std::string_view newest_modelled_date() {
  return newest_date();
}

Result<EngineVersion> resolve_vllm_version(std::string_view spec_view) {
  std::string spec(trim(spec_view));
  const std::vector<PypiRelease>& published = pypi_releases("vllm");
  const std::string newest_release = published.empty() ? "" : published.back().name;
  if (spec.empty() || spec == "latest" || spec == "main") {
    // The newest release users can install; its capacity rules are the newest modelled.
    EngineVersion v = *resolve_vllm_version(newest_release);
    v.basis = "newest release: " + v.basis;
    return v;
  }
  if (is_date(spec)) {
    if (spec > newest_date()) {
      return EngineVersion{
          spec,
          std::string(newest_date()),
          fmt::format("main {} is newer than the newest modelled date; rules of {} apply", spec,
                      newest_date()),
          {},
          ""};
    }
    if (spec < kOldestDate) {
      return EngineVersion{
          spec,
          spec,
          fmt::format("main {} is older than the oldest modelled behaviour ({}); its rules are "
                      "assumed",
                      spec, kOldestDate),
          {},
          ""};
    }
    return EngineVersion{spec, spec, "main-branch date", {}, ""};
  }
  std::string name = spec;
  if (!name.empty() && (name[0] == 'v' || name[0] == 'V'))
    name.erase(0, 1);
  // The rules of a release cut after the newest modelled date are those of that date.
  const std::string unmodelled = unmodelled_changes_of("vllm", name);
  auto clamp = [&](EngineVersion v) {
    v.release = ReleaseFlagTables::of("vllm").release(name).value_or("");
    v.unmodelled_changes = !unmodelled.empty();
    if (v.main_date > newest_date()) {
      v.main_date = std::string(newest_date());
      v.basis += fmt::format(
          "; newer than the newest modelled rules (main {}): those apply, the changes after "
          "them are not modelled",
          newest_date());
      v.rules_gap = fmt::format(
          "vllm {} was cut after the newest modelled rules (main {}): the capacity figures "
          "follow those rules{}; flags are judged by {}'s own parser",
          name, newest_date(), unmodelled, name);
    } else if (v.main_date < kOldestDate) {
      v.basis += fmt::format(
          "; older than the oldest modelled behaviour ({}): its rules are "
          "assumed",
          kOldestDate);
    }
    if (v.rules_gap.empty() && !unmodelled.empty())
      v.rules_gap =
          fmt::format("vllm {} is modelled to its cut (main {}){}", name, v.main_date, unmodelled);
    return v;
  };
  for (int pass = 0; pass < 2; ++pass) {
    std::string candidate = name;
    if (pass == 1) {
      for (std::string_view suffix : {".post", ".dev", "rc"}) {
        auto at = candidate.find(suffix);
        if (at != std::string::npos)
          candidate.erase(at);
      }
    }
    for (const Release& r : releases()) {
      if (r.name == candidate) {
        return clamp(
            EngineVersion{spec,
                          r.date,
                          fmt::format("release {} ≈ main {} ({})", r.name, r.date, r.evidence),
                          {},
                          ""});
      }
    }
    if (const PypiRelease* p = find_pypi_release("vllm", candidate)) {
      // Published, but its branch cut is not in the release table: it is before the upload.
      return clamp(EngineVersion{spec,
                                 p->date,
                                 fmt::format("release {} uploaded to PyPI {} (its branch cut is "
                                             "earlier; data/vllm/pypi-releases.csv)",
                                             p->name, p->date),
                                 {},
                                 ""});
    }
  }
  if (!newest_release.empty() && !release_numbers(name).empty() &&
      release_numbers(name) > release_numbers(newest_release)) {
    // Newer than every release known here: accepted, judged as the newest.
    EngineVersion v = *resolve_vllm_version(newest_release);
    v.label = spec;
    v.basis = fmt::format("{} is newer than every release servescope knows (newest {}); {}", name,
                          newest_release, v.basis);
    v.newer_than_known = true;
    v.rules_gap = fmt::format(
        "{} {} is newer than every release servescope knows (newest {}): it is planned as {}{}",
        "vllm", name, newest_release, newest_release, unmodelled);
    v.unmodelled_changes = !unmodelled.empty();
    return v;
  }
  return fail(
      fmt::format("--engine vllm@{}: unknown version; give a release ({} … {}) or a main date "
                  "YYYY-MM-DD",
                  spec, published.empty() ? "" : published.front().name, newest_release));
}

}  // namespace servescope::vllm
