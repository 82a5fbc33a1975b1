#include "engines/sglang/sglang_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "catalog/embedded_data.h"
#include "core/text.h"
#include "engines/pypi_releases.h"
#include "engines/release_flags.h"
#include "engines/rules_currency.h"
#include "engines/unmodelled_changes.h"

namespace servescope::sglang {
namespace {

// The newest main date the rules follow: the cut of data/rules-currency.tsv's sglang release.
// Change points up to 2026-08-22 were read in git history (docs/research/currency-2026-12.md);
// later ones are learned from the release wheels and checked against them
// (tests/oracle/sglang-*.jsonl).
std::string_view newest_date() {
  return rules_currency("sglang").main_date;
}

using R = SglangRules;

// Oldest first. Each entry mirrors one change on SGLang main (commit date, PR, what changed).
const std::vector<ChangePoint> kChangePoints = {
    {"2024-09-10", "#1380", "request pool clamp(.., 2048, 4096); printed min(T//2, pool) → 2048",
     [](R& r) { r.running_requests = RunningRequestsEra::kPool; }},
    {"2024-09-18", "#1457", "request pool sized estimate + 1 → max_running_requests=2049",
     [](R& r) { r.running_requests = RunningRequestsEra::kPoolPlusOne; }},
    {"2024-11-15", "#2044", "GPUs under 25000 MiB: chunked prefill 2048, decode graphs up to 4",
     [](R& r) { r.tiers = TierDefaults::kSmallGpuBs4; }},
    {"2024-11-16", "#2053",
     "tp ≥ 8 default mem_fraction_static 0.82; DP attention halves chunked prefill",
     [](R& r) {
       r.tp8_fraction = 0.82;
       r.dp_attention_chunk_divisor = 2;
     }},
    {"2024-11-29", "#2268", "GPUs under 25000 MiB: decode graphs up to 8",
     [](R& r) { r.tiers = TierDefaults::kSmallGpuBs8; }},
    {"2024-12-02", "#2325", "tp ≥ 8 default mem_fraction_static 0.81",
     [](R& r) { r.tp8_fraction = 0.81; }},
    {"2024-12-06", "#2360", "GPUs under 25000 MiB: decode graphs up to 8 (tp < 4) or 80",
     [](R& r) { r.tiers = TierDefaults::kSmallGpuBs8Or80; }},
    {"2025-03-05", "#3986",
     "EAGLE: target and draft share T plus headroom; unset max_running_requests → 32",
     [](R& r) {
       r.draft_kv = DraftKv::kHeadroom;
       r.speculative_default_running_requests = 32;
       r.speculative_params = 1;
     }},
    {"2025-03-12", "#4354", "KV tokens floored to the page size",
     [](R& r) { r.page_alignment = true; }},
    {"2025-03-13", "#4390", "DP attention divides chunked prefill by dp_size",
     [](R& r) { r.dp_attention_chunk_divisor = -1; }},
    {"2025-03-30", "#4908", "speculative decoding: unset max_running_requests → 48",
     [](R& r) { r.speculative_default_running_requests = 48; }},
    {"2025-04-21", "#5604",
     "cards above 80 GiB: mem_fraction_static (gpu − 13 GiB)/gpu; big GPUs leave decode max_bs to "
     "the capture list",
     [](R& r) {
       r.big_gpu = BigGpuFraction::kMinus13GibAbove80;
       r.tiers = TierDefaults::kRuntimeMaxBs;
     }},
    {"2025-04-29", "#5893",
     "cards above 96 GiB: table fraction raised, capped at (gpu − 18 GiB)/gpu",
     [](R& r) { r.big_gpu = BigGpuFraction::kCapAbove96; }},
    {"2025-04-30", "#5724",
     "fraction table by tp·pp, only up to 80 GiB (else 0.88), then the 96 GiB cap",
     [](R& r) { r.big_gpu = BigGpuFraction::kTableUpTo80ThenCap; }},
    {"2025-05-12", "#6201", "decode capture list [1,2,4,8] + 16..160 step 8, extended on big GPUs",
     [](R& r) { r.decode_list = DecodeCaptureList::kUpTo160Stepped; }},
    {"2025-05-27", "#6606", "96 GiB cap uses 20 GiB with speculative decoding",
     [](R& r) { r.big_gpu_speculative_20gib = true; }},
    {"2025-05-28", "#6726", "cards up to 96 GiB with speculative decoding: fraction × 0.95",
     [](R& r) { r.small_gpu_speculative_scale = true; }},
    {"2025-05-29", "#6718", "cards above 180000 MiB (B200): fraction 0.79",
     [](R& r) { r.b200_fraction = true; }},
    {"2025-05-31", "#6787", "DeepSeek speculative defaults (3, 1, 4)",
     [](R& r) { r.speculative_params = 2; }},
    {"2025-06-01", "#6803", "request pool sized estimate (no + 1) → 2048",
     [](R& r) { r.running_requests = RunningRequestsEra::kPoolAgain; }},
    {"2025-06-10", "#7054",
     "mem_fraction_static from a reserve by GPU tier; chunked prefill tiers by 35/160 GiB",
     [](R& r) {
       r.mem_fraction = MemFractionRule::kReserveByTier;
       r.tiers = TierDefaults::kTiers35;
       r.speculative_reserve_mib = 2048;
     }},
    {"2025-06-27", "#6563",
     "hybrid sliding-window models (Llama 4, later gpt-oss) get separate full and SWA pools",
     [](R& r) { r.hybrid_swa_pools = true; }},
    {"2025-07-04", "#7748", "multimodal models: mem_fraction_static × 0.90",
     [](R& r) { r.vlm_factor = 1; }},
    {"2025-07-18", "#8161",
     "multimodal factor scaled by the ViT size (adjust_mem_fraction_for_vlm)",
     [](R& r) { r.vlm_factor = 2; }},
    {"2025-09-07", "#10090", "STANDALONE speculative decoding reserves 6 GiB",
     [](R& r) { r.standalone_reserve = true; }},
    {"2025-09-11", "#10233",
     "mamba state pool for hybrid models (512 slots or max_running_requests)",
     [](R& r) { r.mamba = MambaPool::kFixed; }},
    {"2025-09-27", "#10372", "reserve tiers raised; decode capture list generated in server_args",
     [](R& r) {
       r.tier_reserve_2025_09_27 = true;
       r.tiers = TierDefaults::kTiers50;
       r.decode_list = DecodeCaptureList::kGenerated;
     }},
    {"2025-09-29", "#11076",
     "reserve formula 512 + 1.5·chunk + 2·max_bs + tp·pp/8 GiB, 10 GiB floor; tiers to 60 GiB",
     [](R& r) {
       r.mem_fraction = MemFractionRule::kReserveFormula;
       r.tiers = TierDefaults::kTiers60;
     }},
    {"2025-10-02", "948278f17", "decode capture tail above 512 steps by 32",
     [](R& r) { r.decode_list_tail_step_32 = true; }},
    {"2025-10-09", "release 0.5.3.post1 (wheel grep; not in 0.5.3)",
     "DeepSeek Sparse Attention's indexer keys (fp8 + scales) counted in the KV cell size",
     [](R& r) { r.dsa_indexer_in_cell = true; }},
    {"2025-10-11", "#10062", "opt-in piecewise CUDA graph (--enable-piecewise-cuda-graph)",
     [](R& r) { r.prefill_graph = PrefillGraphEra::kOptIn; }},
    {"2025-10-13", "#11214", "mamba pool = rest·r/(1+r) split, 3 slots per running request",
     [](R& r) { r.mamba = MambaPool::kRatioSplit; }},
    {"2025-10-15", "#11679", "mamba_full_memory_ratio default 0.9",
     [](R& r) { r.mamba_full_memory_ratio = 0.9; }},
    {"2025-10-20", "release 0.5.4 (wheel diff; not in 0.5.3.post3)",
     "Orin, Thor, Spark (SM 8.7, 11.0, 12.1): free memory is psutil's available memory",
     [](R& r) { r.system_memory_as_free = SystemMemoryAsFree::kSharedSysmemSms; }},
    {"2025-10-25", "#12124", "20–35 GiB tier: decode graphs up to 24 (tp < 4)",
     [](R& r) { r.tiers = TierDefaults::kHead; }},
    {"2025-10-29", "750940ae3", "speculative decode capture list includes 64",
     [](R& r) { r.decode_list_speculative_64 = true; }},
    {"2025-11-10", "#12996", "piecewise graph reserves max_tokens // 4 MiB when enabled",
     [](R& r) { r.prefill_graph_reserve = PrefillGraphReserve::kMaxTokensDiv4; }},
    {"2025-12-14", "#14792",
     "mamba strategies (auto → no_buffer); speculative intermediates first; FlashInfer fusion "
     "auto-enabled incl. SM120 (#14764)",
     [](R& r) {
       r.mamba = MambaPool::kIntermediateFirst;
       r.mamba_no_buffer_ratio_bug = true;
       r.fusion_auto_enable = true;
       r.fusion_auto_enable_includes_sm120 = true;
     }},
    {"2025-12-19", "#15207", "MHA cell uses head_dim + v_head_dim",
     [](R& r) { r.cell_uses_v_head_dim = true; }},
    {"2025-12-24", "#15748",
     "draft KV shares T without headroom; piecewise reserve max_tokens // 8 (#15700)",
     [](R& r) {
       r.draft_kv = DraftKv::kShared;
       r.prefill_graph_reserve = PrefillGraphReserve::kMaxTokensDiv8;
     }},
    {"2025-12-31", "#16247", "speculative defaults (3, 1, 4) for all but Llama/Grok",
     [](R& r) { r.speculative_params = 3; }},
    {"2026-01-03", "#16283", "FlashInfer fusion auto-enable limited to SM90/SM100",
     [](R& r) { r.fusion_auto_enable_includes_sm120 = false; }},
    {"2026-01-05", "#16138", "no_buffer mamba ratio back to 3",
     [](R& r) { r.mamba_no_buffer_ratio_bug = false; }},
    {"2026-01-10", "#15927", "piecewise reserve len(sizes)·8 before the floor; new size list",
     [](R& r) {
       r.prefill_graph_reserve = PrefillGraphReserve::kSizesTimes8;
       r.prefill_list = 1;
     }},
    {"2026-01-22", "#17591",
     "FlashInfer fusion gated to SM90/SM100 in the communicator: silently inactive on SM120",
     [](R& r) { r.fusion_on_unsupported_gpu = FusionOnUnsupportedGpu::kSilentlyInactive; }},
    {"2026-01-29", "#17956", "prefill capture list 576..1024 step 64 (58 sizes for 8192)",
     [](R& r) { r.prefill_list = 2; }},
    {"2026-02-01", "#18011", "--language-only skips the multimodal factor",
     [](R& r) { r.vlm_skipped_for_language_only = true; }},
    {"2026-02-20", "release 0.5.9 (wheel grep; not in 0.5.8.post1)",
     "psutil's available memory on every GPU torch calls integrated, not by SM",
     [](R& r) { r.system_memory_as_free = SystemMemoryAsFree::kIsIntegrated; }},
    {"2026-02-26", "#19418", "speculative reserve 4 GiB",
     [](R& r) { r.speculative_reserve_mib = 4096; }},
    {"2026-03-02", "#16331",
     "piecewise CUDA graph on by default (auto-disabled before the reserve); MLA reserve 1.5 GiB",
     [](R& r) {
       r.prefill_graph = PrefillGraphEra::kDefaultOn;
       r.prefill_graph_reserve = PrefillGraphReserve::kSizesTimes8OrMla;
       r.prefill_graph_off_for_speculative = true;
     }},
    {"2026-03-06", "#20063",
     "request pool for a user value divided by dp; extra_buffer slots by overlap (#20058)",
     [](R& r) {
       r.user_pool_divided_by_dp = true;
       r.extra_buffer_ratio_by_overlap = true;
     }},
    {"2026-03-08", "#20142", "explicit --max-running-requests clamped to the estimate",
     [](R& r) { r.running_requests = RunningRequestsEra::kUserClampedByEstimate; }},
    {"2026-03-31", "#21005", "decode capture list always includes max_bs",
     [](R& r) { r.decode_list_appends_max_bs = true; }},
    {"2026-04-16", "#22128", "speculative decoding no longer disables the piecewise graph",
     [](R& r) { r.prefill_graph_off_for_speculative = false; }},
    {"2026-04-19", "#21249",
     "FlashInfer fusion workspace pre-initialised at warmup; failure → warning",
     [](R& r) { r.fusion_on_unsupported_gpu = FusionOnUnsupportedGpu::kWorkspaceWarning; }},
    {"2026-05-27", "#23837", "mamba pool solved jointly with speculative intermediates",
     [](R& r) { r.mamba = MambaPool::kJointSolve; }},
    {"2026-06-08", "release 0.5.13 (wheel grep; \"nsa\" through 0.5.12.post1)",
     "the DeepSeek Sparse Attention backend is named dsa (was nsa)",
     [](R& r) { r.dsa_backend_named_dsa = true; }},
    {"2026-06-09", "#23906", "per-phase cuda_graph_config; prefill default tc_piecewise",
     [](R& r) { r.prefill_graph = PrefillGraphEra::kPerPhaseConfig; }},
    {"2026-06-12", "#27399",
     "explicit --max-running-requests respected up to T//2; speculative reserve replaced by draft "
     "KV cell scaling (#23862)",
     [](R& r) {
       r.running_requests = RunningRequestsEra::kUserRespected;
       r.speculative_reserve_mib = 0;
       r.standalone_reserve = false;
       r.draft_kv = DraftKv::kCellScaling;
     }},
    {"2026-06-15", "#23402",
     "--enable-flashinfer-allreduce-fusion deprecated → --flashinfer-allreduce-fusion-backend auto",
     [](R& r) { r.fusion_flag_deprecated = true; }},
    {"2026-06-18", "#28151",
     "--mamba-radix-cache-strategy; auto → extra_buffer with overlap (5 slots per request)",
     [](R& r) {
       r.mamba_auto_extra_buffer = true;
       r.mamba_strategy_renamed = true;
     }},
    {"2026-06-23", "#28789",
     "FlashInfer fusion on SM120 raises ValueError at warmup: startup fails",
     [](R& r) { r.fusion_on_unsupported_gpu = FusionOnUnsupportedGpu::kStartupFailure; }},
    {"2026-07-01", "#29458", "prefill CUDA graph defaults to breakable on CUDA",
     [](R& r) { r.breakable_prefill_default = true; }},
    {"2026-07-04", "#29615", "decode graph reserve only when decode graphs run; +2 GiB for DeepEP",
     [](R& r) {
       r.decode_graph_reserve_always = false;
       r.deepep_reserve = true;
     }},
    {"2026-07-20", "first in release 0.5.16 (wheel diff)",
     "Qwen3.5/Qwen3-Next on SM100 pick trtllm_mha with "
     "page 64 unless page 1 is required, else triton with page 1 (0.5.9: always triton)",
     [](R& r) { r.hybrid_sm100_trtllm_mha = true; }},
    {"2026-07-20", "release 0.5.16 (wheel diff; not in 0.5.15.post1)",
     "DP attention re-clamps the prefill graph max_bs to the per-rank chunk",
     [](R& r) { r.prefill_max_bs_follows_dp_chunk = true; }},
    // After main 2026-07-20 (v0.5.16): docs/research/currency-2026-12.md §2.1 (git history to
    // 2026-08-22), then the release wheels (dated at the first release that shows the change,
    // data/sglang/releases.csv) and checked by tests/oracle/sglang-*.jsonl.
    {"2026-07-21", "#31682", "breakable prefill graph kept with DP attention (S1)",
     [](R& r) { r.breakable_allows_dp_attention = true; }},
    {"2026-07-23", "#32184",
     "mamba pool keeps a padding slot: K solved after it, K + 1 slots of state (S2)",
     [](R& r) { r.mamba_padding_slot = true; }},
    {"2026-07-26", "#30988", "breakable prefill graph kept with LoRA (S4)",
     [](R& r) { r.breakable_allows_lora = true; }},
    {"2026-07-31", "#31987", "breakable prefill graph kept with DeepEP (S9)",
     [](R& r) { r.breakable_a2a_allowed = 1; }},
    {"2026-08-02", "#33150", "breakable prefill graph kept with megamoe/flashinfer A2A (S10)",
     [](R& r) { r.breakable_a2a_allowed = 2; }},
    {"2026-08-03", "#30206", "prefill max_bs no longer clamped to --context-length (S11)",
     [](R& r) { r.prefill_max_bs_clamped_to_context = false; }},
    {"2026-08-09", "#33661", "every MLA model keeps the breakable prefill graph (S18)",
     [](R& r) { r.breakable_allows_mla = true; }},
    {"2026-08-12", "#34141",
     "multimodal models reserve SGLANG_VLM_CACHE_SIZE_MB (100) of the KV budget (S23)",
     [](R& r) { r.mm_kv_reservation = true; }},
    {"2026-08-31", "release 0.5.19 (wheel diff)",
     "with pp_size > 1 the breakable prefill graph is opt-in (disabled by default)",
     [](R& r) { r.breakable_opt_in_with_pp = true; }},
    {"2026-09-14", "release 0.5.20 (wheel diff)",
     "20–35 GiB tier: chunked_prefill_size 4096, decode max_bs 48 (tp < 4) / 160",
     [](R& r) { r.tiers = TierDefaults::kTiers35Wide; }},
    {"2026-10-12", "release 0.5.22 (wheel diff)",
     "a default decode max_bs is capped at --max-running-requests",
     [](R& r) { r.decode_max_bs_capped_by_running_requests = true; }},
    {"2026-10-12", "release 0.5.22 (wheel diff)",
     "EAGLE draft KV added as cell + int(cell · n/L) (was int(cell · (1 + n/L)))",
     [](R& r) { r.draft_kv_additive = true; }},
    {"2026-10-26", "release 0.5.23 (wheel diff)", "MLA prefill max_bs min(8192, chunked)",
     [](R& r) { r.mla_prefill_max_bs_8192 = true; }},
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

struct Release {
  std::string name;
  std::string date;
  std::string confidence;
  std::vector<std::string> cherry_picks;
  std::string evidence;
};

const std::vector<Release>& releases() {
  static const std::vector<Release> kReleases = [] {
    std::vector<Release> out;
    bool header_seen = false;
    for (const auto& row : embedded_csv("sglang/releases.csv")) {
      if (row.empty() || row[0].empty() || row[0][0] == '#')
        continue;
      if (!header_seen) {
        header_seen = true;  // release,main_date,confidence,cherry_picks,evidence
        continue;
      }
      if (row.size() < 5)
        continue;
      Release r{row[0], row[1], row[2], {}, row[4]};
      for (std::string_view c : split(row[3], ' ')) {
        if (!c.empty())
          r.cherry_picks.emplace_back(c);
      }
      out.push_back(std::move(r));
    }
    return out;
  }();
  return kReleases;
}

}  // namespace

const std::vector<ChangePoint>& change_points() {
  return kChangePoints;
}

std::string_view newest_modelled_date() {
  return newest_date();
}

RuleVariant rules_for_date(std::string_view date, const std::vector<std::string>& cherry_picks) {
  RuleVariant v;
  v.date = std::string(date);
  for (const ChangePoint& c : kChangePoints) {
    const bool picked =
        std::find(cherry_picks.begin(), cherry_picks.end(), c.pr) != cherry_picks.end();
    if (c.date <= date || picked) {
      c.apply(v.rules);
      if (c.date <= date)
        v.latest = &c;
    } else if (v.next == nullptr) {
      v.next = &c;
    }
  }
  return v;
}

std::string RuleVariant::describe() const {
  std::string out = fmt::format("main {}", date);
  if (latest != nullptr)
    out += fmt::format(": rules since {} ({} {})", latest->date, latest->pr, latest->what);
  if (next != nullptr)
    out += fmt::format("; ended {} by {} ({})", next->date, next->pr, next->what);
  return out;
}

Result<EngineVersion> resolve_sglang_version(std::string_view spec_view) {
  std::string spec(trim(spec_view));
  const std::vector<PypiRelease>& published = pypi_releases("sglang");
  const std::string newest_release = published.empty() ? "" : published.back().name;
  if (spec.empty() || spec == "latest" || spec == "main") {
    // The newest release users can install; its capacity rules are the newest modelled.
    EngineVersion v = *resolve_sglang_version(newest_release);
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
    if (spec < "2024-09-01") {
      return fail(
          fmt::format("--engine sglang@{}: dates before 2024-09-01 are not modelled", spec));
    }
    return EngineVersion{spec, spec, "main-branch date", {}, ""};
  }
  std::string name = spec;
  if (!name.empty() && (name[0] == 'v' || name[0] == 'V'))
    name.erase(0, 1);
  // The rules of a release cut after the newest modelled date are those of that date.
  const std::string unmodelled = unmodelled_changes_of("sglang", name);
  auto clamp = [&](EngineVersion v, const std::string& cut) {
    v.release = ReleaseFlagTables::of("sglang").release(name).value_or("");
    v.unmodelled_changes = !unmodelled.empty();
    if (cut > newest_date()) {
      v.main_date = std::string(newest_date());
      v.basis += fmt::format(
          "; newer than the newest modelled rules (main {} = release {}): those apply, "
          "the changes after them are not modelled",
          newest_date(), rules_currency("sglang").release);
      v.rules_gap = fmt::format(
          "sglang {} was cut after the newest modelled rules (main {} = release {}): the "
          "capacity figures follow those rules{}; flags are judged by {}'s own parser",
          name, newest_date(), rules_currency("sglang").release, unmodelled, name);
    }
    if (v.rules_gap.empty() && !unmodelled.empty())
      v.rules_gap = fmt::format("sglang {} is modelled to its cut (main {}){}", name, v.main_date,
                                unmodelled);
    return v;
  };
  for (int pass = 0; pass < 2; ++pass) {
    std::string candidate = name;
    if (pass == 1) {
      // A .devN or .postN build we do not list falls back to its release line.
      for (std::string_view suffix : {".dev", ".post", "rc"}) {
        auto at = candidate.find(suffix);
        if (at != std::string::npos)
          candidate.erase(at);
      }
    }
    for (const Release& r : releases()) {
      if (r.name == candidate) {
        return clamp(
            EngineVersion{
                spec, r.date,
                fmt::format("release {} ≈ main {} ({}{})", r.name, r.date, r.confidence,
                            r.cherry_picks.empty()
                                ? ""
                                : fmt::format(", with {}", fmt::join(r.cherry_picks, " "))),
                r.cherry_picks, ""},
            r.date);
      }
    }
    if (pass == 0) {
      if (const PypiRelease* p = find_pypi_release("sglang", candidate)) {
        // Published, but its branch cut is not in the release table: it is before the upload.
        return clamp(EngineVersion{spec,
                                   p->date,
                                   fmt::format("release {} uploaded to PyPI {} (its branch cut is "
                                               "earlier; data/sglang/pypi-releases.csv)",
                                               p->name, p->date),
                                   {},
                                   ""},
                     p->date);
      }
    }
  }
  if (!newest_release.empty() && release_numbers(name) > release_numbers(newest_release) &&
      !release_numbers(name).empty()) {
    // Newer than every release known here: accepted, judged as the newest.
    EngineVersion v = *resolve_sglang_version(newest_release);
    v.label = spec;
    v.basis = fmt::format("{} is newer than every release servescope knows (newest {}); {}", name,
                          newest_release, v.basis);
    v.newer_than_known = true;
    v.rules_gap = fmt::format(
        "{} {} is newer than every release servescope knows (newest {}): it is planned as {}",
        "sglang", name, newest_release, newest_release);
    return v;
  }
  return fail(fmt::format(
      "--engine sglang@{}: unknown version; give a release ({} … {}) or a main date YYYY-MM-DD",
      spec, releases().front().name, newest_release));
}

}  // namespace servescope::sglang
