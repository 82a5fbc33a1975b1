// V1, V6, V9.3–V9.4: what EngineArgs.create_engine_config and VllmConfig.__post_init__ resolve
// before any GPU work (vllm/engine/arg_utils.py, vllm/config/{model,scheduler,vllm}.py).
#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "engines/shared_sysmem.h"
#include "engines/vllm/capacity_rules.h"
#include "engines/vllm/cpu_platform.h"
#include "engines/vllm/extensible_kv_cache.h"

namespace servescope::vllm {
namespace {

constexpr char kArgUtils[] = "vllm/engine/arg_utils.py";

Status resolve_parallelism(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  VllmArgs& in = ctx.in;
  a.tp = in.integer("tensor_parallel_size", 1);
  a.pp = in.integer("pipeline_parallel_size", 1);
  a.dp = in.integer("data_parallel_size", 1);
  a.dcp = in.integer("decode_context_parallel_size", 1);
  a.pcp = in.integer("prefill_context_parallel_size", 1);
  a.expert_parallel = in.optional_boolean("enable_expert_parallel").value_or(false);
  const ModelShape& m = ctx.scenario.model;
  // ModelConfig.verify_with_parallel_config: attention heads must split evenly over TP.
  if (m.num_attention_heads % a.tp != 0) {
    return fail(fmt::format(
        "{}: total number of attention heads ({}) must be divisible by tensor parallel size "
        "({}); vLLM refuses this at startup",
        in.typed("tensor_parallel_size"), m.num_attention_heads, a.tp));
  }
  if (m.num_layers < a.pp) {
    return fail(fmt::format("{}: the model has {} layers, fewer than the pipeline stages",
                            in.typed("pipeline_parallel_size"), m.num_layers));
  }
  return ok_status();
}

// V1.2 max_model_len (config/model.py::ModelConfig.get_and_verify_max_len).
Status resolve_max_model_len(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const ModelShape& m = ctx.scenario.model;
  g.input("model.context_length", m.context_length, "tokens", Origin::kModelConfig,
          m.context_length_field, "The longest context the model's config.json declares.");
  auto user = ctx.in.optional_integer("max_model_len", "tokens");
  a.auto_fit_max_model_len = user && *user == -1;
  // _get_and_verify_max_len: a config that declares no length takes a typed one as it is.
  if (user && *user > m.context_length && !m.context_length_assumed) {
    const auto env = ctx.scenario.environment.find("VLLM_ALLOW_LONG_MAX_MODEL_LEN");
    if (env == ctx.scenario.environment.end() || env->second != "1") {
      return fail(fmt::format(
          "{}: User-specified max_model_len ({}) is greater than the derived max_model_len "
          "({} from {}); vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
          ctx.in.typed("max_model_len"), *user, m.context_length, m.context_length_field));
    }
  }
  a.max_model_len = user && *user > 0 ? *user : m.context_length;
  g.add({"max_model_len",
         a.max_model_len,
         "tokens",
         "V1.2",
         user && *user > 0
             ? "The typed --max-model-len."
             : (a.auto_fit_max_model_len
                    ? "-1/auto: starts at the model's context length; auto-fit lowers it to the "
                      "KV memory (V4.4)."
                    : "The model's context length (no --max-model-len)."),
         "vllm/config/model.py::ModelConfig.get_and_verify_max_len",
         {"arg.max_model_len", "model.context_length"}});
  return ok_status();
}

// V6.3 chunked prefill and prefix caching defaults; the mamba cache mode of hybrid models.
void resolve_cache_defaults(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const ModelShape& m = ctx.scenario.model;
  const bool hybrid = m.is_hybrid_linear();
  auto chunked = ctx.in.optional_boolean("enable_chunked_prefill");
  a.chunked_prefill = chunked.value_or(true);
  g.add(
      {"enable_chunked_prefill",
       a.chunked_prefill,
       "",
       "V6.3",
       chunked ? "As typed."
               : "Generative decoder models support chunked prefill, so it is on by default.",
       std::string(kArgUtils) + "::EngineArgs._set_default_chunked_prefill_and_prefix_caching_args",
       {"arg.enable_chunked_prefill"}});
  auto prefix = ctx.in.optional_boolean("enable_prefix_caching");
  // Attention-free models do not support prefix caching (ModelConfig.is_prefix_caching_supported:
  // "the feature is still experimental"), so the default leaves it off.
  const bool attention_free = m.attention_free();
  a.prefix_caching =
      prefix.value_or(!attention_free && (!hybrid || ctx.rules.hybrid_prefix_caching_default));
  g.add(
      {"enable_prefix_caching",
       a.prefix_caching,
       "",
       "V6.3",
       std::string(prefix           ? "As typed."
                   : attention_free ? "Attention-free models do not support prefix caching: off."
                   : !hybrid        ? "On by default for decoder models."
                   : ctx.rules.hybrid_prefix_caching_default
                       ? "On by default for hybrid models too since 2026-08-04 (#50991), in the "
                         "align mode."
                       : "Hybrid (attention + linear-attention) models have prefix caching off "
                         "by default (ModelConfig.is_prefix_caching_supported)."),
       std::string(kArgUtils) + "::EngineArgs._set_default_chunked_prefill_and_prefix_caching_args",
       {"arg.enable_prefix_caching"}});
  if (!hybrid)
    return;
  // models/config.py::MambaModelConfig.verify_and_update_config: Qwen3-Next and Qwen3.5 do not
  // implement SupportsMambaPrefixCaching, so prefix caching uses the "align" mode.
  // Without prefix caching the mode is none whatever was typed; with it, none becomes align and
  // all falls back to align (the GDN hybrids lack SupportsMambaPrefixCaching).
  auto mode = ctx.in.optional_text("mamba_cache_mode");
  std::string why;
  if (!a.prefix_caching) {
    a.mamba_cache_mode = "none";
    why = mode && *mode != "none"
              ? "No prefix caching: vLLM sets the mode to none whatever was typed."
              : "No prefix caching: one mamba state page per request (none).";
  } else if (!mode || *mode == "none" || *mode == "all") {
    a.mamba_cache_mode = "align";
    why = mode && *mode == "all"
              ? "This hybrid does not support the all mode: vLLM falls back to align."
              : "Prefix caching on a GDN hybrid: one state page per block boundary plus the "
                "running one (align).";
  } else {
    a.mamba_cache_mode = *mode;
    why = "As typed.";
  }
  g.add({"mamba_cache_mode",
         a.mamba_cache_mode,
         "",
         "V3.6",
         why,
         "vllm/model_executor/models/config.py::MambaModelConfig.verify_and_update_config",
         {"enable_prefix_caching", "arg.mamba_cache_mode"}});
  if (a.mamba_cache_mode == "align" && !a.chunked_prefill) {
    ctx.refuse("mamba_cache_mode 'align' requires chunked prefill");
  }
}

// V6.1 / V6.2 max_num_seqs and max_num_batched_tokens.
// The defaults of EngineArgs.get_batch_defaults for a GPU, by its memory (records the tier).
BatchDefaults gpu_batch_defaults(PlanContext& ctx) {
  Derivation& g = ctx.graph();
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  // V6.1 on an integrated NVIDIA GPU (GB10): current_platform.get_device_total_memory() asks
  // NVML, whose nvmlDeviceGetMemoryInfo answers NotSupported there (nvidia-smi's "Memory-Usage:
  // Not Supported"). Up to 0.32.0 get_batch_defaults' bare `except` then takes device_memory =
  // 0, so the defaults are the small-GPU ones whatever the memory (seen in a GB10 log,
  // tests/gb10/logs). From 0.33.0 the platform falls back to torch's total_memory and
  // get_batch_defaults keeps SM 12.1 (GB10) on the small tier by name; other integrated GPUs
  // (Jetson Thor) are tiered by that total.
  const bool integrated = is_integrated_cuda_device(gpu);
  const bool nvml_blind = integrated && !ctx.rules.nvml_total_fallback;
  const bool is_gb10 = ctx.rules.nvml_total_fallback && !gpu.is_amd && !gpu.is_cpu &&
                       gpu.cc_major == 12 && gpu.cc_minor == 1;
  const double cuda_total = device_total_gib(ctx);  // the node the tier reads, known either way
  const double total = nvml_blind ? 0.0 : cuda_total;
  const bool big = total >= 70.0 && !contains(to_lower(gpu.smi_name), "a100") && !is_gb10;
  // V17 (#51726): a first tier for devices of ≥ 160 GiB (NVML total).
  const bool huge = ctx.rules.tier_160gib && !nvml_blind && gpu.memory_mib >= 160 * 1024;
  g.add({"batch_defaults_tier",
         std::string(huge  ? "≥ 160 GiB"
                     : big ? "large"
                           : "default"),
         "",
         "V6.1",
         huge  ? fmt::format("{} MiB ≥ 160 GiB: vllm serve defaults to 16384 tokens and 1024 "
                              "sequences (#51726).",
                             gpu.memory_mib)
         : big ? fmt::format("{:.2f} GiB ≥ 70 GiB and not an A100: vllm serve defaults to 8192 "
                             "tokens and 1024 sequences.",
                             total)
         : nvml_blind
             ? fmt::format("{} is integrated: NVML reports no memory total, so vLLM takes 0 and "
                           "vllm serve defaults to 2048 tokens and 256 sequences.",
                           gpu.smi_name)
         : is_gb10
             ? fmt::format("{} (SM 12.1): vLLM keeps GB10 on the small tier whatever its "
                           "{:.2f} GiB, so vllm serve defaults to 2048 tokens and 256 sequences.",
                           gpu.smi_name, total)
             : fmt::format("{} ({:.2f} GiB): below 70 GiB or an A100, vllm serve defaults to "
                           "2048 tokens and 256 sequences.",
                           gpu.smi_name, total),
         std::string(kArgUtils) + "::EngineArgs.get_batch_defaults",
         {"device_total_memory_gib"}});
  return {huge ? 16384 : big ? 8192 : 2048, big ? 1024 : 256};
}

void resolve_batch_limits(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const BatchDefaults defaults =
      on_cpu_platform(ctx) ? cpu_batch_defaults(ctx) : gpu_batch_defaults(ctx);
  a.performance_mode = ctx.in.text("performance_mode", "balanced");
  auto user_tokens = ctx.in.optional_integer("max_num_batched_tokens", "tokens");
  auto user_seqs = ctx.in.optional_integer("max_num_seqs", "sequences");
  std::int64_t tokens = user_tokens.value_or(defaults.max_num_batched_tokens);
  std::int64_t seqs = user_seqs.value_or(defaults.max_num_seqs);
  std::vector<std::string> why;
  if (a.performance_mode == "throughput") {
    if (!user_tokens)
      tokens *= 2;
    if (!user_seqs)
      seqs *= 2;
    why.emplace_back("--performance-mode throughput doubles the defaults");
  }
  if (!user_tokens) {
    if (!a.chunked_prefill) {
      tokens = std::max(a.max_model_len, tokens);
      why.emplace_back("chunked prefill off: at least max_model_len");
    }
    if (seqs * a.max_model_len < tokens) {
      tokens = seqs * a.max_model_len;
      why.emplace_back("capped at max_num_seqs × max_model_len");
    }
  }
  if (!user_seqs && tokens < seqs) {
    seqs = tokens;
    why.emplace_back("max_num_seqs capped at max_num_batched_tokens");
  }
  a.max_num_batched_tokens = tokens;
  a.max_num_seqs = seqs;
  const std::string source =
      std::string(kArgUtils) + "::EngineArgs._set_default_max_num_seqs_and_batched_tokens_args";
  const char* device = on_cpu_platform(ctx) ? "CPU platform" : "GPU";
  g.add({"max_num_batched_tokens",
         tokens,
         "tokens",
         user_tokens ? "V6.2" : "V6.1",
         user_tokens ? "As typed."
                     : fmt::format("The vllm serve default for this {}{}.", device,
                                   why.empty() ? "" : " (" + fmt::format("{}", why.front()) + ")"),
         source,
         {"arg.max_num_batched_tokens", "batch_defaults_tier", "arg.performance_mode",
          "enable_chunked_prefill", "max_model_len"}});
  g.add({"max_num_seqs",
         seqs,
         "sequences",
         user_seqs ? "V6.2" : "V6.1",
         user_seqs ? "As typed: at most this many requests run at once."
                   : fmt::format("The vllm serve default for this {}: at most this many requests "
                                 "run at once (Scheduler.max_num_running_reqs).",
                                 device),
         source,
         {"arg.max_num_seqs", "batch_defaults_tier", "max_num_batched_tokens"}});
  // SchedulerConfig.verify_max_model_len raises on these.
  if (tokens < seqs) {
    ctx.refuse(fmt::format(
        "ValueError: max_num_batched_tokens ({}) must be greater than or equal to max_num_seqs "
        "({}).",
        tokens, seqs));
  } else if (!a.chunked_prefill && tokens < a.max_model_len) {
    ctx.refuse(
        fmt::format("ValueError: max_num_batched_tokens ({}) is smaller than max_model_len ({}).",
                    tokens, a.max_model_len));
  }
}

// V9.3–V9.4: the speculative config and the token budget it leaves.
Status resolve_speculative(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  auto whole = ctx.in.json_flag("speculative_config");
  if (!whole)
    return whole.error();
  auto method = ctx.in.json_value("speculative_config", "method");
  auto k = ctx.in.json_value("speculative_config", "num_speculative_tokens", "tokens");
  auto draft_model = ctx.in.json_value("speculative_config", "model");
  a.max_num_scheduled_tokens = a.max_num_batched_tokens;
  if (whole->is_null() || whole->empty())
    return ok_status();
  if (method && method->is_string()) {
    a.spec_method = to_lower(method->get<std::string>());
  } else if (draft_model && draft_model->is_string()) {
    // SpeculativeConfig.__post_init__ infers the method from the draft model's name.
    const std::string name = to_lower(draft_model->get<std::string>());
    a.spec_method = contains(name, "eagle3")  ? "eagle3"
                    : contains(name, "eagle") ? "eagle"
                                              : "draft_model";
  } else {
    a.spec_method = "mtp";
  }
  if (k && !k->is_number_integer()) {
    return fail(fmt::format("{}: num_speculative_tokens must be an integer",
                            ctx.in.typed("speculative_config")));
  }
  a.spec_k = k ? k->get<std::int64_t>() : 1;
  if (a.spec_k < 1) {
    return fail(fmt::format("{}: num_speculative_tokens must be at least 1",
                            ctx.in.typed("speculative_config")));
  }
  g.add({"speculative_method",
         a.spec_method,
         "",
         "V9.3",
         method ? "As typed in --speculative-config." : "Inferred from the draft model's name.",
         "vllm/config/speculative.py::SpeculativeConfig.__post_init__",
         {"arg.speculative_config.method", "arg.speculative_config.model"}});
  g.add({"num_speculative_tokens",
         a.spec_k,
         "tokens",
         "V9.3",
         k ? "As typed in --speculative-config." : "Default 1 when the method does not set it.",
         "vllm/config/speculative.py::SpeculativeConfig",
         {"arg.speculative_config.num_speculative_tokens"}});
  // SpeculativeConfig.max_num_new_slots_for_drafting: a draft model inserts one slot per
  // request while drafting; EAGLE/MTP/ngram insert none.
  // V16 (#51725, 2026-08-10): the drafting slots no longer cut the budget at startup.
  const std::int64_t slots =
      a.spec_method == "draft_model" && ctx.rules.drafting_slots_cut_budget ? 1 : 0;
  a.max_num_scheduled_tokens = a.max_num_batched_tokens - slots * a.max_num_seqs;
  g.add({"max_num_scheduled_tokens",
         a.max_num_scheduled_tokens,
         "tokens",
         "V9.4",
         fmt::format("max_num_batched_tokens − {} drafting slot(s) × max_num_seqs.", slots),
         "vllm/config/vllm.py::VllmConfig._set_max_num_scheduled_tokens",
         {"max_num_batched_tokens", "max_num_seqs", "speculative_method"}});
  if (a.max_num_scheduled_tokens <= 0) {
    ctx.refuse(fmt::format(
        "VllmConfig received max_num_scheduled_tokens but it does not have enough slots to "
        "support the speculative decoding settings (max_num_batched_tokens={}, "
        "max_num_seqs={})",
        a.max_num_batched_tokens, a.max_num_seqs));
  } else if (slots > 0 && a.max_num_scheduled_tokens < 8192) {
    ctx.finding(
        Severity::kWarning, "speculative-token-budget", {ctx.in.typed("speculative_config")},
        fmt::format("a draft model takes {} of the {} batched tokens for drafting slots; "
                    "each step schedules at most {} tokens",
                    slots * a.max_num_seqs, a.max_num_batched_tokens, a.max_num_scheduled_tokens),
        "V9.4", "vllm/config/vllm.py::VllmConfig._set_max_num_scheduled_tokens");
  }
  return ok_status();
}

}  // namespace

Status resolve_engine_config(PlanContext& ctx) {
  if (Status st = resolve_parallelism(ctx); !st)
    return st;
  if (Status st = resolve_max_model_len(ctx); !st)
    return st;
  ctx.args.kv_cache_memory_bytes = ctx.in.optional_integer("kv_cache_memory_bytes", "bytes");
  ctx.args.num_gpu_blocks_override = ctx.in.optional_integer("num_gpu_blocks_override", "blocks");
  if (Status st = resolve_extensible_kv_cache(ctx); !st)
    return st;
  resolve_cache_defaults(ctx);
  resolve_batch_limits(ctx);
  return resolve_speculative(ctx);
}

}  // namespace servescope::vllm
