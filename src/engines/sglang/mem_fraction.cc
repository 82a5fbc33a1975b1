// R2.4–R2.9: mem_fraction_static when --mem-fraction-static is not given
// (server_args.py::ServerArgs._handle_gpu_memory_settings; before 2025-09-20 __post_init__).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/units.h"
#include "engines/sglang/capacity_rules.h"

namespace servescope::sglang {
namespace {

constexpr char kSource[] = "server_args.py::ServerArgs._handle_gpu_memory_settings";

// Whether SGLANG_ENABLE_POST_CAPTURE_KV_SIZING=1 applies (post_capture_kv_sizing_planned).
bool post_capture_planned(const PlanContext& ctx) {
  const auto& env = ctx.scenario.environment;
  auto it = env.find("SGLANG_ENABLE_POST_CAPTURE_KV_SIZING");
  if (it == env.end() || (it->second != "1" && it->second != "true"))
    return false;
  const ResolvedArgs& a = ctx.args;
  return !ctx.scenario.hardware.gpu.is_amd && !a.uses_mla && a.kv_cache_dtype != "fp4_e2m1" &&
         ctx.in.setting_for("enable_memory_saver") == nullptr && !a.dp_attention &&
         (a.disaggregation_mode == "decode" || a.prefill_graph_backend != "disabled") &&
         (a.disaggregation_mode == "prefill" || a.decode_graph_backend != "disabled");
}

// The extra reserve speculative decoding took in this version (2025-06-10 … 2026-06-11).
double speculative_reserve(const PlanContext& ctx) {
  const ResolvedArgs& a = ctx.args;
  if (!a.speculative())
    return 0;
  if (a.speculative_algorithm == "NGRAM" || a.speculative_algorithm == "DFLASH")
    return 0;
  if (a.speculative_algorithm == "STANDALONE" && ctx.rules.standalone_reserve)
    return 6 * 1024;
  return ctx.rules.speculative_reserve_mib;
}

// ≤ 2025-06-09: the table by tp (R2.5 in its oldest form), with the 2025-04/05 refinements.
double tp_table_fraction(PlanContext& ctx, std::string* why) {
  const SglangRules& r = ctx.rules;
  const ResolvedArgs& a = ctx.args;
  const double gpu = a.gpu_memory_mib;
  const bool by_tp_pp = r.big_gpu == BigGpuFraction::kTableUpTo80ThenCap;
  const std::int64_t size = by_tp_pp ? a.tp * a.pp : a.tp;
  auto table = [&](std::int64_t n) {
    return n >= 16 ? 0.79 : n >= 8 ? r.tp8_fraction : n >= 4 ? 0.85 : n >= 2 ? 0.87 : 0.88;
  };
  double m = table(size);
  *why = fmt::format("Table by {} = {}: {}", by_tp_pp ? "tp·pp" : "tp", size, m);
  if (r.b200_fraction && gpu > 180000 && !ctx.scenario.hardware.gpu.is_amd) {
    *why = "Cards above 180000 MiB (B200) use 0.79 (2025-05-29, #6718)";
    return 0.79;
  }
  switch (r.big_gpu) {
    case BigGpuFraction::kNone:
      break;
    case BigGpuFraction::kMinus13GibAbove80:
      if (gpu > 81920) {
        m = (gpu - 13 * 1024) / gpu;
        *why = fmt::format("Above 80 GiB: (gpu − 13 GiB)/gpu = {:.4f} (2025-04-21, #5604)", m);
      }
      return m;
    case BigGpuFraction::kTableUpTo80ThenCap:
      if (gpu > 81920) {
        m = 0.88;
        *why = "Above 80 GiB the table is skipped: 0.88 (2025-04-30, #5724)";
      }
      [[fallthrough]];
    case BigGpuFraction::kCapAbove96:
      if (gpu > 96 * 1024) {
        const double cap_gib = a.speculative() && r.big_gpu_speculative_20gib ? 20 : 18;
        const double raised = std::min(m + 48 * 1024 * (1 - m) / gpu, (gpu - cap_gib * 1024) / gpu);
        *why += fmt::format(
            ", raised for cards above 96 GiB to min(m + 48 GiB·(1−m)/gpu, (gpu − {} GiB)/gpu) = "
            "{:.4f}",
            cap_gib, raised);
        m = raised;
      } else if (a.speculative() && r.small_gpu_speculative_scale) {
        m *= 0.95;
        *why += ", × 0.95 for speculative decoding on cards up to 96 GiB";
      }
      break;
  }
  return m;
}

// 2025-06-10 … 2025-09-28 (#7054, #10372): a reserve by GPU tier, in GiB.
double tier_reserve_mib(const PlanContext& ctx, std::string* why) {
  const ResolvedArgs& a = ctx.args;
  const double gib = a.gpu_memory_mib / 1024;
  const double ps = static_cast<double>(a.tp * a.pp);
  const bool raised = ctx.rules.tier_reserve_2025_09_27;
  double reserve_gib = 0;
  if (gib < 20 || gib < (raised ? 50 : 35)) {
    reserve_gib = 2.8 + ps / 10;
  } else if (gib < 90) {
    reserve_gib = (raised ? 12 : 9.5) + ps / 2;
  } else if (gib < 160) {
    reserve_gib = (raised ? 15 : 12) + ps / 2;
  } else {
    reserve_gib = 32;
  }
  *why = fmt::format("GPU tier reserve {:.2f} GiB (tp·pp = {:.0f})", reserve_gib, ps);
  double reserved = reserve_gib * 1024;
  if (double spec = speculative_reserve(ctx); spec > 0) {
    reserved += spec;
    *why += fmt::format(", +{:.0f} MiB for speculative decoding", spec);
  }
  if (a.dp_attention) {
    reserved += 4 * 1024;
    *why += ", +4 GiB for DP attention";
  }
  return reserved;
}

// ≥ 2025-09-29 (#10975/#11076): the reserve formula with its later terms.
double formula_reserve_mib(PlanContext& ctx, std::string* why) {
  const SglangRules& r = ctx.rules;
  const ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const double gpu_mem = a.gpu_memory_mib;
  if (post_capture_planned(ctx)) {
    *why =
        "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING=1: graphs are measured after capture, so only 512 "
        "MiB + tp·pp/8 GiB.";
    return 512 + static_cast<double>(a.tp * a.pp) / 8 * 1024;
  }
  // R2.5: tokens the activation working set scales with.
  double activation_tokens = 0;
  std::string act_why;
  if (a.disaggregation_mode == "decode" && !r.decode_graph_reserve_always) {
    const double running = static_cast<double>(
        a.max_running_requests.value_or(a.decode_max_bs > 0 ? a.decode_max_bs : 1));
    const double draft = static_cast<double>(a.speculative() ? a.speculative_draft_tokens : 1);
    activation_tokens = std::max(running * draft, 2048.0);
    act_why = "PD decode node: running requests × draft tokens, at least 2048.";
  } else if (a.chunked_prefill_size > 0) {
    activation_tokens = std::max<double>(static_cast<double>(a.chunked_prefill_size), 2048.0);
    act_why = "max(chunked_prefill_size, 2048).";
  } else {
    activation_tokens = std::max<double>(static_cast<double>(a.max_prefill_tokens), 2048.0);
    act_why = "Chunked prefill off: max(max_prefill_tokens, 2048).";
  }
  g.add({"activation_tokens",
         activation_tokens,
         "tokens",
         "R2.5",
         act_why,
         kSource,
         {"chunked_prefill_size.resolved", "arg.max_prefill_tokens", "arg.disaggregation_mode"}});

  // R2.6: graph reserve (the prefill part before the floor since 2026-01-10).
  double graph = 0;
  std::vector<std::string> parts;
  const bool decode_term = r.decode_graph_reserve_always || (a.disaggregation_mode != "prefill" &&
                                                             a.decode_graph_backend != "disabled");
  if (decode_term) {
    graph += static_cast<double>(a.decode_max_bs) * 2;
    parts.push_back(fmt::format("decode max_bs {}×2", a.decode_max_bs));
  }
  if (a.dp_attention && a.disaggregation_mode != "prefill") {
    graph += static_cast<double>(a.decode_max_bs * a.dp) * 3;
    parts.push_back(fmt::format("DP attention {}×{}×3", a.decode_max_bs, a.dp));
    if (a.decode_max_bs > 300) {
      graph += static_cast<double>(a.decode_max_bs * a.dp) * 1.5;
      parts.push_back(fmt::format("+{}×{}×1.5 (max_bs > 300)", a.decode_max_bs, a.dp));
    }
  }
  const bool prefill_graph =
      a.disaggregation_mode != "decode" && a.prefill_graph_backend != "disabled";
  double after_floor = 0;  // 2025-11-10 … 2026-01-09: the piecewise term came after the floor
  if (prefill_graph) {
    switch (r.prefill_graph_reserve) {
      case PrefillGraphReserve::kNone:
        break;
      case PrefillGraphReserve::kMaxTokensDiv4:
        after_floor = static_cast<double>(a.prefill_max_bs / 4);
        parts.push_back(
            fmt::format("piecewise max_tokens {}//4 after the floor", a.prefill_max_bs));
        break;
      case PrefillGraphReserve::kMaxTokensDiv8:
        after_floor = static_cast<double>(a.prefill_max_bs / 8);
        parts.push_back(
            fmt::format("piecewise max_tokens {}//8 after the floor", a.prefill_max_bs));
        break;
      case PrefillGraphReserve::kSizesTimes8:
        graph += static_cast<double>(a.prefill_bs.size()) * 8;
        parts.push_back(fmt::format("{} prefill sizes×8", a.prefill_bs.size()));
        break;
      case PrefillGraphReserve::kSizesTimes8OrMla:
        if (!a.uses_mla) {
          graph += static_cast<double>(a.prefill_bs.size()) * 8;
          parts.push_back(fmt::format("{} prefill sizes×8", a.prefill_bs.size()));
        } else {
          graph += 1.5 * 1024;
          parts.push_back("MLA prefill graph 1.5 GiB");
        }
        break;
    }
  }
  g.add(
      {"graph_reserve_mib",
       graph + after_floor,
       "MiB",
       "R2.6",
       parts.empty() ? std::string("No CUDA graph term.")
                     : fmt::format("{} MiB.", fmt::join(parts, " + ")),
       "server_args.py::ServerArgs.reserve_for_graph_mb",
       {"cuda_graph_max_bs_decode.resolved", "cuda_graph_backend_decode.resolved",
        "cuda_graph_backend_prefill.resolved", "cuda_graph_bs_prefill.resolved", "attn_dp_size"}});

  double reserved =
      512 + activation_tokens * 1.5 + static_cast<double>(a.tp * a.pp) / 8 * 1024 + graph;
  *why = fmt::format("512 + 1.5·{} + {}·{}/8·1024 + {} = {:.0f} MiB", activation_tokens, a.tp, a.pp,
                     graph, reserved);
  if (gpu_mem > 60 * 1024 && reserved < 10 * 1024) {
    reserved = 10 * 1024;
    *why += ", raised to the 10 GiB floor for cards above 60 GiB";
  }
  if (r.deepep_reserve && a.decode_graph_backend != "disabled" &&
      a.disaggregation_mode != "prefill" && a.moe_a2a_backend == "deepep") {
    reserved += 2048;
    *why += ", +2 GiB for DeepEP buffers";
  }
  if (double spec = speculative_reserve(ctx); spec > 0) {
    reserved += spec;
    *why += fmt::format(", +{:.0f} MiB for speculative decoding", spec);
  }
  if (after_floor > 0) {
    reserved += after_floor;
    *why += fmt::format(", +{:.0f} MiB for the piecewise graph", after_floor);
  }
  return reserved;
}

}  // namespace

void resolve_mem_fraction(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const SglangRules& r = ctx.rules;
  auto user = ctx.in.optional_real("mem_fraction_static");
  if (user) {
    g.add({"mem_fraction_static",
           *user,
           "fraction",
           "R2.7",
           "--mem-fraction-static as typed.",
           kSource,
           {"arg.mem_fraction_static"}});
    return;
  }
  const double gpu_mem = a.gpu_memory_mib;
  double heuristic = 0;
  std::string why;
  if (r.mem_fraction == MemFractionRule::kTpTable) {
    heuristic = tp_table_fraction(ctx, &why);
    std::vector<std::string> inputs = {"arg.tp_size", "arg.pp_size", "arg.speculative_algorithm"};
    if (r.big_gpu != BigGpuFraction::kNone || r.b200_fraction)
      inputs.push_back("gpu_memory_mib");
    g.add({"mem_fraction_static.heuristic", heuristic, "fraction", "R2.5", why + ".",
           "server_args.py::ServerArgs.__post_init__", inputs});
  } else {
    const double reserved = r.mem_fraction == MemFractionRule::kReserveByTier
                                ? tier_reserve_mib(ctx, &why)
                                : formula_reserve_mib(ctx, &why);
    g.add({"reserved_mem_mib",
           reserved,
           "MiB",
           r.mem_fraction == MemFractionRule::kReserveByTier ? "R2.5t" : "R2.5",
           why + ".",
           kSource,
           {"activation_tokens", "arg.tp_size", "arg.pp_size", "graph_reserve_mib",
            "gpu_memory_mib", "arg.moe_a2a_backend", "arg.speculative_algorithm"}});
    heuristic = python_round((gpu_mem - reserved) / gpu_mem, 3);
    g.add({"mem_fraction_static.heuristic",
           heuristic,
           "fraction",
           "R2.7",
           fmt::format("round(({:.0f} − {:.0f}) / {:.0f}, 3).", gpu_mem, reserved, gpu_mem),
           kSource,
           {"gpu_memory_mib", "reserved_mem_mib"}});
  }

  double mfs = heuristic;
  std::vector<std::string> final_inputs = {"mem_fraction_static.heuristic"};
  std::string final_why = "No multimodal adjustment: the heuristic value.";
  const ModelShape& m = ctx.scenario.model;
  const bool skip_language_only = a.language_only && r.vlm_skipped_for_language_only;
  if (a.multimodal && !skip_language_only && r.vlm_factor == 1) {
    mfs = heuristic * 0.90;
    final_inputs.push_back("arg.language_only");
    final_why = "Multimodal model: the heuristic × 0.90 (2025-07-04 … 07-17, #7748).";
  } else if (a.multimodal && !skip_language_only && r.vlm_factor == 2 && m.vision.present) {
    // R2.8 adjust_mem_fraction_for_vlm: L and H default to 24 and 1024 when the vision config
    // lacks num_hidden_layers / hidden_size (Qwen3.5 says `depth`, so L stays 24).
    const double layers = m.vision.num_hidden_layers.value_or(24);
    const double hidden = m.vision.hidden_size.value_or(1024);
    const double complexity = layers * hidden * hidden / (24.0 * 1024 * 1024);
    const double f = std::clamp(1.0 - 0.1 * (complexity - 1.0), 0.8, 1.05);
    const double factor = 0.95 * f;
    g.input("vision_layers", layers, "layers", Origin::kModelConfig,
            m.vision.num_hidden_layers ? "config.json vision_config.num_hidden_layers"
                                       : "default 24: vision_config has no num_hidden_layers");
    g.input("vision_hidden_size", hidden, "", Origin::kModelConfig,
            m.vision.hidden_size ? "config.json vision_config.hidden_size" : "default 1024");
    g.add({"vlm_factor",
           factor,
           "",
           "R2.8",
           fmt::format("0.95 × clamp(1 − 0.1·({}·{}²/(24·1024²) − 1), 0.8, 1.05) = 0.95 × {:.5f}.",
                       layers, hidden, f),
           "server_args.py::ServerArgs.adjust_mem_fraction_for_vlm",
           {"vision_layers", "vision_hidden_size", "arg.language_only"}});
    mfs = heuristic * factor;
    final_inputs.push_back("vlm_factor");
    final_why = fmt::format("Multimodal {}: the heuristic × the VLM factor (not re-rounded).",
                            m.architecture);
  }
  if (ctx.scenario.hardware.gpu.is_amd && a.attention_backend == "aiter" && a.context_len > 8192) {
    mfs *= 0.85;
    final_inputs.push_back("attention_backend.resolved");
    final_why += " ×0.85 for the aiter backend with context > 8192 (R2.9).";
  }
  g.add({"mem_fraction_static", mfs, "fraction", "R2.8", final_why, kSource, final_inputs});
  ctx.resolved("mem_fraction_static", "", fmt::format("{:.4f}", mfs), final_why);
}

}  // namespace servescope::sglang
