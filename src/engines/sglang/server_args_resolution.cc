#include "engines/sglang/server_args_resolution.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text.h"

namespace servescope::sglang {
namespace {

constexpr char kServerArgs[] = "server_args.py::ServerArgs";

std::string src(std::string_view function) {
  return fmt::format("{}.{}", kServerArgs, function);
}

// --- parallelism ------------------------------------------------------------------------

Status resolve_parallelism(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  a.tp = ctx.in.integer("tp_size", 1);
  a.pp = ctx.in.integer("pp_size", 1);
  a.dp = ctx.in.integer("dp_size", 1);
  a.ep = ctx.in.integer("ep_size", 1);
  a.nnodes = ctx.in.integer("nnodes", 1);
  const bool asked = ctx.in.boolean("enable_dp_attention");
  // overrides.py::_data_parallelism_defaults: with dp_size 1, DP attention is off.
  a.dp_attention = asked && a.dp > 1;
  a.attn_dp = a.dp_attention ? a.dp : 1;
  if (a.tp % a.attn_dp != 0) {
    return fail(
        fmt::format("--tp-size {} is not divisible by --dp-size {}: SGLang's DP attention needs "
                    "tp_size % dp_size == 0",
                    a.tp, a.dp));
  }
  a.attn_tp = a.tp / a.attn_dp;
  g.add({"attn_dp_size",
         a.attn_dp,
         "",
         "R8.1",
         a.dp_attention ? "With --enable-dp-attention every DP rank is an attention-DP worker."
                        : "Without DP attention there is one attention-DP worker.",
         "arg_groups/overrides.py::_data_parallelism_defaults",
         {"arg.dp_size", "arg.enable_dp_attention"}});
  g.add({"attn_tp_size",
         a.attn_tp,
         "",
         "R8.1",
         "Attention tensor parallelism is tp_size divided by the attention-DP size.",
         "distributed/parallel_state.py (attn_tp_size)",
         {"arg.tp_size", "attn_dp_size"}});
  return ok_status();
}

// --- context length -------------------------------------------------------------------

void resolve_context_length(PlanContext& ctx) {
  const ModelShape& m = ctx.scenario.model;
  Derivation& g = ctx.graph();
  g.input("model_context_length", m.context_length, "tokens", Origin::kModelConfig,
          fmt::format("config.json {}", m.context_length_field),
          "The model's context length as SGLang derives it (get_context_length).");
  auto user = ctx.in.optional_integer("context_length", "tokens");
  std::int64_t ctx_len = m.context_length;
  std::string why = "No --context-length: the model's derived context length.";
  if (user) {
    ctx_len = *user;
    why = "--context-length sets it.";
    if (*user > m.context_length) {
      const bool allowed =
          ctx.scenario.environment.count("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN") > 0;
      if (!allowed) {
        ctx.plan.starts = false;
        ctx.plan.startup_error = fmt::format(
            "ValueError: User-specified context_length ({}) is greater than the derived "
            "context_length "
            "({}). ... set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
            *user, m.context_length);
        ctx.finding(
            Severity::kError, "context-length-too-long", {ctx.typed("context_length")},
            fmt::format("--context-length {} exceeds the model's {}; SGLang refuses to start "
                        "unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
                        *user, m.context_length),
            "R1.2", "configs/model_config.py::ModelConfig._derive_context_length");
      }
      why =
          "--context-length above the model's own; allowed only with "
          "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN.";
    }
  }
  ctx.args.context_len = ctx_len;
  g.add({"context_len",
         ctx_len,
         "tokens",
         "R1.2",
         why,
         "configs/model_config.py::ModelConfig._derive_context_length",
         {"model_context_length", "arg.context_length"}});
}

// --- speculative decoding (§7, R5.10) ----------------------------------------------------

void resolve_speculative(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  auto algo = ctx.in.optional_text("speculative_algorithm");
  auto user_mrr = ctx.in.optional_integer("max_running_requests", "requests");
  a.max_running_requests = user_mrr;
  if (!algo) {
    g.add({"max_running_requests.requested",
           user_mrr ? Value(*user_mrr) : Value(),
           "requests",
           "R5.4",
           user_mrr ? "--max-running-requests as typed."
                    : "Not set: SGLang estimates it from the KV capacity.",
           src("max_running_requests"),
           {"arg.max_running_requests"}});
    return;
  }
  std::string name = to_upper(*algo);
  if (name == "NEXTN")
    name = "EAGLE";  // SpeculativeAlgorithm.from_string maps NEXTN to EAGLE
  a.speculative_algorithm = name;
  auto steps = ctx.in.optional_integer("speculative_num_steps");
  auto topk = ctx.in.optional_integer("speculative_eagle_topk");
  auto draft = ctx.in.optional_integer("speculative_num_draft_tokens");
  // speculative_hook.py::_auto_choose_speculative_params (steps, topk, draft tokens), by era.
  const std::string& arch = ctx.scenario.model.architecture;
  std::int64_t auto_steps = 3, auto_topk = 1, auto_draft = 4;
  const bool llama_like =
      arch == "LlamaForCausalLM" || arch == "Grok1ForCausalLM" || arch == "Grok1VForCausalLM";
  const bool deepseek = arch == "DeepseekV3ForCausalLM" || arch == "DeepseekV2ForCausalLM" ||
                        arch == "DeepseekV32ForCausalLM";
  switch (ctx.rules.speculative_params) {
    case 0:
      auto_steps = 5;
      auto_topk = 8;
      auto_draft = 64;
      break;  // the fields' defaults
    case 1:
      auto_steps = 5;
      auto_topk = 4;
      auto_draft = 8;
      break;
    case 2:
      if (!deepseek && !(name == "STANDALONE" && ctx.rules.standalone_reserve)) {
        auto_steps = 5;
        auto_topk = 4;
        auto_draft = 8;
      }
      break;
    default:
      if (llama_like && name != "STANDALONE") {
        auto_steps = 5;
        auto_topk = 4;
        auto_draft = 8;
      }
      break;
  }
  if (name == "NGRAM") {
    auto_topk = 10;   // speculative_ngram_max_bfs_breadth default
    auto_draft = 12;  // _handle_ngram default
  }
  a.speculative_steps = steps.value_or(auto_steps);
  a.speculative_topk = topk.value_or(auto_topk);
  a.speculative_draft_tokens = draft.value_or(auto_draft);
  if (name != "NGRAM" && a.speculative_topk == 1 &&
      a.speculative_draft_tokens != a.speculative_steps + 1) {
    a.speculative_draft_tokens = a.speculative_steps + 1;
  }
  const std::string auto_why = fmt::format(
      "Unset parameters take the automatic choice ({}, {}, {}) for {}; with top-k 1 the draft "
      "tokens are steps + 1.",
      auto_steps, auto_topk, auto_draft, arch);
  g.add({"speculative_num_steps.resolved",
         a.speculative_steps,
         "steps",
         "R7.2",
         auto_why,
         "arg_groups/speculative_hook.py::_auto_choose_speculative_params",
         {"arg.speculative_num_steps", "arg.speculative_algorithm"}});
  g.add({"speculative_eagle_topk.resolved",
         a.speculative_topk,
         "",
         "R7.2",
         auto_why,
         "arg_groups/speculative_hook.py::_auto_choose_speculative_params",
         {"arg.speculative_eagle_topk", "arg.speculative_algorithm"}});
  g.add({"speculative_num_draft_tokens.resolved",
         a.speculative_draft_tokens,
         "tokens",
         "R7.2",
         auto_why,
         "arg_groups/speculative_hook.py::_handle_eagle_family",
         {"arg.speculative_num_draft_tokens", "speculative_num_steps.resolved",
          "speculative_eagle_topk.resolved"}});
  if (!user_mrr) {
    a.max_running_requests = 48;
    ctx.resolved("max_running_requests", "", "48",
                 "speculative decoding resets an unset --max-running-requests to 48 (R5.10)");
  }
  g.add({"max_running_requests.requested",
         *a.max_running_requests,
         "requests",
         "R5.10",
         user_mrr
             ? "--max-running-requests as typed (speculative decoding keeps an explicit value)."
             : "Speculative decoding sets an unset --max-running-requests to 48 (\"Max running "
               "requests is reset to 48 for speculative decoding\").",
         "arg_groups/speculative_hook.py::_handle_eagle_family",
         {"arg.max_running_requests", "arg.speculative_algorithm"}});
}

// --- mamba radix-cache strategy (R5.9) --------------------------------------------------

void resolve_mamba_strategy(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const std::string& arch = ctx.scenario.model.architecture;
  a.linear_attn_backend = ctx.in.text("linear_attn_backend", "triton");
  const std::string typed = ctx.in.text("mamba_radix_cache_strategy", "auto");
  if (!a.hybrid_linear)
    return;
  std::string why;
  if (a.disable_radix_cache) {
    a.mamba_strategy = "none";
    why = "--disable-radix-cache: no prefix cache, so no radix-cache strategy.";
  } else if (typed != "auto") {
    a.mamba_strategy = typed;
    why = "Set explicitly.";
    if (typed == "no_buffer" && !a.disable_overlap_schedule) {
      a.disable_overlap_schedule = true;
      why += " no_buffer is not compatible with the overlap schedule, which is turned off.";
    }
  } else {
    const bool extra_buffer_arch = contains_arch(
        {"KimiLinearForCausalLM", "Qwen3_5ForConditionalGeneration",
         "Qwen3_5MoeForConditionalGeneration", "Qwen3NextForCausalLM",
         "InternS2PreviewForConditionalGeneration", "MiniCPMV4_6ForConditionalGeneration",
         "BailingMoeV2_5ForCausalLM", "FalconH1ForCausalLM", "GraniteMoeHybridForCausalLM",
         "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM"},
        arch);
    const bool wants_overlap = !a.disable_overlap_schedule;
    const FlagSetting* page = ctx.in.setting_for("page_size");
    const bool wants_paging = page != nullptr && parse_int(page->value()).value_or(1) > 1;
    if (ctx.rules.mamba_auto_extra_buffer && (wants_overlap || wants_paging) && extra_buffer_arch &&
        a.linear_attn_backend == "triton") {
      a.mamba_strategy = "extra_buffer";
      why = fmt::format(
          "auto → extra_buffer: {} supports it with the triton linear-attention backend and {} is "
          "on.",
          arch, wants_overlap ? "the overlap schedule" : "paging");
    } else {
      a.mamba_strategy = "no_buffer";
      a.disable_overlap_schedule = true;
      why = ctx.rules.mamba_auto_extra_buffer
                ? std::string(
                      "auto → no_buffer (extra_buffer not available here), which also turns the "
                      "overlap schedule off.")
                : std::string(
                      "auto → no_buffer in this version (before 2026-06-18, #28151), which turns "
                      "the overlap schedule off.");
    }
    if (a.mamba_strategy != "auto")
      ctx.resolved("mamba_radix_cache_strategy", "", a.mamba_strategy, why);
  }
  g.add({"mamba_radix_cache_strategy.resolved",
         a.mamba_strategy,
         "",
         "R5.9",
         why,
         "arg_groups/overrides.py::_mamba_radix_cache_resolution",
         {"arg.mamba_radix_cache_strategy", "arg.disable_radix_cache",
          "arg.disable_overlap_schedule", "arg.linear_attn_backend"}});
  g.add({"disable_overlap_schedule.resolved",
         a.disable_overlap_schedule,
         "",
         "R5.9",
         a.disable_overlap_schedule ? "The overlap schedule is off."
                                    : "The overlap schedule is on (default).",
         "arg_groups/overrides.py::_mamba_radix_cache_resolution",
         {"arg.disable_overlap_schedule", "mamba_radix_cache_strategy.resolved"}});
}

// --- attention backend, page size (attention_backend.cc), KV dtype (§2.3) --------------

void resolve_backends(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const ModelShape& m = ctx.scenario.model;
  resolve_attention_backend_and_page_size(ctx);

  // KV-cache dtype: auto follows the model dtype (bf16 for fp8 checkpoints without KV scales).
  const std::string kv = ctx.in.text("kv_cache_dtype", "auto");
  std::string resolved = kv;
  if (kv == "auto") {
    resolved = m.quant.kv_cache_quant_algo == "FP8"
                   ? "fp8_e4m3"
                   : (dtype_bytes(m.dtype) == 4 ? "bfloat16" : m.dtype);
  } else if (kv == "bf16") {
    resolved = "bfloat16";
  }
  a.kv_cache_dtype = resolved;
  a.kv_bytes = resolved.rfind("fp8", 0) == 0 || resolved == "mxfp8"               ? 1.0
               : resolved.find("fp4") != std::string::npos || resolved == "nvfp4" ? 0.5
                                                                                  : 2.0;
  g.add({"kv_cache_dtype.resolved",
         resolved,
         "",
         "R4.0",
         kv == "auto"
             ? fmt::format("auto: the model dtype ({}), no KV scales in the checkpoint.", m.dtype)
             : std::string("Set explicitly."),
         "model_runner.py::ModelRunner (kv_cache_dtype)",
         {"arg.kv_cache_dtype", "model_dtype"}});
  g.add({"kv_element_bytes",
         a.kv_bytes,
         "bytes",
         "R4.0",
         "Bytes per KV element of the resolved dtype.",
         "torch._utils._element_size",
         {"kv_cache_dtype.resolved"}});
}

// --- FlashInfer allreduce fusion (§9.1) ------------------------------------------------

void resolve_allreduce_fusion(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  const bool legacy = ctx.in.boolean("enable_flashinfer_allreduce_fusion");
  auto backend = ctx.in.optional_text("flashinfer_allreduce_fusion_backend");
  const bool enforce_off = ctx.in.boolean("enforce_disable_flashinfer_allreduce_fusion");
  std::string value = backend.value_or("");
  std::string why = backend ? "Set explicitly." : "Not set.";
  if (legacy && ctx.rules.fusion_flag_deprecated && value.empty()) {
    value = "auto";
    why =
        "--enable-flashinfer-allreduce-fusion is deprecated and becomes "
        "--flashinfer-allreduce-fusion-backend auto.";
  } else if (legacy) {
    value = "auto";
    why = "--enable-flashinfer-allreduce-fusion requests the fusion.";
  }
  static const std::initializer_list<std::string_view> kFusionArchs = {
      "DeepseekV3ForCausalLM",
      "DeepseekV32ForCausalLM",
      "GptOssForCausalLM",
      "GlmMoeDsaForCausalLM",
      "Glm4MoeForCausalLM",
      "Glm4MoeLiteForCausalLM",
      "MistralLarge3ForCausalLM",
      "Qwen3MoeForCausalLM",
      "Qwen3VLMoeForConditionalGeneration",
      "Qwen3NextForCausalLM",
      "KimiK25ForConditionalGeneration",
      "Qwen3_5MoeForConditionalGeneration",
      "InternS2PreviewForConditionalGeneration",
      "Qwen3_5ForConditionalGeneration",
      "NemotronHForCausalLM",
      "NemotronHPuzzleForCausalLM"};
  const bool sm90 = !gpu.is_amd && gpu.cc_major == 9;
  const bool sm100 = !gpu.is_amd && gpu.cc_major == 10;
  if (value.empty() && contains_arch(kFusionArchs, ctx.scenario.model.architecture) &&
      (sm90 || sm100) && a.tp > 1 && !a.dp_attention && (a.nnodes == 1 || sm100) &&
      a.moe_a2a_backend == "none") {
    value = "auto";
    why =
        fmt::format("Auto-enabled on SM{}X for {} (tp > 1, single node or SM100, no DP attention).",
                    sm90 ? "90" : "10", ctx.scenario.model.architecture);
  }
  if (enforce_off && !value.empty()) {
    value.clear();
    why = "--enforce-disable-flashinfer-allreduce-fusion wins over every other setting.";
  }
  if (ctx.in.boolean("enable_deterministic_inference") && !value.empty()) {
    value.clear();
    why = "Deterministic inference turns the fusion off.";
  }
  a.fusion_backend = value;
  g.add({"flashinfer_allreduce_fusion_backend.resolved",
         value.empty() ? Value() : Value(value),
         "",
         "R9.1",
         why,
         "arg_groups/overrides.py::_flashinfer_allreduce_fusion_auto_enable",
         {"arg.enable_flashinfer_allreduce_fusion", "arg.flashinfer_allreduce_fusion_backend",
          "gpu_compute_capability"}});
}

}  // namespace

bool contains_arch(std::initializer_list<std::string_view> list, std::string_view arch) {
  return std::find(list.begin(), list.end(), arch) != list.end();
}

Status resolve_server_args(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const Scenario& s = ctx.scenario;
  const GpuSpec& gpu = s.hardware.gpu;
  g.input("gpu_memory_mib", gpu.memory_mib, "MiB", Origin::kCatalog,
          fmt::format("GPU catalog {} ({}): nvidia-smi memory.total", gpu.key, gpu.smi_name),
          "SGLang reads the GPU's total memory (minimum over GPUs) from nvidia-smi.");
  g.input("gpu_compute_capability", gpu.compute_capability, "", Origin::kCatalog,
          fmt::format("GPU catalog {}", gpu.key));
  g.input("model_dtype", s.model.dtype, "", Origin::kModelConfig, "config.json torch_dtype");
  a.gpu_memory_mib = static_cast<double>(gpu.memory_mib);

  Status st = resolve_parallelism(ctx);
  if (!st)
    return st;
  a.uses_mla = s.model.uses_mla();
  // configs/model_config.py::ModelConfig.__init__: these architectures load text-only unless
  // --enable-multimodal is given (the VLM fraction and the multimodal graph rules do not apply).
  static constexpr std::string_view kTextOnlyByDefault[] = {
      "Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration",
      "Step3VLForConditionalGeneration", "InklingForConditionalGeneration"};
  const bool text_only_default =
      std::find(std::begin(kTextOnlyByDefault), std::end(kTextOnlyByDefault),
                s.model.architecture) != std::end(kTextOnlyByDefault);
  a.multimodal = s.model.multimodal && (!text_only_default || ctx.in.boolean("enable_multimodal"));
  a.language_only = ctx.in.boolean("language_only");
  a.hybrid_linear = s.model.is_hybrid_linear();
  a.disaggregation_mode = ctx.in.text("disaggregation_mode", "null");
  a.moe_a2a_backend = ctx.in.text("moe_a2a_backend", "none");
  a.disable_radix_cache = ctx.in.boolean("disable_radix_cache");
  a.disable_overlap_schedule = ctx.in.boolean("disable_overlap_schedule");
  a.max_prefill_tokens = ctx.in.integer("max_prefill_tokens", 16384, "tokens");
  a.max_total_tokens = ctx.in.optional_integer("max_total_tokens", "tokens");
  resolve_context_length(ctx);
  resolve_speculative(ctx);
  resolve_cuda_graphs(ctx);
  resolve_mamba_strategy(ctx);
  resolve_backends(ctx);
  resolve_allreduce_fusion(ctx);
  return ok_status();
}

}  // namespace servescope::sglang
