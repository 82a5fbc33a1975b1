// V7.1–V7.4 and V8.1: optimization level, compilation and cudagraph mode, capture sizes, the
// runtime downgrade against the attention backends' support, and the allreduce+RMSNorm
// fusion default (vllm/config/vllm.py, vllm/config/compilation.py,
// vllm/v1/worker/gpu_model_runner.py::_check_and_update_cudagraph_mode).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/text.h"
#include "engines/vllm/capacity_rules.h"
#include "engines/vllm/split_capture_sizes.h"

namespace servescope::vllm {
namespace {

constexpr char kVllmConfig[] = "vllm/config/vllm.py";

int support_rank(std::string_view s) {
  if (s == "ALWAYS")
    return 3;
  if (s == "UNIFORM_BATCH")
    return 2;
  if (s == "UNIFORM_SINGLE_TOKEN_DECODE")
    return 1;
  return 0;  // NEVER
}

bool needs_piecewise(std::string_view mode) {
  return mode == "PIECEWISE" || mode == "FULL_AND_PIECEWISE";
}

bool has_full(std::string_view mode) {
  return mode == "FULL" || mode == "FULL_DECODE_ONLY" || mode == "FULL_AND_PIECEWISE";
}

std::string json_text(const std::optional<nlohmann::json>& j) {
  if (!j)
    return {};
  if (j->is_string())
    return to_upper(j->get<std::string>());
  return j->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// V7.3b (0.34.0+): with no deprecated size flag, prefill and decode graphs are sized apart and
// vLLM records the union of their token counts.
std::vector<std::int64_t> split_sizes(PlanContext& ctx, const std::vector<std::int64_t>& shared,
                                      std::int64_t q, std::string* why) {
  const ResolvedArgs& a = ctx.args;
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  SplitCaptureInputs in;
  in.shared_sizes = shared;
  in.max_num_seqs = a.max_num_seqs;
  in.max_num_batched_tokens = a.max_num_batched_tokens;
  in.decode_query_len = q;
  in.wide_defaults = !gpu.is_amd && !gpu.is_cpu && gpu.cc_major == 10;
  in.interactivity = a.performance_mode == "interactivity";
  in.drafter_decodes = a.spec_k >= 2 && (a.spec_method == "eagle" || a.spec_method == "eagle3" ||
                                         a.spec_method == "mtp" || a.spec_method == "draft_model");
  in.decode_only = a.cudagraph_mode == "FULL_DECODE_ONLY";
  // models/config.py::GptOssForCausalLMConfig: off SM100 the legacy 1024-token list becomes the
  // prefill sizes and 1024 tokens of decode the request cap.
  if (ctx.scenario.model.model_type == "gpt_oss" && !in.wide_defaults) {
    const std::int64_t max_tokens = std::min<std::int64_t>(a.max_num_batched_tokens, 1024);
    std::set<std::int64_t> legacy = {1, 2, 4};
    for (std::int64_t s = 8; s < 256; s += 8)
      legacy.insert(s);
    for (std::int64_t s = 256; s < 1024; s += 16)
      legacy.insert(s);
    for (std::int64_t s : legacy) {
      if (s < max_tokens)
        in.prefill_explicit.push_back(s);
    }
    in.prefill_explicit.push_back(max_tokens);
    in.max_decode_requests = 1024 / q;
  }
  const SplitCaptureSizes split = split_capture_sizes(in);
  *why = fmt::format(
      "Prefill graphs at {} token sizes{}, FULL decode graphs at {} request counts{}{}; the "
      "recorded list is every graph's token count (0.34.0, rule V7.3b).",
      split.prefill.size(),
      !in.prefill_explicit.empty() ? " (gpt-oss: the legacy 1024-token list)"
      : in.wide_defaults           ? " (SM100: the prefill grid up to min(8192, batched tokens))"
                                   : " (the shared sizes)",
      split.decode_requests.size(),
      in.wide_defaults ? " (the request grid up to max_num_seqs)" : "",
      split.drafter_graphs ? ", and the drafter's one-token decodes up to max_num_seqs" : "");
  return split.recorded;
}

// V7.3 VllmConfig._set_cudagraph_sizes.
void resolve_capture_sizes(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const std::string source = std::string(kVllmConfig) + "::VllmConfig._set_cudagraph_sizes";
  if (a.cudagraph_mode == "NONE" || a.enforce_eager) {
    a.capture_sizes.clear();
    a.max_capture_size = 0;
    g.add({"cudagraph_capture_sizes",
           IntList{},
           "",
           "V7.3",
           "No CUDA graphs: no capture sizes.",
           source,
           {"cudagraph_mode"}});
    g.add({"max_cudagraph_capture_size",
           std::int64_t{0},
           "",
           "V7.3",
           "No CUDA graphs.",
           source,
           {"cudagraph_capture_sizes"}});
    return;
  }
  auto user_max = ctx.in.json_value("compilation_config", "max_cudagraph_capture_size");
  auto flag_max = ctx.in.optional_integer("max_cudagraph_capture_size");
  auto user_sizes = ctx.in.json_value("compilation_config", "cudagraph_capture_sizes");
  auto flag_sizes = ctx.in.int_list("cudagraph_capture_sizes");
  const std::int64_t q = ctx.rules.spec_aware_capture_sizes ? 1 + a.spec_k : 1;
  std::int64_t max_cg = 0;
  std::string why;
  bool step16 = ctx.rules.capture_step16_from_256;
  if (user_max && user_max->is_number_integer()) {
    max_cg = user_max->get<std::int64_t>();
    why = "compilation_config.max_cudagraph_capture_size";
  } else if (flag_max) {
    max_cg = *flag_max;
    why = "--max-cudagraph-capture-size";
  } else if (ctx.scenario.model.model_type == "gpt_oss" && !user_sizes && !flag_sizes &&
             !ctx.rules.split_capture_sizes) {
    // models/config.py::GptOssForCausalLMConfig.verify_and_update_config raises the default.
    // Its list stepped by 16 from 256 before #26016 made that the default (a 0.10.1.1 log
    // captures 83 sizes up to 1024).
    max_cg = 1024;
    step16 = true;
    why = "gpt-oss raises the default largest capture size to 1024";
  } else {
    // V15 (#49390, 2026-08-07): the SM 10.x family (B200, GB200, B300) captures up to 1024.
    const GpuSpec& gpu = ctx.scenario.hardware.gpu;
    const std::int64_t cap =
        ctx.rules.capture_1024_on_sm10x && !gpu.is_amd && gpu.cc_major == 10 ? 1024 : 512;
    max_cg = std::min<std::int64_t>(a.max_num_seqs * q * 2, cap);
    why = fmt::format("min(max_num_seqs {} × {} × 2, {})", a.max_num_seqs, q, cap);
  }
  const std::int64_t tokens = a.max_num_batched_tokens;
  max_cg = std::min(tokens, max_cg);
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> typed;
  if (user_sizes && user_sizes->is_array()) {
    for (const auto& e : *user_sizes) {
      if (e.is_number_integer())
        typed.push_back(e.get<std::int64_t>());
    }
  } else if (flag_sizes) {
    typed = *flag_sizes;
  }
  if (!typed.empty()) {
    std::set<std::int64_t> uniq(typed.begin(), typed.end());
    for (std::int64_t s : uniq) {
      if (s <= tokens)
        sizes.push_back(s);
    }
    why = "the typed capture sizes, deduplicated and capped at max_num_batched_tokens";
  } else {
    if (a.performance_mode == "interactivity") {
      for (std::int64_t s = 1; s <= std::min<std::int64_t>(max_cg, 32); ++s)
        sizes.push_back(s);
    } else {
      for (std::int64_t s : {1, 2, 4}) {
        if (s <= max_cg)
          sizes.push_back(s);
      }
    }
    // Step 8; since #26016 (2025-10-24) step 16 from 256 (vLLM 0.10.x captures 67 sizes at 512,
    // 0.11.1 on 51).
    const std::int64_t step8_end = step16 ? 256 : max_cg + 1;
    if (max_cg >= 8) {
      for (std::int64_t s = 8; s < std::min<std::int64_t>(max_cg + 1, step8_end); s += 8)
        sizes.push_back(s);
    }
    if (step16 && max_cg >= 256) {
      for (std::int64_t s = 256; s <= max_cg; s += 16)
        sizes.push_back(s);
    }
    if (ctx.rules.capture_max_num_batched_tokens && tokens <= max_cg)
      sizes.push_back(tokens);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    why = step16 ? fmt::format("[1, 2, 4], 8…248 step 8, 256… step 16 up to {} ({})", max_cg, why)
                 : fmt::format(
                       "[1, 2, 4], 8… step 8 up to {} ({}; step 16 from 256 only since "
                       "#26016, 2025-10-24)",
                       max_cg, why);
  }
  const bool legacy = user_max || flag_max || !typed.empty();
  if (ctx.rules.split_capture_sizes && !legacy)
    sizes = split_sizes(ctx, sizes, q, &why);
  a.capture_sizes = sizes;
  a.max_capture_size = sizes.empty() ? 0 : sizes.back();
  g.add({"cudagraph_capture_sizes",
         IntList(sizes),
         "",
         "V7.3",
         why,
         source,
         {"cudagraph_mode", "max_num_seqs", "max_num_batched_tokens",
          "arg.compilation_config.cudagraph_capture_sizes", "arg.cudagraph_capture_sizes",
          "arg.compilation_config.max_cudagraph_capture_size", "arg.max_cudagraph_capture_size",
          "arg.performance_mode"}});
  g.add({"max_cudagraph_capture_size",
         a.max_capture_size,
         "",
         "V7.3",
         "The largest capture size.",
         source,
         {"cudagraph_capture_sizes"}});
}

// V8.1 enable_allreduce_rms_fusion (vllm/config/vllm.py), by date.
bool fusion_default(const PlanContext& ctx) {
  const ResolvedArgs& a = ctx.args;
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  if (gpu.is_amd || a.tp <= 1 || !ctx.rules.optimization_levels || a.optimization_level < 2)
    return false;
  const bool sm90 = gpu.cc_major == 9 && gpu.cc_minor == 0;
  switch (ctx.rules.fusion) {
    case FusionDefault::kOptIn:
      return false;
    case FusionDefault::kSm90Plus:
      return gpu.cc_major >= 9;
    case FusionDefault::kSm90Or100:
    case FusionDefault::kSm90Or10xFamily: {
      const bool arch = sm90 || (ctx.rules.fusion == FusionDefault::kSm90Or100
                                     ? (gpu.cc_major == 10 && gpu.cc_minor == 0)
                                     : gpu.cc_major == 10);
      return arch && (!ctx.rules.fusion_needs_dp1 || a.dp == 1) &&
             (!ctx.rules.fusion_needs_pp1 || a.pp == 1);
    }
  }
  return false;
}

void resolve_fusion(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  auto explicit_on = ctx.in.json_value("compilation_config", "pass_config.fuse_allreduce_rms");
  auto old_name = ctx.in.json_value("compilation_config", "pass_config.enable_fi_allreduce_fusion");
  if (old_name) {
    ctx.finding(Severity::kWarning, "removed-option", {ctx.in.typed("compilation_config")},
                "pass_config.enable_fi_allreduce_fusion was renamed fuse_allreduce_rms in v0.12 "
                "and removed in v0.13 (#30396)",
                "V8.1", "vllm/config/compilation.py::PassConfig");
  }
  const bool by_default = fusion_default(ctx);
  const bool requested =
      explicit_on && explicit_on->is_boolean() ? explicit_on->get<bool>() : by_default;
  const int cap = gpu.cc_major * 10 + gpu.cc_minor;
  const std::int64_t world = a.tp;
  const bool sized = !gpu.is_amd && (cap == 90 || cap == 100 || cap == 103);
  const bool world_ok = world == 2 || world == 4 || world == 8;
  std::string why;
  bool active = requested;
  if (!requested) {
    why = explicit_on ? "Turned off in pass_config."
                      : fmt::format(
                            "Not on by default here: the default needs O2+, TP > 1 and "
                            "SM 9.0 or 10.x on this date (TP {}, SM {}, O{}).",
                            a.tp, gpu.compute_capability, a.optimization_level);
  } else if (!a.compiled) {
    active = false;
    why = "Requested, but fusion passes are no-ops without VLLM_COMPILE (e.g. --enforce-eager).";
  } else if (a.tp <= 1 || !world_ok || !sized) {
    active = false;
    why = fmt::format("Requested, but AllReduceFusionPass disables itself: {}.",
                      a.tp <= 1 ? "TP ≤ 1"
                                : (!world_ok ? "the world size is not 2, 4 or 8"
                                             : fmt::format("FI_ALLREDUCE_FUSION_MAX_SIZE_MB has "
                                                           "no entry for SM {}",
                                                           gpu.compute_capability)));
    if (explicit_on) {
      ctx.finding(Severity::kWarning, "fusion-ineffective", {ctx.in.typed("compilation_config")},
                  fmt::format("fuse_allreduce_rms is silently ineffective on {} (SM {}) at TP {}: "
                              "the pass logs a warning and does nothing; capacity is unchanged",
                              gpu.key, gpu.compute_capability, a.tp),
                  "V8.1",
                  "vllm/compilation/passes/fusion/allreduce_rms_fusion.py::"
                  "AllReduceFusionPass.__init__");
    }
  } else {
    why = explicit_on ? "Requested in pass_config and supported here."
                      : "On by default: O2+, TP > 1, SM 9.0 or 10.x, FlashInfer assumed installed.";
  }
  a.fuse_allreduce_rms = active;
  g.add({"fuse_allreduce_rms",
         active,
         "",
         "V8.1",
         why,
         std::string(kVllmConfig) + "::enable_allreduce_rms_fusion",
         {"arg.compilation_config.pass_config.fuse_allreduce_rms", "arg.tensor_parallel_size",
          "gpu.compute_capability", "optimization_level"}});
}

}  // namespace

void resolve_compilation(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const std::string post_init = std::string(kVllmConfig) + "::VllmConfig.__post_init__";
  a.enforce_eager = ctx.in.optional_boolean("enforce_eager").value_or(false);
  std::string level_text = ctx.in.text("optimization_level", "2");
  if (!level_text.empty() && (level_text[0] == 'O' || level_text[0] == 'o'))
    level_text.erase(0, 1);
  a.optimization_level = static_cast<int>(parse_int(level_text).value_or(2));

  // V7.1 the level's defaults.
  std::string mode;
  if (ctx.rules.optimization_levels) {
    a.compiled = a.optimization_level >= 1;
    mode = a.optimization_level == 0
               ? "NONE"
               : (a.optimization_level == 1 ? "PIECEWISE" : "FULL_AND_PIECEWISE");
  } else {
    // Before #26847 -O was the compilation level; level 3 (the V1 default) is VLLM_COMPILE.
    a.compiled = ctx.in.setting_for("optimization_level") == nullptr || a.optimization_level == 3;
    mode = ctx.rules.full_and_piecewise_default ? "FULL_AND_PIECEWISE" : "PIECEWISE";
  }
  g.add({"optimization_level",
         a.optimization_level,
         "",
         "V7.1",
         ctx.rules.optimization_levels
             ? "O0 none, O1 piecewise graphs, O2 (default)/O3 full and piecewise graphs."
             : "Before #26847 (2025-11-27) -O was the compilation level.",
         std::string(kVllmConfig) + "::VllmConfig._apply_optimization_level_defaults",
         {"arg.optimization_level"}});
  auto cc_mode = ctx.in.json_value("compilation_config", "mode");
  auto cc_level = ctx.in.json_value("compilation_config", "level");
  auto cc_cg = ctx.in.json_value("compilation_config", "cudagraph_mode");
  const auto& cc_compile = cc_mode ? cc_mode : cc_level;
  if (cc_compile) {
    if (cc_compile->is_number_integer()) {
      a.compiled = cc_compile->get<int>() == 3;
    } else if (cc_compile->is_string()) {
      a.compiled = to_upper(cc_compile->get<std::string>()) == "VLLM_COMPILE";
    }
  }
  if (cc_cg)
    mode = json_text(cc_cg);
  std::vector<std::string> downgrades;
  // V7.2 forced downgrades.
  const auto torch_disable = ctx.in.env("TORCH_COMPILE_DISABLE", "0");
  if (a.enforce_eager) {
    a.compiled = false;
    mode = "NONE";
    downgrades.emplace_back("--enforce-eager: no compilation and no CUDA graphs");
  }
  if (torch_disable && (*torch_disable == "1" || to_lower(*torch_disable) == "true")) {
    a.compiled = false;
    downgrades.emplace_back("TORCH_COMPILE_DISABLE=1: compilation mode NONE");
  }
  if (!a.compiled && needs_piecewise(mode)) {
    downgrades.push_back(fmt::format(
        "cudagraph mode {} needs piecewise compilation, which is off: overriding to NONE", mode));
    mode = "NONE";
  }
  auto splitting = ctx.in.json_value("compilation_config", "splitting_ops");
  if (splitting && splitting->is_array() && splitting->empty() && needs_piecewise(mode)) {
    mode = mode == "PIECEWISE" ? "NONE" : "FULL";
    downgrades.emplace_back("empty splitting_ops: piecewise graphs become " + mode);
  }
  auto enable_sp = ctx.in.json_value("compilation_config", "pass_config.enable_sp");
  if (enable_sp && enable_sp->is_boolean() && enable_sp->get<bool>() && a.tp > 1 &&
      needs_piecewise(mode)) {
    mode = mode == "PIECEWISE" ? "FULL" : "FULL";
    downgrades.emplace_back("sequence parallelism clears the splitting ops: FULL graphs");
  }
  if (ctx.scenario.hardware.gpu.is_cpu && mode != "NONE") {
    // VC.5: the CPU platform empties cudagraph_capture_sizes: nothing is captured.
    mode = "NONE";
    downgrades.emplace_back(
        "the CPU platform captures no CUDA graphs (cudagraph_capture_sizes = [])");
  }
  a.cudagraph_mode = mode;
  g.add({"compilation_mode",
         std::string(a.compiled ? "VLLM_COMPILE" : "NONE"),
         "",
         "V7.1",
         a.compiled ? "torch.compile with vLLM's piecewise backend."
                    : (downgrades.empty() ? "No compilation at this level or mode."
                                          : downgrades.front() + "."),
         post_init,
         {"optimization_level", "arg.compilation_config.mode", "arg.enforce_eager",
          "env.TORCH_COMPILE_DISABLE"}});
  g.add({"cudagraph_mode",
         mode,
         "",
         downgrades.empty() ? "V7.1" : "V7.2",
         downgrades.empty() ? (cc_cg ? "As typed in compilation_config."
                                     : fmt::format("The default at this level{}.",
                                                   ctx.rules.full_and_piecewise_default
                                                       ? ""
                                                       : " (PIECEWISE before #25444, 2025-09-23)"))
                            : downgrades.back() + ".",
         post_init,
         {"optimization_level", "compilation_mode", "arg.compilation_config.cudagraph_mode",
          "arg.enforce_eager"}});
  for (const std::string& d : downgrades) {
    if (d.rfind("--enforce-eager", 0) == 0)
      continue;
    ctx.finding(Severity::kInfo, "cudagraph-downgrade", {ctx.in.typed("compilation_config")}, d,
                "V7.2", post_init);
  }
  resolve_capture_sizes(ctx);
  resolve_fusion(ctx);
}

void resolve_runtime_cudagraphs(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const std::string source =
      "vllm/v1/worker/gpu_model_runner.py::GPUModelRunner._check_and_update_cudagraph_mode";
  std::string support = a.cudagraph_support;
  const bool mamba = std::any_of(ctx.specs.begin(), ctx.specs.end(),
                                 [](const LayerSpec& s) { return s.kind == SpecKind::kMamba; });
  if (mamba && support_rank("UNIFORM_BATCH") < support_rank(support))
    support = "UNIFORM_BATCH";  // GDN / mamba metadata builders
  const std::int64_t q = 1 + a.spec_k;
  std::string mode = a.cudagraph_mode;
  std::string why = "The attention backends support the configured mode.";
  if (mode == "FULL" && support_rank(support) < 3) {
    mode = a.compiled ? "FULL_AND_PIECEWISE" : "FULL_DECODE_ONLY";
    why = fmt::format("FULL graphs of mixed batches need ALWAYS support ({}): {}.", support, mode);
  }
  if (has_full(mode)) {
    const int needed = q > 1 ? 2 : 1;
    if (support_rank(support) < needed) {
      const std::string to = mode == "FULL_AND_PIECEWISE" ? "PIECEWISE" : "NONE";
      why = fmt::format("{} with {} support{}: decode FULL graphs are dropped, cudagraph_mode={}.",
                        a.attention_backend, support,
                        q > 1 ? " under speculative decoding (q > 1 needs UNIFORM_BATCH)" : "", to);
      ctx.finding(Severity::kWarning, "cudagraph-downgrade", {},
                  fmt::format("CUDAGraphMode.{} is not supported with {} backend (support: {}); "
                              "setting cudagraph_mode={}",
                              mode, a.attention_backend, support, to),
                  "V7.4", source);
      mode = to;
    }
  }
  a.runtime_cudagraph_mode = mode;
  g.add({"runtime_cudagraph_mode",
         mode,
         "",
         "V7.4",
         why,
         source,
         {"cudagraph_mode", "attention_cudagraph_support", "num_speculative_tokens"}});
  // Decode FULL graphs under speculative decoding capture multiples of q
  // (CompilationConfig.adjust_cudagraph_sizes_for_spec_decode).
  if (has_full(mode) && mode != "FULL" && q > 1 && !a.capture_sizes.empty()) {
    std::vector<std::int64_t> rounded;
    for (std::int64_t s : a.capture_sizes) {
      const std::int64_t r = (s + q - 1) / q * q;
      if (r <= a.max_capture_size)
        rounded.push_back(r);
    }
    std::sort(rounded.begin(), rounded.end());
    rounded.erase(std::unique(rounded.begin(), rounded.end()), rounded.end());
    if (rounded.empty() && q <= a.max_capture_size)
      rounded.push_back(q);
    Node config_sizes = *g.find("cudagraph_capture_sizes");
    config_sizes.id = "cudagraph_capture_sizes.config";
    g.add(config_sizes);
    a.capture_sizes = rounded;
    g.add({"cudagraph_capture_sizes",
           IntList(rounded),
           "",
           "V9.5",
           fmt::format("FULL decode graphs with q = 1 + k = {}: sizes rounded up to multiples of "
                       "{} (at most {}).",
                       q, q, a.max_capture_size),
           "vllm/config/compilation.py::CompilationConfig.adjust_cudagraph_sizes_for_spec_decode",
           {"cudagraph_capture_sizes.config", "runtime_cudagraph_mode", "num_speculative_tokens"}});
  }
  std::int64_t piecewise = 0, full = 0, largest_full = 0;
  if (needs_piecewise(mode))
    piecewise = static_cast<std::int64_t>(a.capture_sizes.size());
  if (has_full(mode)) {
    for (std::int64_t s : a.capture_sizes) {
      if (s >= q && s <= q * a.max_num_seqs) {
        ++full;
        largest_full = std::max(largest_full, s);
      }
    }
  }
  g.add({"cudagraphs_piecewise",
         piecewise,
         "graphs",
         "V7.4",
         "One PIECEWISE graph per capture size (mixed prefill-decode batches).",
         "vllm/v1/cudagraph_dispatcher.py::CudagraphDispatcher.initialize_cudagraph_keys",
         {"runtime_cudagraph_mode", "cudagraph_capture_sizes"}});
  g.add({"cudagraphs_full",
         full,
         "graphs",
         "V7.4",
         fmt::format("FULL decode graphs for capture sizes between q={} and q × max_num_seqs "
                     "(largest {}).",
                     q, largest_full),
         "vllm/v1/cudagraph_dispatcher.py::CudagraphDispatcher.initialize_cudagraph_keys",
         {"runtime_cudagraph_mode", "cudagraph_capture_sizes", "max_num_seqs"}});
  // Mamba state blocks must cover every request of a FULL graph.
  if (mamba && has_full(mode) && ctx.plan.graph.find("num_gpu_blocks") != nullptr) {
    const std::int64_t blocks = ctx.plan.graph.value("num_gpu_blocks").as_int();
    if (a.max_num_seqs > blocks) {
      ctx.refuse(
          fmt::format("ValueError: max_num_seqs ({}) exceeds available Mamba cache blocks ({}).",
                      a.max_num_seqs, blocks));
      ctx.finding(Severity::kError, "mamba-blocks-below-max-num-seqs",
                  {ctx.in.typed("max_num_seqs")},
                  fmt::format("with FULL CUDA graphs a hybrid model needs max_num_seqs ({}) ≤ "
                              "the KV blocks ({}); lower --max-num-seqs or raise the KV memory",
                              a.max_num_seqs, blocks),
                  "V7.4", source);
    }
  }
}

}  // namespace servescope::vllm
