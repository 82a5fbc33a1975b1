#include "engines/vllm/vllm_flags.h"

#include <fmt/format.h>

#include <stdexcept>

#include "catalog/embedded_data.h"

namespace servescope::vllm {
namespace {

FlagSpec flag(std::string name, std::string field, FlagType type, std::string default_text,
              std::string meaning) {
  FlagSpec f;
  f.name = std::move(name);
  f.field = std::move(field);
  f.type = type;
  f.default_text = std::move(default_text);
  f.meaning = std::move(meaning);
  return f;
}

std::vector<FlagSpec> build_capacity_flags() {
  using T = FlagType;
  std::vector<FlagSpec> v;
  auto add = [&](FlagSpec f) -> FlagSpec& {
    v.push_back(std::move(f));
    return v.back();
  };
  auto at_least = [](FlagSpec& f, double min) -> FlagSpec& {
    f.min = min;
    return f;
  };
  // A BooleanOptionalAction flag: --name sets true, --no-name sets false
  // (arg_utils.py::_compute_kwargs gives every bool field both spellings).
  auto boolean = [&](std::string name, std::string field, std::string default_text,
                     std::string meaning) {
    FlagSpec& on = add(flag(name, field, T::kBool, default_text, meaning));
    on.const_value = "true";
    FlagSpec& off = add(flag("--no-" + name.substr(2), field, T::kBool, default_text, meaning));
    off.const_value = "false";
  };

  // Model and parallelism (ModelConfig, ParallelConfig).
  add(flag("--model", "model", T::kString, "(the positional model of vllm serve)",
           "Model weights: a local folder or a Hugging Face id."));
  at_least(add(flag("--tensor-parallel-size", "tensor_parallel_size", T::kInt, "1",
                    "Tensor-parallel size: KV heads and weights are split this many ways.")),
           1)
      .aliases = {"-tp"};
  at_least(add(flag("--pipeline-parallel-size", "pipeline_parallel_size", T::kInt, "1",
                    "Pipeline-parallel size: each stage holds its own layers' KV cache.")),
           1)
      .aliases = {"-pp"};
  at_least(add(flag("--data-parallel-size", "data_parallel_size", T::kInt, "1",
                    "Data-parallel size: each DP rank is its own engine core with its own "
                    "KV cache.")),
           1)
      .aliases = {"-dp"};
  at_least(add(flag("--decode-context-parallel-size", "decode_context_parallel_size", T::kInt, "1",
                    "Decode context parallelism: each rank holds 1/dcp of a request's KV.")),
           1)
      .aliases = {"-dcp"};
  at_least(add(flag("--prefill-context-parallel-size", "prefill_context_parallel_size", T::kInt,
                    "1", "Prefill context parallelism: each rank holds 1/pcp of a request's KV.")),
           1)
      .aliases = {"-pcp"};
  boolean("--enable-elastic-ep", "enable_elastic_ep", "False",
          "Elastic expert parallelism (scale-up reuses the profiled KV size).");
  boolean("--enable-expert-parallel", "enable_expert_parallel", "False",
          "Experts are split across ranks instead of tensor-parallel.");
  {
    FlagSpec& f =
        add(flag("--max-model-len", "max_model_len", T::kString, "None (from config.json)",
                 "Context length per request; -1 or auto fits it to the KV memory."));
    f.min = -1;
  }
  {
    FlagSpec& f = add(flag("--dtype", "dtype", T::kChoice, "auto",
                           "Weight and activation dtype; the KV cache follows it under auto."));
    f.choices = {"auto", "half", "float16", "bfloat16", "float", "float32"};
  }
  add(flag("--quantization", "quantization", T::kString, "None (from config.json)",
           "Weight quantization method."))
      .aliases = {"-q"};
  boolean("--enforce-eager", "enforce_eager", "False",
          "No torch.compile and no CUDA graphs: no graph memory, no fusion passes.");
  boolean("--disable-sliding-window", "disable_sliding_window", "False",
          "Sliding-window layers attend to the whole context.");
  add(flag("--hf-overrides", "hf_overrides", T::kJson, "{}",
           "Overrides config.json fields; not applied to the model shape here."));

  // Memory and the KV cache (CacheConfig).
  {
    FlagSpec& f = add(flag("--gpu-memory-utilization", "gpu_memory_utilization", T::kFloat,
                           "0.92 (0.9 before 2026-04-21)",
                           "Fraction of the device's total memory this instance may use."));
    f.min = 0;
    f.min_exclusive = true;
    f.max = 1;
  }
  at_least(add(flag("--kv-cache-memory-bytes", "kv_cache_memory_bytes", T::kString, "None",
                    "KV-cache bytes per GPU; skips memory profiling (k/m/g decimal, K/M/G "
                    "binary).")),
           1);
  at_least(add(flag("--num-gpu-blocks-override", "num_gpu_blocks_override", T::kInt, "None",
                    "Replaces the profiled number of KV blocks.")),
           0);
  at_least(add(flag("--block-size", "block_size", T::kInt, "None (the attention backend's)",
                    "Tokens per KV block; hybrid models may override it.")),
           1);
  {
    FlagSpec& f = add(flag("--kv-cache-dtype", "cache_dtype", T::kChoice, "auto",
                           "KV-cache element type; fp8 halves the bytes per token."));
    f.choices = {"auto",
                 "float16",
                 "bfloat16",
                 "fp8",
                 "fp8_e4m3",
                 "fp8_e5m2",
                 "fp8_inc",
                 "fp8_ds_mla",
                 "turboquant_k8v4",
                 "turboquant_4bit_nc",
                 "turboquant_k3v4_nc",
                 "turboquant_3bit_nc",
                 "int8_per_token_head",
                 "fp8_per_token_head",
                 "nvfp4"};
  }
  add(flag("--kv-cache-dtype-skip-layers", "kv_cache_dtype_skip_layers", T::kString, "[]",
           "Layers (indices or sliding_window) kept at the model dtype under a quantized KV "
           "cache."));
  boolean("--enable-extensible-kv-cache", "enable_extensible_kv_cache",
          "None (on for CUDA and ROCm from 0.34.0)",
          "Size the KV cache from the memory measured after warmup (driver-mapped, growable).");
  boolean("--enable-prefix-caching", "enable_prefix_caching",
          "None (on, except hybrid, attention-free and encoder-decoder models)",
          "Prefix caching; on hybrid models it switches the mamba cache mode.");
  {
    FlagSpec& f = add(flag("--mamba-cache-mode", "mamba_cache_mode", T::kChoice,
                           "none (align/all with prefix caching)",
                           "Mamba state pages per request: none 1, align 2, all one per block."));
    f.choices = {"all", "align", "none"};
  }
  {
    FlagSpec& f = add(flag("--gdn-prefill-backend", "gdn_prefill_backend", T::kChoice,
                           "None (auto: FlashInfer on SM 9.0, and on SM 10.x/12.x with key heads "
                           "of 128 and CUDA 13)",
                           "Gated-DeltaNet prefill kernel: FlashInfer's aligns prefix-cache "
                           "checkpoints, and so the hybrid block, to 64 tokens (V3.5b)."));
    f.choices = {"flashinfer", "triton", "cutedsl", "aiter_flydsl", "sycl", "hip"};
  }
  {
    FlagSpec& f = add(flag("--mamba-cache-dtype", "mamba_cache_dtype", T::kChoice, "auto",
                           "Mamba conv-state dtype."));
    f.choices = {"auto", "float32", "float16"};
  }
  {
    FlagSpec& f = add(flag("--mamba-ssm-cache-dtype", "mamba_ssm_cache_dtype", T::kChoice, "auto",
                           "Mamba temporal (SSM) state dtype."));
    f.choices = {"auto", "float32", "float16"};
  }
  at_least(add(flag("--mamba-block-size", "mamba_block_size", T::kInt, "None",
                    "Tokens per mamba block under --mamba-cache-mode all.")),
           1);
  {
    FlagSpec& f = add(flag("--cpu-offload-gb", "cpu_offload_gb", T::kFloat, "0",
                           "Weights GiB per GPU kept in CPU memory."));
    f.min = 0;
  }
  boolean("--calculate-kv-scales", "calculate_kv_scales", "False",
          "Deprecated; forced off for hybrid models.");

  // Scheduler (SchedulerConfig).
  at_least(add(flag("--max-num-seqs", "max_num_seqs", T::kInt, "None (by GPU, V6.1)",
                    "Requests running at once.")),
           1);
  at_least(add(flag("--max-num-batched-tokens", "max_num_batched_tokens", T::kString,
                    "None (by GPU, V6.1)",
                    "Tokens per scheduler step; sizes the profile run and sliding-window KV.")),
           1);
  boolean("--enable-chunked-prefill", "enable_chunked_prefill", "None (on for generative models)",
          "Chunked prefill; off raises max_num_batched_tokens to max_model_len.");
  {
    FlagSpec& f = add(flag("--performance-mode", "performance_mode", T::kChoice, "balanced",
                           "throughput doubles the batch defaults; interactivity captures every "
                           "size up to 32."));
    f.choices = {"balanced", "interactivity", "throughput"};
  }
  boolean("--async-scheduling", "async_scheduling", "None (on where supported)",
          "Overlaps scheduling with the GPU.");
  boolean("--disable-hybrid-kv-cache-manager", "disable_hybrid_kv_cache_manager",
          "None (vLLM decides)",
          "One KV group for every layer: sliding-window layers then keep the whole context.");

  // Compilation (CompilationConfig) and speculative decoding.
  {
    FlagSpec& f = add(flag("--optimization-level", "optimization_level", T::kChoice, "2",
                           "O0 no compilation or graphs, O1 piecewise graphs, O2/O3 full and "
                           "piecewise graphs plus fusions."));
    f.choices = {"0", "1", "2", "3", "O0", "O1", "O2", "O3"};
  }
  add(flag("--compilation-config", "compilation_config", T::kJson, "{}",
           "JSON: mode, cudagraph_mode, cudagraph_capture_sizes, max_cudagraph_capture_size, "
           "pass_config, ..."))
      .aliases = {"-cc"};
  add(flag("--cudagraph-capture-sizes", "cudagraph_capture_sizes", T::kIntList, "None",
           "Batch sizes to capture CUDA graphs for."));
  at_least(add(flag("--max-cudagraph-capture-size", "max_cudagraph_capture_size", T::kInt, "None",
                    "Largest CUDA-graph capture size.")),
           1);
  add(flag("--speculative-config", "speculative_config", T::kJson, "None",
           "JSON: method, model, num_speculative_tokens, ..."))
      .aliases = {"-sc"};
  add(flag("--kv-transfer-config", "kv_transfer_config", T::kJson, "None",
           "A KV connector; without HMA support it turns the hybrid KV cache manager off."));
  add(flag("--attention-backend", "attention_backend", T::kString,
           "None (by GPU, model and KV dtype, V8.2)", "Forces an attention backend."));
  return v;
}

std::vector<EnvSpec> build_env_vars() {
  return {
      {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "1 since 2026-04-21 (#38284), else 0",
       "Subtract the CUDA-graph memory estimate from the KV budget."},
      {"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE", "1",
       "0 turns the hybrid KV cache manager off for chunked local attention (Llama 4)."},
      {"TORCH_COMPILE_DISABLE", "0",
       "1 sets compilation mode NONE; piecewise CUDA-graph modes become NONE."},
      {"VLLM_CPU_KVCACHE_SPACE", "unset",
       "CPU platform: the KV cache in whole GiB (replaces --kv-cache-memory-bytes)."},
      {"VLLM_ATTENTION_BACKEND", "(removed)",
       "No longer read (vLLM warns 'Unknown vLLM environment variable'); use "
       "--attention-backend."},
  };
}

const std::vector<CliFlag>& load_surface(std::string_view date) {
  static const auto* kSurfaces = [] {
    auto* m = new std::vector<std::pair<std::string, std::vector<CliFlag>>>();
    for (const std::string& d : surface_dates()) {
      const std::string path = fmt::format("vllm/flags-{}.tsv", d);
      const std::string_view* text = find_embedded_file(path);
      if (text == nullptr)
        throw std::logic_error("data/" + path + " was not embedded");
      auto parsed = parse_cli_surface(*text, path);
      if (!parsed)
        throw std::logic_error(parsed.message());
      m->emplace_back(d, std::move(*parsed));
    }
    return m;
  }();
  const std::vector<CliFlag>* chosen = &kSurfaces->front().second;
  for (const auto& [d, flags] : *kSurfaces) {
    if (d <= date)
      chosen = &flags;
  }
  return *chosen;
}

}  // namespace

const std::vector<FlagSpec>& capacity_flags() {
  static const std::vector<FlagSpec> kFlags = build_capacity_flags();
  return kFlags;
}

const FlagSpec* find_capacity_flag(std::string_view name) {
  return find_flag_spec(capacity_flags(), name);
}

const std::vector<std::string>& surface_dates() {
  static const std::vector<std::string> kDates = {"2026-03-29", "2026-05-27"};
  return kDates;
}

const std::vector<CliFlag>& cli_surface(std::string_view date) {
  return load_surface(date);
}

const std::vector<CliFlag>& cli_surface_union() {
  static const std::vector<CliFlag> kUnion = [] {
    std::vector<CliFlag> out;
    for (auto it = surface_dates().rbegin(); it != surface_dates().rend(); ++it) {
      for (const CliFlag& f : load_surface(*it)) {
        bool seen = false;
        for (const CliFlag& o : out)
          seen = seen || o.name == f.name;
        if (!seen)
          out.push_back(f);
      }
    }
    return out;
  }();
  return kUnion;
}

const std::vector<EnvSpec>& capacity_env_vars() {
  static const std::vector<EnvSpec> kEnv = build_env_vars();
  return kEnv;
}

const EnvSpec* find_capacity_env(std::string_view name) {
  for (const EnvSpec& e : capacity_env_vars()) {
    if (e.name == name)
      return &e;
  }
  return nullptr;
}

}  // namespace servescope::vllm
