// R2.4–R2.9: mem_fraction_static (server_args.py::ServerArgs._handle_gpu_memory_settings).
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

}  // namespace

void resolve_mem_fraction(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
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
  double reserved = 0;
  std::vector<std::string> reserve_inputs;
  std::string why;
  if (post_capture_planned(ctx)) {
    reserved = 512 + static_cast<double>(a.tp * a.pp) / 8 * 1024;
    why =
        "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING=1: graphs are measured after capture, so only "
        "512 MiB + tp·pp/8 GiB is reserved.";
    reserve_inputs = {"arg.tp_size", "arg.pp_size"};
    g.add({"reserved_mem_mib", reserved, "MiB", "R2.4", why, kSource, reserve_inputs});
  } else {
    // R2.5: tokens the activation working set scales with.
    double activation_tokens = 0;
    std::string act_why;
    if (a.disaggregation_mode == "decode") {
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
           {"chunked_prefill_size", "arg.max_prefill_tokens", "arg.disaggregation_mode"}});

    // R2.6: graph reserve.
    double graph = 0;
    std::vector<std::string> parts;
    if (a.disaggregation_mode != "prefill" && a.decode_graph_backend != "disabled") {
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
    if (a.disaggregation_mode != "decode" && a.prefill_graph_backend != "disabled") {
      if (!a.uses_mla) {
        graph += static_cast<double>(a.prefill_bs.size()) * 8;
        parts.push_back(fmt::format("{} prefill sizes×8", a.prefill_bs.size()));
      } else {
        graph += 1.5 * 1024;
        parts.push_back("MLA prefill graph 1.5 GiB");
      }
    }
    g.add({"graph_reserve_mib",
           graph,
           "MiB",
           "R2.6",
           parts.empty() ? std::string("No CUDA graph is captured: nothing reserved.")
                         : fmt::format("{} MiB.", fmt::join(parts, " + ")),
           "server_args.py::ServerArgs.reserve_for_graph_mb",
           {"cuda_graph_max_bs_decode.resolved", "cuda_graph_backend_decode.resolved",
            "cuda_graph_backend_prefill.resolved", "cuda_graph_bs_prefill.resolved",
            "attn_dp_size"}});

    reserved = 512 + activation_tokens * 1.5 + static_cast<double>(a.tp * a.pp) / 8 * 1024 + graph;
    why = fmt::format("512 + 1.5·{} + {}·{}/8·1024 + {} = {:.0f} MiB", activation_tokens, a.tp,
                      a.pp, graph, reserved);
    if (gpu_mem > 60 * 1024 && reserved < 10 * 1024) {
      reserved = 10 * 1024;
      why += ", raised to the 10 GiB floor for cards above 60 GiB";
    }
    if (a.decode_graph_backend != "disabled" && a.disaggregation_mode != "prefill" &&
        a.moe_a2a_backend == "deepep") {
      reserved += 2048;
      why += ", +2 GiB for DeepEP buffers";
    }
    if (ctx.rules.speculative_reserve_in_mem_fraction && a.speculative()) {
      // Before 2026-06-12 (#23862) speculative decoding reserved extra headroom here.
      const double extra = a.speculative_algorithm == "STANDALONE" ? 6 * 1024
                           : a.speculative_algorithm == "NGRAM"    ? 0
                                                                   : 4 * 1024;
      reserved += extra;
      why += fmt::format(", +{:.0f} MiB for speculative decoding (before 2026-06-12)", extra);
    }
    g.add({"reserved_mem_mib",
           reserved,
           "MiB",
           "R2.5",
           why + ".",
           kSource,
           {"activation_tokens", "arg.tp_size", "arg.pp_size", "graph_reserve_mib",
            "gpu_memory_mib", "arg.moe_a2a_backend"}});
  }
  const double heuristic = python_round((gpu_mem - reserved) / gpu_mem, 3);
  g.add({"mem_fraction_static.heuristic",
         heuristic,
         "fraction",
         "R2.7",
         fmt::format("round(({:.0f} − {:.0f}) / {:.0f}, 3).", gpu_mem, reserved, gpu_mem),
         kSource,
         {"gpu_memory_mib", "reserved_mem_mib"}});

  double mfs = heuristic;
  std::vector<std::string> final_inputs = {"mem_fraction_static.heuristic"};
  std::string final_why = "No VLM adjustment: the heuristic value.";
  const ModelShape& m = ctx.scenario.model;
  if (a.multimodal && !a.language_only && m.vision.present) {
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
