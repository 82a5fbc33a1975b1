// V3.2 the KV element type, V8.2 the attention backend, V3.1 its block size and CUDA-graph
// support (vllm/platforms/cuda.py, vllm/v1/attention/backends/*, vllm/utils/torch_utils.py).
#include <fmt/format.h>

#include "core/text.h"
#include "engines/vllm/capacity_rules.h"
#include "engines/vllm/cpu_platform.h"

namespace servescope::vllm {
namespace {

constexpr char kCudaPlatform[] = "vllm/platforms/cuda.py::CudaPlatformBase.get_attn_backend_cls";

struct Backend {
  std::string_view name;
  std::int64_t block_size;      // get_preferred_block_size: the default if supported, else the
                                // smallest the kernel takes
  std::string_view cg_support;  // AttentionCGSupport of its metadata builder
};

// `default_block`: CacheConfig.DEFAULT_BLOCK_SIZE of the release (16, or 64 from 0.34.0).
Backend backend_info(std::string_view name, const GpuSpec& gpu, std::int64_t default_block) {
  if (name == "FLASH_ATTN") {
    // FA3 on SM 9.x captures any batch (ALWAYS); FA2 only uniform batches.
    return {name, default_block, gpu.cc_major == 9 ? "ALWAYS" : "UNIFORM_BATCH"};
  }
  if (name == "FLASHINFER") {
    // TRTLLM decode kernels (SM 10.x with FlashInfer cubins) make it UNIFORM_BATCH.
    return {name, default_block,
            gpu.cc_major == 10 ? "UNIFORM_BATCH" : "UNIFORM_SINGLE_TOKEN_DECODE"};
  }
  if (name == "TRITON_ATTN" || name == "FLEX_ATTENTION")
    return {name, default_block, "ALWAYS"};
  if (name == "FLASHMLA")
    return {name, 64, "UNIFORM_BATCH"};
  if (name == "FLASHINFER_MLA" || name == "TOKENSPEED_MLA")  // kernel blocks 32 or 64
    return {name, default_block == 64 ? 64 : 32, "UNIFORM_BATCH"};
  if (name == "CUTLASS_MLA")
    return {name, 128, "UNIFORM_SINGLE_TOKEN_DECODE"};
  // The sparse MLA backends' kernels take multiples of 64 tokens (FlashInfer's SM 10.x one 32).
  if (name == "FLASHINFER_MLA_SPARSE")
    return {name, default_block == 64 ? 64 : 32, "UNIFORM_BATCH"};
  if (name.find("MLA_SPARSE") != std::string_view::npos)
    return {name, 64, "UNIFORM_BATCH"};
  if (name == "FLASH_ATTN_MLA" || name == "TRITON_MLA")
    return {name, default_block, "UNIFORM_BATCH"};
  return {name, default_block, "UNIFORM_BATCH"};
}

bool is_fp8(std::string_view dtype) {
  return dtype.rfind("fp8", 0) == 0;
}

// V3.2b: the sparse-attention models' own KV dtype rules
// (model_executor/models/config.py::DeepseekV32ForCausalLM and GlmMoeDsaForCausalLM
// .verify_and_update_config, vLLM 0.34.0).
void sparse_mla_kv_dtype(PlanContext& ctx, std::string* kv, std::string* why) {
  const ModelShape& m = ctx.scenario.model;
  if (!m.uses_sparse_mla())
    return;
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  if (m.model_type == "glm_moe_dsa" && ctx.args.cache_dtype == "auto" && !gpu.is_cpu &&
      !gpu.is_amd && gpu.cc_major == 10) {
    *kv = "fp8_e4m3";
    *why =
        "auto for GLM-5 on SM 10.x: fp8 (\"Using fp8 kv-cache for GlmMoeDsaForCausalLM on "
        "SM10x\").";
  } else if (ctx.args.cache_dtype == "bfloat16") {
    *why =
        "bfloat16 for DeepSeek V3.2's sparse attention is read as auto (\"Using bfloat16 "
        "kv-cache for DeepSeekV3.2\").";
  }
}

// V3.2: CacheConfig.cache_dtype → the element type (torch_utils.py::kv_cache_dtype_str_to_dtype,
// resolve_kv_cache_dtype_string).
void resolve_kv_dtype(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const ModelShape& m = ctx.scenario.model;
  a.cache_dtype = ctx.in.text("cache_dtype", "auto");
  const std::string model_dtype = ctx.in.text("dtype", "auto");
  // The model dtype: --dtype, else config.json; float32 checkpoints run in 16 bits
  // (ModelConfig._resolve_auto_dtype).
  std::string runtime_dtype = model_dtype;
  if (model_dtype == "auto") {
    runtime_dtype = m.dtype == "float16" ? "float16" : "bfloat16";
  } else if (model_dtype == "half") {
    runtime_dtype = "float16";
  } else if (model_dtype == "float") {
    runtime_dtype = "float32";
  }
  g.input("model.dtype", m.dtype, "", Origin::kModelConfig, "config.json torch_dtype",
          "The checkpoint dtype.");
  g.add({"model_dtype",
         runtime_dtype,
         "",
         "V3.2",
         model_dtype == "auto"
             ? "--dtype auto: the checkpoint's 16-bit dtype (float32 checkpoints run in bfloat16)."
             : "As typed.",
         "vllm/config/model.py::ModelConfig._resolve_auto_dtype",
         {"arg.dtype", "model.dtype"}});
  std::string kv = a.cache_dtype;
  std::string why;
  if (kv == "auto") {
    const std::string& scheme = m.quant.kv_cache_quant_algo;
    if (!scheme.empty() && contains(to_lower(scheme), "fp8")) {
      kv = "fp8_e4m3";
      why = fmt::format("auto with a checkpoint KV scheme ({}): fp8.", scheme);
    } else if (!scheme.empty() && contains(to_lower(scheme), "fp4")) {
      kv = "nvfp4";
      why = fmt::format("auto with a checkpoint KV scheme ({}): nvfp4.", scheme);
    } else {
      kv = runtime_dtype;
      why =
          "auto: the model dtype (a weight-only FP8 checkpoint without a KV scheme keeps a "
          "16-bit KV cache).";
    }
  } else {
    why = "As typed.";
    if (kv == "fp8")
      kv = "fp8_e4m3";
  }
  sparse_mla_kv_dtype(ctx, &kv, &why);
  a.kv_dtype = kv;
  a.fp8_kv = is_fp8(kv);
  if (kv == "float32") {
    a.kv_bytes = 4;
  } else if (is_fp8(kv) || kv == "nvfp4" || kv.rfind("turboquant", 0) == 0 ||
             kv == "int8_per_token_head") {
    a.kv_bytes = 1;
  } else {
    a.kv_bytes = 2;
  }
  g.add({"kv_cache_dtype",
         kv,
         "",
         "V3.2",
         why,
         "vllm/utils/torch_utils.py::resolve_kv_cache_dtype_string",
         {"arg.cache_dtype", "model_dtype"}});
  g.add({"kv_element_bytes",
         a.kv_bytes,
         "bytes",
         "V3.2",
         "fp8 and the packed formats store one byte per element; 16-bit types two.",
         "vllm/utils/torch_utils.py::STR_DTYPE_TO_TORCH_DTYPE",
         {"kv_cache_dtype"}});
  if (kv.rfind("turboquant", 0) == 0) {
    ctx.finding(Severity::kWarning, "unmodelled-kv-dtype", {ctx.in.typed("cache_dtype")},
                "turboquant KV pages (TQFullAttentionSpec) are not modelled; one byte per "
                "element is assumed",
                "V3.2", "vllm/v1/kv_cache_interface.py::TQFullAttentionSpec");
  }
}

// V8.2 for DeepSeek Sparse Attention: only the sparse MLA backends accept it (the tails of
// cuda.py::_get_backend_priorities; supports_combination filters the dense ones out).
std::string choose_sparse_mla_backend(PlanContext& ctx, std::string* why) {
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  const ModelShape& m = ctx.scenario.model;
  const ResolvedArgs& a = ctx.args;
  const std::int64_t heads_per_rank = m.num_attention_heads / std::max<std::int64_t>(1, a.tp);
  if (gpu.is_amd) {
    *why = "Sparse MLA on ROCm: ROCM_AITER_MLA_SPARSE alone (platforms/rocm.py).";
    return "ROCM_AITER_MLA_SPARSE";
  }
  if (gpu.cc_major == 10) {
    if (a.fp8_kv) {
      *why = "Sparse MLA with an fp8 KV cache on SM 10.x: FLASHINFER_MLA_SPARSE is preferred.";
      return "FLASHINFER_MLA_SPARSE";
    }
    if (heads_per_rank <= 16) {
      *why = fmt::format(
          "Sparse MLA with a 16-bit KV cache and {} heads per rank (at most 16) on SM 10.x: "
          "FLASH_ATTN_MLA_SPARSE_FA4.",
          heads_per_rank);
      return "FLASH_ATTN_MLA_SPARSE_FA4";
    }
    *why = fmt::format(
        "Sparse MLA with a 16-bit KV cache and {} heads per rank on SM 10.x: FLASHMLA_SPARSE.",
        heads_per_rank);
    return "FLASHMLA_SPARSE";
  }
  if (gpu.cc_major == 12) {
    *why = "Sparse MLA on SM 12.x: FLASHINFER_MLA_SPARSE_SM120 alone.";
    return "FLASHINFER_MLA_SPARSE_SM120";
  }
  if (!a.fp8_kv) {
    *why = "Sparse MLA with a 16-bit KV cache on SM 9.x: FLASH_ATTN_MLA_SPARSE.";
    return "FLASH_ATTN_MLA_SPARSE";
  }
  *why =
      "Sparse MLA with an fp8 KV cache on SM 9.x: FLASHMLA_SPARSE (FLASH_ATTN_MLA_SPARSE keeps "
      "16-bit KV).";
  return "FLASHMLA_SPARSE";
}

// V8.2: the first backend in priority order that accepts this model, dtype and GPU.
std::string choose_backend(PlanContext& ctx, std::string* why) {
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  const ModelShape& m = ctx.scenario.model;
  const ResolvedArgs& a = ctx.args;
  if (auto forced = ctx.in.optional_text("attention_backend")) {
    *why = "Forced with --attention-backend.";
    return to_upper(*forced);
  }
  const int major = gpu.cc_major;
  if (m.uses_sparse_mla())
    return choose_sparse_mla_backend(ctx, why);
  if (caches_latent(m)) {
    if (major == 10) {
      *why = "MLA on SM 10.x: FLASHINFER_MLA is first in the priority list.";
      return "FLASHINFER_MLA";
    }
    if (major == 9 && !a.fp8_kv) {
      *why = "MLA on SM 9.0: FLASH_ATTN_MLA is first in the priority list.";
      return "FLASH_ATTN_MLA";
    }
    if (major == 9) {
      *why = "MLA with an fp8 KV cache on SM 9.0: FLASHMLA (FLASH_ATTN_MLA keeps 16-bit KV).";
      return "FLASHMLA";
    }
    *why = fmt::format("MLA on SM {}: only TRITON_MLA accepts this GPU.", gpu.compute_capability);
    return "TRITON_MLA";
  }
  if (major == 10) {
    *why = "SM 10.x: FLASHINFER is first in the priority list.";
    return "FLASHINFER";
  }
  const bool head_ok = m.head_dim % 8 == 0 && m.head_dim <= 256;
  const bool fa_ok = major >= 8 && head_ok && (!a.fp8_kv || major == 9);
  if (fa_ok) {
    *why = fmt::format(
        "SM {}: FLASH_ATTN is first in the priority list and accepts head size "
        "{}{}.",
        gpu.compute_capability, m.head_dim, a.fp8_kv ? " with an fp8 KV cache (FA3)" : "");
    return "FLASH_ATTN";
  }
  const bool fi_ok = (major > 7 || (major == 7 && gpu.cc_minor >= 5)) && major <= 12;
  if (fi_ok) {
    *why = a.fp8_kv && major != 9
               ? fmt::format(
                     "FLASH_ATTN takes an fp8 KV cache only with FA3 on SM 9.x; on SM {} "
                     "the choice moves to FLASHINFER.",
                     gpu.compute_capability)
               : fmt::format("FLASH_ATTN does not accept head size {} on SM {}: FLASHINFER.",
                             m.head_dim, gpu.compute_capability);
    return "FLASHINFER";
  }
  *why = fmt::format("SM {}: neither FLASH_ATTN nor FLASHINFER applies: TRITON_ATTN.",
                     gpu.compute_capability);
  return "TRITON_ATTN";
}

// V3.2c: a sparse MLA backend may serve the KV cache in DeepSeek's packed fp8_ds_mla rows
// (model_executor/layers/attention/mla_attention.py::_canonicalize_sparse_mla_kv_cache_dtype,
// "Using fp8_ds_mla KV cache format for … backend.").
void canonicalize_sparse_mla_format(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  if (!ctx.scenario.model.uses_sparse_mla())
    return;
  const bool quantized = a.fp8_kv || a.kv_dtype == "nvfp4";
  const bool to_ds = (a.attention_backend == "FLASHMLA_SPARSE" && quantized) ||
                     (a.attention_backend == "FLASHINFER_MLA_SPARSE_SM120" &&
                      (a.cache_dtype == "auto" || a.fp8_kv));
  if (!to_ds || a.kv_dtype == "fp8_ds_mla")
    return;
  a.kv_dtype = "fp8_ds_mla";
  a.fp8_kv = true;
  a.kv_bytes = 1;
  ctx.graph().add({"kv_cache_dtype",
                   a.kv_dtype,
                   "",
                   "V3.2c",
                   fmt::format("{} serves this KV cache in DeepSeek's packed fp8_ds_mla rows "
                               "(\"Using fp8_ds_mla KV cache format for {} backend.\").",
                               a.attention_backend, a.attention_backend),
                   "vllm/model_executor/layers/attention/mla_attention.py::"
                   "_canonicalize_sparse_mla_kv_cache_dtype",
                   {"arg.cache_dtype", "attention_backend"}});
}

}  // namespace

void resolve_attention(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  resolve_kv_dtype(ctx);
  g.input("gpu.compute_capability", gpu.compute_capability, "", Origin::kCatalog,
          "data/gpus.csv " + gpu.key, "The GPU's compute capability.");
  std::string why;
  const bool cpu = gpu.is_cpu;
  const CpuAttention on_cpu = cpu_attention(a, caches_latent(ctx.scenario.model));
  if (cpu) {
    a.attention_backend = on_cpu.backend;
    why = on_cpu.backend == "CPU_MLA"
              ? "The CPU platform's reference MLA kernel (an AMX host takes AMX_MLA, not "
                "modelled)."
              : "The CPU platform's attention backend.";
  } else {
    a.attention_backend = choose_backend(ctx, &why);
    canonicalize_sparse_mla_format(ctx);
  }
  g.add({"attention_backend",
         a.attention_backend,
         "",
         "V8.2",
         why,
         kCudaPlatform,
         {"arg.attention_backend", "gpu.compute_capability", "kv_cache_dtype"}});
  const Backend b = cpu ? Backend{"CPU", on_cpu.block_size, "NEVER"}
                        : backend_info(a.attention_backend, gpu, ctx.rules.default_block_size);
  a.cudagraph_support = std::string(b.cg_support);
  g.add({"attention_cudagraph_support",
         a.cudagraph_support,
         "",
         "V7.4",
         fmt::format("{}'s metadata builder reports {} CUDA-graph support.", a.attention_backend,
                     a.cudagraph_support),
         "vllm/v1/attention/backends/*::get_cudagraph_support",
         {"attention_backend"}});
  if (a.attention_backend == "FLASH_ATTN") {
    const int fa = gpu.cc_major == 9 ? 3 : 2;
    g.add({"flash_attn_version",
           fa,
           "",
           "V8.2",
           fa == 3 ? "SM 9.x runs FlashAttention 3." : "Outside SM 9.x FlashAttention 2 runs.",
           "vllm/v1/attention/backends/fa_utils.py::get_flash_attn_version",
           {"gpu.compute_capability"}});
  }
  a.user_block_size = ctx.in.optional_integer("block_size", "tokens");
  a.block_size = a.user_block_size.value_or(b.block_size);
  if (cpu) {
    a.block_size = cpu_attention(a, caches_latent(ctx.scenario.model)).block_size;
    g.add({"block_size",
           a.block_size,
           "tokens",
           "VC.2",
           on_cpu.backend == "CPU_MLA"
               ? "The CPU MLA kernel compiles only for 16-token blocks: forced, typed or not."
               : (a.user_block_size ? "As typed (CPU_ATTN takes multiples of 32)."
                                    : "The CPU platform's default: 128 tokens per block."),
           "vllm/platforms/cpu.py::CpuPlatform.check_and_update_config",
           {"arg.block_size", "attention_backend"}});
    return;
  }
  g.add({"block_size",
         a.block_size,
         "tokens",
         "V3.1",
         a.user_block_size
             ? "As typed (hybrid attention/mamba models may still raise it, V3.5)."
             : (b.block_size == ctx.rules.default_block_size
                    ? fmt::format("{} takes vLLM's default {} tokens per block{}.",
                                  a.attention_backend, b.block_size,
                                  b.block_size == 64 ? " (64 from 0.34.0, 16 before)" : "")
                    : fmt::format("{} does not take the default {}; its kernel block is {}.",
                                  a.attention_backend, ctx.rules.default_block_size, b.block_size)),
         "vllm/config/cache.py::CacheConfig._apply_block_size_default; "
         "vllm/v1/attention/backend.py::AttentionBackend.get_preferred_block_size",
         {"arg.block_size", "attention_backend"}});
}

}  // namespace servescope::vllm
