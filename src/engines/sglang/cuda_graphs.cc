// R2.1–R2.3 and §9.3: chunked prefill, decode and prefill CUDA graphs
// (server_args.py::ServerArgs._handle_gpu_memory_settings, _handle_cuda_graph_config and,
// before 2026-06-09, _handle_piecewise_cuda_graph and cuda_graph_runner.py's capture list).
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "engines/sglang/server_args_resolution.h"

namespace servescope::sglang {
namespace {

constexpr char kMemorySettings[] = "server_args.py::ServerArgs._handle_gpu_memory_settings";

using Sizes = std::vector<std::int64_t>;

void range(Sizes& out, std::int64_t from, std::int64_t to, std::int64_t step) {
  for (std::int64_t x = from; x < to; x += step)
    out.push_back(x);
}

struct GraphPhase {
  std::string backend;
  bool locked = false;
  std::string lock_reason;
  std::optional<std::int64_t> max_bs;
  std::optional<Sizes> bs;
};

void apply_json_phase(const nlohmann::json& phase, GraphPhase& p, const std::string& typed) {
  if (!phase.is_object())
    return;
  if (auto b = phase.find("backend"); b != phase.end() && b->is_string()) {
    p.backend = b->get<std::string>();
    p.locked = true;
    p.lock_reason = typed;
  }
  if (auto m = phase.find("max_bs"); m != phase.end() && m->is_number_integer())
    p.max_bs = m->get<std::int64_t>();
  if (auto l = phase.find("bs"); l != phase.end() && l->is_array()) {
    Sizes v;
    for (const auto& e : *l) {
      if (e.is_number_integer())
        v.push_back(e.get<std::int64_t>());
    }
    p.bs = v;
  }
}

// --- R2.1 tiers ----------------------------------------------------------------------------

struct TierChoice {
  std::int64_t chunk = 0;
  std::optional<std::int64_t> max_bs;  // unset: the capture list decides (2025-04-21 … 2025-09-26)
  std::string name;
};

TierChoice tier_defaults(const SglangRules& r, double mib, std::int64_t tp) {
  const double gib = mib / 1024;
  switch (r.tiers) {
    case TierDefaults::kFixed:
      return {8192, 160, "fixed defaults (≤ 2024-11-14)"};
    case TierDefaults::kSmallGpuBs4:
      return mib < 25000 ? TierChoice{2048, 4, "< 25000 MiB"}
                         : TierChoice{8192, 160, "≥ 25000 MiB"};
    case TierDefaults::kSmallGpuBs8:
      return mib < 25000 ? TierChoice{2048, 8, "< 25000 MiB"}
                         : TierChoice{8192, 160, "≥ 25000 MiB"};
    case TierDefaults::kSmallGpuBs8Or80:
      return mib < 25000 ? TierChoice{2048, tp < 4 ? 8 : 80, "< 25000 MiB"}
                         : TierChoice{8192, 160, "≥ 25000 MiB"};
    case TierDefaults::kRuntimeMaxBs: {
      if (mib < 25000)
        return {2048, tp < 4 ? 8 : 80, "< 25000 MiB"};
      return {r.b200_fraction && mib > 180000 ? 16384 : 8192, std::nullopt,
              "≥ 25000 MiB (max_bs from the capture list)"};
    }
    case TierDefaults::kTiers35:
      if (gib < 35)
        return {2048, tp < 4 ? 8 : 80, "< 35 GiB"};
      if (gib < 160)
        return {8192, std::nullopt, "< 160 GiB (max_bs from the capture list)"};
      return {16384, std::nullopt, "≥ 160 GiB (max_bs from the capture list)"};
    case TierDefaults::kTiers50:
      if (gib < 20)
        return {2048, 8, "< 20 GiB"};
      if (gib < 50)
        return {2048, tp < 4 ? 16 : 80, "< 50 GiB"};
      if (gib < 90)
        return {8192, tp < 4 ? 256 : 512, "< 90 GiB"};
      if (gib < 160)
        return {8192, 512, "< 160 GiB"};
      return {16384, 512, "≥ 160 GiB"};
    case TierDefaults::kTiers60:
    case TierDefaults::kHead:
    case TierDefaults::kTiers35Wide: {
      const bool wide = r.tiers == TierDefaults::kTiers35Wide;
      const std::int64_t mid = wide ? 48 : r.tiers == TierDefaults::kHead ? 24 : 16;
      if (gib < 20)
        return {2048, 8, "R2.1a (< 20 GiB)"};
      if (gib < 35)
        return {wide ? 4096 : 2048, tp < 4 ? mid : wide ? 160 : 80, "R2.1b (< 35 GiB)"};
      if (gib < 60)
        return {4096, tp < 4 ? 32 : 160, "R2.1c (< 60 GiB)"};
      if (gib < 90)
        return {8192, tp < 4 ? 256 : 512, "R2.1d (< 90 GiB)"};
      if (gib < 160)
        return {8192, tp < 4 ? 256 : 512, "R2.1e (< 160 GiB)"};
      return {16384, 512, "R2.1f (≥ 160 GiB)"};
    }
  }
  return {8192, 160, "?"};
}

// --- R2.2 decode capture list ---------------------------------------------------------------

Sizes decode_list(const SglangRules& r, std::optional<std::int64_t> max_bs, bool speculative,
                  bool no_padding, double mib) {
  Sizes bs;
  const double gib = mib / 1024;
  switch (r.decode_list) {
    case DecodeCaptureList::kUpTo160:
      // cuda_graph_runner.py (≤ 2025-05-11): [1, 2, 4] + 8..160 step 8; speculative 1..32.
      if (no_padding) {
        range(bs, 1, 33, 1);
      } else if (speculative && r.speculative_default_running_requests > 0) {
        range(bs, 1, 33, 1);
      } else {
        bs = {1, 2, 4};
        range(bs, 8, 161, 8);
      }
      if (r.big_gpu != BigGpuFraction::kNone && gib > 120)
        range(bs, 168, 249, 8);
      break;
    case DecodeCaptureList::kUpTo160Stepped:
      if (no_padding) {
        range(bs, 1, 33, 1);
      } else if (speculative) {
        range(bs, 1, 9, 1);
        range(bs, 10, 33, 2);
        range(bs, 40, 161, 16);
      } else {
        bs = {1, 2, 4, 8};
        range(bs, 16, 161, 8);
      }
      if (gib > 90)
        range(bs, 168, 257, 8);
      if (mib > 160000)
        range(bs, 272, 513, 16);
      if (max_bs && *max_bs > bs.back())
        range(bs, bs.back() + 16, *max_bs + 1, 16);
      break;
    case DecodeCaptureList::kGenerated: {
      const std::int64_t top = max_bs.value_or(160);
      if (no_padding) {
        range(bs, 1, top + 1, 1);
      } else if (!speculative) {
        bs = {1, 2, 4, 8, 12};
        range(bs, 16, 257, 8);
        range(bs, 272, 512, 16);
        range(bs, 512, top + 1, r.decode_list_tail_step_32 ? 32 : 1);
      } else {
        range(bs, 1, 9, 1);
        range(bs, 10, 33, 2);
        range(bs, 40, r.decode_list_speculative_64 ? 65 : 61, 4);
        range(bs, 72, 257, 8);
        range(bs, 272, top + 1, 16);
      }
      break;
    }
  }
  if (max_bs)
    std::erase_if(bs, [&](std::int64_t x) { return x > *max_bs; });
  std::sort(bs.begin(), bs.end());
  bs.erase(std::unique(bs.begin(), bs.end()), bs.end());
  if (max_bs && r.decode_list_appends_max_bs &&
      std::find(bs.begin(), bs.end(), *max_bs) == bs.end()) {
    bs.push_back(*max_bs);
  }
  return bs;
}

// --- R2.3 prefill capture list --------------------------------------------------------------

Sizes prefill_list(const SglangRules& r, std::int64_t max_bs) {
  Sizes bs;
  range(bs, 4, 33, 4);
  range(bs, 48, 257, 16);
  range(bs, 288, 513, 32);
  if (r.prefill_list == 0) {
    range(bs, 640, 4097, 128);
    range(bs, 4352, max_bs + 1, 256);
  } else {
    range(bs, r.prefill_list == 1 ? 640 : 576, 1025, 64);
    range(bs, 1280, 4097, 256);
    range(bs, 4608, max_bs + 1, 512);
  }
  std::erase_if(bs, [&](std::int64_t x) { return x > max_bs; });
  return bs;
}

// --- §9.3 prefill graph ---------------------------------------------------------------------

bool piecewise_multimodal_ok(std::string_view arch) {
  return contains_arch({"Cohere2VisionForConditionalGeneration", "KimiK25ForConditionalGeneration",
                        "MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"},
                       arch);
}

// Why SGLang's compatibility cascade turns `backend` off here, or "" when it keeps it.
std::string prefill_graph_incompatibility(const PlanContext& ctx, const std::string& backend) {
  const ResolvedArgs& a = ctx.args;
  const std::string& arch = ctx.scenario.model.architecture;
  const bool lora = ctx.in.setting_for("enable_lora") != nullptr;
  const bool legacy = ctx.rules.prefill_graph == PrefillGraphEra::kDefaultOn;
  if (backend == "tc_piecewise") {
    if (contains_arch({"DeepseekV4ForCausalLM", "Qwen3NextForCausalLM", "BailingMoeV2_5ForCausalLM",
                       "LLaDAModelLM", "DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM"},
                      arch)) {
      return "the model-arch blacklist (" + arch + ")";
    }
    if (a.dp_attention)
      return "DP attention";
    if (ctx.in.setting_for("enable_torch_compile") != nullptr)
      return "full torch.compile mode";
    if (a.pp > 1)
      return "pipeline parallelism (pp_size > 1)";
    if (ctx.scenario.hardware.gpu.is_amd)
      return "non-CUDA hardware (HIP)";
    if (a.moe_a2a_backend != "none")
      return "an MoE A2A backend";
    if (lora)
      return "LoRA";
    if (a.multimodal && (legacy || !piecewise_multimodal_ok(arch)))
      return "a multimodal model";
    if (ctx.in.setting_for("enable_hierarchical_cache") != nullptr ||
        ctx.in.setting_for("cpu_offload_gb") != nullptr) {
      return "CPU offload / hierarchical cache";
    }
    if (ctx.in.setting_for("enable_deterministic_inference") != nullptr)
      return "deterministic inference";
    if (a.disaggregation_mode != "null")
      return "PD disaggregation";
    if (ctx.rules.prefill_graph_off_for_speculative && a.speculative())
      return "speculative decoding (2026-03-02 … 04-16)";
    return "";
  }
  if (backend == "breakable") {
    const SglangRules& r = ctx.rules;
    if (a.uses_mla && !r.breakable_allows_mla)
      return "MLA attention";
    if (arch == "DeepseekV4ForCausalLM")
      return "DeepSeek-V4";
    if (lora && !r.breakable_allows_lora)
      return "LoRA";
    const std::string& a2a = a.moe_a2a_backend;
    const bool a2a_ok = a2a == "none" || (r.breakable_a2a_allowed >= 1 && a2a == "deepep") ||
                        (r.breakable_a2a_allowed >= 2 && (a2a == "megamoe" || a2a == "flashinfer"));
    if (!a2a_ok)
      return r.breakable_a2a_allowed > 0 ? "an unvalidated MoE A2A backend" : "an MoE A2A backend";
    if (a.dp_attention && !r.breakable_allows_dp_attention)
      return "DP attention";
    if (a.multimodal &&
        !contains_arch({"Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"},
                       arch)) {
      return "a multimodal model";
    }
  }
  return "";
}

// Which prefill backend SGLang runs, and why.
std::pair<GraphPhase, std::string> resolve_prefill_backend(PlanContext& ctx, GraphPhase prefill,
                                                           bool amd) {
  const SglangRules& r = ctx.rules;
  const ResolvedArgs& a = ctx.args;
  switch (r.prefill_graph) {
    case PrefillGraphEra::kAbsent:
      prefill.backend = "disabled";
      return {
          prefill,
          "This version has no prefill CUDA graph (piecewise graphs arrived 2025-10-11, #10062)."};
    case PrefillGraphEra::kOptIn:
      if (ctx.in.boolean("enable_piecewise_cuda_graph")) {
        prefill.backend = "tc_piecewise";
        return {prefill,
                "--enable-piecewise-cuda-graph turns the opt-in piecewise prefill graph on."};
      }
      prefill.backend = "disabled";
      return {
          prefill,
          "The piecewise prefill graph is opt-in in this version (--enable-piecewise-cuda-graph)."};
    case PrefillGraphEra::kDefaultOn:
    case PrefillGraphEra::kPerPhaseConfig:
      break;
  }
  if (prefill.locked) {
    return {prefill, fmt::format("Set explicitly ({}); the compatibility cascade is skipped.",
                                 prefill.lock_reason)};
  }
  std::string why;
  if (r.prefill_graph == PrefillGraphEra::kDefaultOn) {
    prefill.backend = "tc_piecewise";
    why = "The piecewise prefill graph is on by default (2026-03-02 … 2026-06-08).";
  } else {
    prefill.backend = amd || !r.breakable_prefill_default ? "tc_piecewise" : "breakable";
    why = fmt::format("Default prefill backend {} on {}.", prefill.backend, amd ? "HIP" : "CUDA");
    if (prefill.backend == "breakable" && a.multimodal &&
        piecewise_multimodal_ok(ctx.scenario.model.architecture)) {
      prefill.backend = "tc_piecewise";
      why += " Validated multimodal decoder prefill uses tc_piecewise.";
    }
  }
  std::string reason = prefill_graph_incompatibility(ctx, prefill.backend);
  if (r.breakable_opt_in_with_pp && prefill.backend == "breakable" && a.pp > 1) {
    // cuda_graph_hook.py::apply_cuda_graph_compatibility: PP replay is opt-in.
    why +=
        " Pipeline parallelism makes the breakable prefill graph opt-in "
        "(--cuda-graph-backend-prefill breakable), so it is disabled.";
    prefill.backend = "disabled";
  } else if (!reason.empty()) {
    why += fmt::format(" {} is incompatible with {}, so the prefill graph is disabled.",
                       prefill.backend, reason);
    prefill.backend = "disabled";
  } else if (a.multimodal) {
    why += fmt::format(" {} is allowlisted for {} prefill.", ctx.scenario.model.architecture,
                       prefill.backend);
  }
  if (a.disaggregation_mode == "decode") {
    prefill.backend = "disabled";
    why += " A PD decode node runs no prefill graph.";
  }
  return {prefill, why};
}

}  // namespace

void resolve_cuda_graphs(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const SglangRules& r = ctx.rules;
  const bool amd = ctx.scenario.hardware.gpu.is_amd;

  GraphPhase decode{"full"};
  GraphPhase prefill{"disabled"};
  // _parse_cuda_graph_config precedence: legacy < per-phase switches < convenience < JSON.
  if (ctx.in.boolean("disable_cuda_graph")) {
    decode = {"disabled", true, ctx.typed("disable_cuda_graph")};
    prefill = {"disabled", true, ctx.typed("disable_cuda_graph")};
  }
  if (ctx.in.boolean("disable_prefill_cuda_graph"))
    prefill = {"disabled", true, ctx.typed("disable_prefill_cuda_graph")};
  if (ctx.in.boolean("disable_decode_cuda_graph"))
    decode = {"disabled", true, ctx.typed("disable_decode_cuda_graph")};
  if (auto b = ctx.in.optional_text("cuda_graph_backend_decode"))
    decode = {*b, true, ctx.typed("cuda_graph_backend_decode")};
  if (auto b = ctx.in.optional_text("cuda_graph_backend_prefill"))
    prefill = {*b, true, ctx.typed("cuda_graph_backend_prefill")};
  decode.max_bs = ctx.in.optional_integer("cuda_graph_max_bs_decode", "requests");
  prefill.max_bs = ctx.in.optional_integer("cuda_graph_max_bs_prefill", "tokens");
  decode.bs = ctx.in.int_list("cuda_graph_bs_decode");
  prefill.bs = ctx.in.int_list("cuda_graph_bs_prefill");
  if (auto json_text = ctx.in.optional_text("cuda_graph_config")) {
    auto j = nlohmann::json::parse(*json_text, nullptr, false);
    if (j.is_object()) {
      if (auto d = j.find("decode"); d != j.end())
        apply_json_phase(*d, decode, ctx.typed("cuda_graph_config"));
      if (auto p = j.find("prefill"); p != j.end())
        apply_json_phase(*p, prefill, ctx.typed("cuda_graph_config"));
    }
  }
  auto [prefill_resolved, prefill_why] = resolve_prefill_backend(ctx, prefill, amd);
  prefill = prefill_resolved;
  if (a.disaggregation_mode == "prefill" && !decode.locked)
    decode.backend = "disabled";
  a.decode_graph_backend = decode.backend;
  a.prefill_graph_backend = prefill.backend;
  g.add({"cuda_graph_backend_decode.resolved",
         decode.backend,
         "",
         "R9.3",
         decode.locked ? fmt::format("Set explicitly ({}).", decode.lock_reason)
                       : std::string("Decode graphs default to full capture."),
         "server_args.py::ServerArgs._parse_cuda_graph_config",
         {"arg.cuda_graph_backend_decode", "arg.disable_cuda_graph"}});
  g.add({"cuda_graph_backend_prefill.resolved",
         prefill.backend,
         "",
         "R9.3",
         prefill_why,
         r.prefill_graph == PrefillGraphEra::kPerPhaseConfig
             ? "server_args.py::ServerArgs._apply_cuda_graph_compatibility"
             : "server_args.py::ServerArgs._handle_piecewise_cuda_graph",
         {"arg.cuda_graph_backend_prefill", "arg.disable_cuda_graph",
          "arg.enable_piecewise_cuda_graph"}});
  if (!prefill.locked && prefill.backend == "disabled" &&
      r.prefill_graph >= PrefillGraphEra::kDefaultOn) {
    ctx.resolved("cuda_graph_backend_prefill", "", "disabled", prefill_why);
  }

  // R2.1
  const TierChoice tier = tier_defaults(r, a.gpu_memory_mib, a.tp);
  auto user_chunk = ctx.in.optional_integer("chunked_prefill_size", "tokens");
  a.chunked_prefill_size = user_chunk.value_or(tier.chunk);
  g.add({"chunked_prefill_size.resolved",
         a.chunked_prefill_size,
         "tokens",
         "R2.1",
         user_chunk ? std::string("--chunked-prefill-size as typed.")
                    : fmt::format("GPU memory tier {}: {} tokens.", tier.name, tier.chunk),
         kMemorySettings,
         {"arg.chunked_prefill_size", "gpu_memory_mib", "arg.tp_size"}});

  // R2.2
  const bool speculative = a.speculative();
  const bool no_padding = ctx.in.boolean("disable_cuda_graph_padding");
  std::string decode_why;
  if (decode.bs) {
    a.decode_bs = *decode.bs;
    a.decode_max_bs = *std::max_element(a.decode_bs.begin(), a.decode_bs.end());
    decode_why = "An explicit decode batch-size list sets max_bs to its largest entry.";
  } else {
    std::optional<std::int64_t> max_bs = decode.max_bs ? decode.max_bs : tier.max_bs;
    // A default max_bs above --max-running-requests is capped at it (memory_hook.py,
    // handle_gpu_memory_settings, first in 0.5.22).
    const auto requested = ctx.in.optional_integer("max_running_requests", "requests");
    bool capped = false;
    if (r.decode_max_bs_capped_by_running_requests && !decode.max_bs && max_bs && requested &&
        *max_bs > *requested) {
      max_bs = *requested;
      capped = true;
    }
    a.decode_bs = decode_list(r, max_bs, speculative, no_padding, a.gpu_memory_mib);
    a.decode_max_bs = max_bs ? *max_bs : (a.decode_bs.empty() ? 0 : a.decode_bs.back());
    decode_why =
        decode.max_bs ? std::string("Decode max_bs as typed.")
        : capped ? fmt::format("The tier's default, capped at --max-running-requests {}.", *max_bs)
        : tier.max_bs
            ? fmt::format("GPU memory tier {} with tp_size {}: {}.", tier.name, a.tp, *tier.max_bs)
            : std::string(
                  "No default max_bs in this version: the largest size of the capture list.");
  }
  g.add({"cuda_graph_max_bs_decode.resolved",
         a.decode_max_bs,
         "requests",
         "R2.1",
         decode_why,
         kMemorySettings,
         {"arg.cuda_graph_max_bs_decode", "arg.cuda_graph_bs_decode", "gpu_memory_mib",
          "arg.tp_size"}});
  g.add({"cuda_graph_bs_decode.resolved",
         IntList(a.decode_bs),
         "requests",
         "R2.2",
         no_padding    ? std::string("--disable-cuda-graph-padding: every size up to max_bs.")
         : speculative ? std::string("Speculative decoding uses the denser small-batch pattern.")
                       : std::string("The standard capture pattern up to max_bs."),
         r.decode_list == DecodeCaptureList::kGenerated
             ? "server_args.py::ServerArgs._generate_decode_cuda_graph_batch_sizes"
             : "model_executor/cuda_graph_runner.py::get_batch_sizes_to_capture",
         {"cuda_graph_max_bs_decode.resolved", "arg.speculative_algorithm"}});

  // R2.3
  std::string prefill_max_why;
  a.prefill_max_bs_typed = prefill.max_bs.has_value();
  a.prefill_bs_typed = prefill.bs.has_value();
  if (prefill.max_bs) {
    a.prefill_max_bs = *prefill.max_bs;
    prefill_max_why = "Prefill max_bs as typed.";
  } else if (r.prefill_graph == PrefillGraphEra::kOptIn &&
             r.prefill_graph_reserve < PrefillGraphReserve::kMaxTokensDiv8) {
    a.prefill_max_bs = 4096;
    prefill_max_why = "--piecewise-cuda-graph-max-tokens defaults to 4096 in this version.";
  } else {
    const bool mla_cap = a.uses_mla && r.prefill_list >= 1;
    const std::int64_t mla_max =
        r.mla_prefill_max_bs_8192 ? std::min<std::int64_t>(8192, a.chunked_prefill_size) : 2048;
    a.prefill_max_bs = mla_cap ? mla_max : a.chunked_prefill_size;
    prefill_max_why = mla_cap ? fmt::format("MLA models capture prefill up to {} tokens.", mla_max)
                              : "Prefill max_bs defaults to chunked_prefill_size.";
    if (r.prefill_graph >= PrefillGraphEra::kDefaultOn) {
      if (a.max_total_tokens && *a.max_total_tokens < a.prefill_max_bs) {
        a.prefill_max_bs = *a.max_total_tokens;
        prefill_max_why += " Capped by --max-total-tokens.";
      }
      if (contains(to_lower(ctx.in.text("model_path", "")), "llama-2")) {
        a.prefill_max_bs = std::min<std::int64_t>(a.prefill_max_bs, 4096);
        prefill_max_why += " Llama-2 models cap it at 4096.";
      }
    }
  }
  if (r.prefill_graph >= PrefillGraphEra::kDefaultOn && r.prefill_max_bs_clamped_to_context &&
      ctx.in.setting_for("context_length") != nullptr && a.context_len < a.prefill_max_bs) {
    a.prefill_max_bs = a.context_len;
    prefill_max_why += " Clamped to the explicit --context-length.";
  }
  g.add({"cuda_graph_max_bs_prefill.resolved",
         a.prefill_max_bs,
         "tokens",
         "R2.3",
         prefill_max_why,
         kMemorySettings,
         {"arg.cuda_graph_max_bs_prefill", "chunked_prefill_size.resolved", "context_len"}});
  a.prefill_bs = prefill.bs ? *prefill.bs : prefill_list(r, a.prefill_max_bs);
  g.add({"cuda_graph_bs_prefill.resolved",
         IntList(a.prefill_bs),
         "tokens",
         "R2.3",
         prefill.bs
             ? std::string("Prefill sizes as typed.")
             : fmt::format("{} capture sizes up to {}.", a.prefill_bs.size(), a.prefill_max_bs),
         "server_args.py::ServerArgs._generate_prefill_cuda_graph_batch_sizes",
         {"cuda_graph_max_bs_prefill.resolved"}});
}

void resolve_dp_attention_chunking(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const int divisor_rule = ctx.rules.dp_attention_chunk_divisor;
  std::int64_t chunk = a.chunked_prefill_size;
  std::string why = "The resolved chunk size (no DP attention division).";
  if (a.dp_attention && divisor_rule != 0 && chunk > 0) {
    const std::int64_t divisor = divisor_rule < 0 ? a.dp : divisor_rule;
    chunk /= divisor;
    why = fmt::format(
        "DP attention divides chunked_prefill_size by {} after the memory heuristic used {} "
        "(\"chunked prefill size is adjusted\").",
        divisor, a.chunked_prefill_size);
  }
  g.add({"chunked_prefill_size",
         chunk,
         "tokens",
         "R8.2",
         why,
         "server_args.py::ServerArgs._handle_data_parallelism",
         {"chunked_prefill_size.resolved", "attn_dp_size"}});
  a.chunked_prefill_size_final = chunk;
  // The prefill graph was sized from the undivided chunk (the memory settings run first, and
  // the fraction keeps that reserve); its max_bs and sizes follow the per-rank chunk.
  if (ctx.rules.prefill_max_bs_follows_dp_chunk && chunk != a.chunked_prefill_size &&
      a.prefill_graph_backend != "disabled" && !a.prefill_max_bs_typed &&
      a.prefill_max_bs > chunk) {
    a.prefill_max_bs = chunk;
    g.add({"cuda_graph_max_bs_prefill.resolved",
           a.prefill_max_bs,
           "tokens",
           "R2.3",
           fmt::format("Re-clamped to the per-DP-rank chunk {} after the DP-attention division.",
                       chunk),
           "server_args.py::ServerArgs._handle_data_parallelism",
           {"chunked_prefill_size"}});
    if (!a.prefill_bs_typed) {
      a.prefill_bs = prefill_list(ctx.rules, a.prefill_max_bs);
      g.add({"cuda_graph_bs_prefill.resolved",
             IntList(a.prefill_bs),
             "tokens",
             "R2.3",
             fmt::format("{} capture sizes up to {}.", a.prefill_bs.size(), a.prefill_max_bs),
             "server_args.py::ServerArgs._handle_data_parallelism",
             {"cuda_graph_max_bs_prefill.resolved"}});
    }
  }
}

}  // namespace servescope::sglang
