#include "engines/sglang/sglang_flags.h"

#include <stdexcept>

#include "catalog/embedded_data.h"

namespace servescope::sglang {
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

FlagSpec& at_least(FlagSpec& f, double min) {
  f.min = min;
  return f;
}

std::vector<FlagSpec> build_capacity_flags() {
  using T = FlagType;
  std::vector<FlagSpec> v;
  auto add = [&](FlagSpec f) -> FlagSpec& {
    v.push_back(std::move(f));
    return v.back();
  };
  auto deprecated = [&](std::string name, std::string field, FlagType type, std::string to,
                        std::string meaning) -> FlagSpec& {
    FlagSpec& f = add(flag(std::move(name), std::move(field), type, "", std::move(meaning)));
    f.deprecated_for = std::move(to);
    return f;
  };

  // Model and parallelism.
  add(flag("--model-path", "model_path", T::kString, "(required)",
           "Model weights: a local folder or a Hugging Face id."))
      .aliases = {"--model"};
  at_least(
      add(flag(
          "--tp-size", "tp_size", T::kInt, "1",
          "Tensor-parallel size: KV heads, mamba state and weights are split this many ways.")),
      1)
      .aliases = {"--tensor-parallel-size"};
  at_least(add(flag("--pp-size", "pp_size", T::kInt, "1", "Pipeline-parallel size.")), 1)
      .aliases = {"--pipeline-parallel-size"};
  at_least(
      add(flag("--dp-size", "dp_size", T::kInt, "1",
               "Data-parallel size; with --enable-dp-attention each DP rank sizes its own pools.")),
      1)
      .aliases = {"--data-parallel-size"};
  at_least(add(flag("--ep-size", "ep_size", T::kInt, "1", "Expert-parallel size.")), 1).aliases = {
      "--expert-parallel-size", "--ep"};
  at_least(add(flag("--nnodes", "nnodes", T::kInt, "1", "Number of nodes.")), 1);
  add(flag("--enable-dp-attention", "enable_dp_attention", T::kBool, "False",
           "Data-parallel attention: user --max-running-requests and --max-mamba-cache-size are "
           "divided by dp size; disables prefill graphs and allreduce fusion."));

  // Memory and capacity.
  {
    FlagSpec& f = add(flag("--mem-fraction-static", "mem_fraction_static", T::kFloat,
                           "None (heuristic, R2.5)",
                           "Fraction of free memory for weights + KV cache + mamba state; the rest "
                           "is runtime slack."));
    f.min = 0;
    f.max = 1;
    f.min_exclusive = true;
    f.max_exclusive = true;
  }
  at_least(
      add(flag("--max-running-requests", "max_running_requests", T::kInt, "None (estimated, R5.3)",
               "Upper bound on requests running at once, per server (divided by DP size).")),
      1);
  at_least(add(flag("--max-total-tokens", "max_total_tokens", T::kInt, "None",
                    "Upper bound on KV-cache tokens.")),
           1);
  at_least(add(flag("--context-length", "context_length", T::kInt, "None (from config.json)",
                    "Maximum context length.")),
           1);
  at_least(add(flag("--chunked-prefill-size", "chunked_prefill_size", T::kInt,
                    "None (by GPU memory, R2.1)",
                    "Prefill chunk size in tokens; -1 disables chunking.")),
           1);
  at_least(add(flag("--max-prefill-tokens", "max_prefill_tokens", T::kInt, "16384",
                    "Maximum tokens in one prefill batch.")),
           1);
  at_least(add(flag("--page-size", "page_size", T::kInt, "None (1 on CUDA)",
                    "Tokens per KV page; KV capacity is floored to a multiple.")),
           1);
  {
    FlagSpec& f = add(flag("--kv-cache-dtype", "kv_cache_dtype", T::kChoice, "auto",
                           "KV-cache element type; fp8 halves the bytes per token."));
    f.choices = {"auto",     "fp8_e5m2", "fp8_e4m3",       "mxfp8",   "bf16",
                 "bfloat16", "nvfp4",    "fp4_mx_block16", "fp4_e2m1"};
  }
  {
    FlagSpec& f =
        add(flag("--dtype", "dtype", T::kChoice, "auto", "Model weight and activation dtype."));
    f.choices = {"auto", "half", "float16", "bfloat16", "float", "float32"};
  }
  add(flag("--quantization", "quantization", T::kString, "None (from config.json)",
           "Weight quantization method."));
  {
    FlagSpec& f = add(flag("--swa-full-tokens-ratio", "swa_full_tokens_ratio", T::kFloat, "0.8",
                           "Sliding-window tokens per full-attention token in hybrid SWA pools."));
    f.min = 0;
    f.max = 1;
    f.min_exclusive = true;
  }
  add(flag("--disable-radix-cache", "disable_radix_cache", T::kBool, "False",
           "No prefix cache: hybrid models need one mamba slot per request (ratio 1)."));
  add(flag("--disable-overlap-schedule", "disable_overlap_schedule", T::kBool, "False",
           "No CPU/GPU overlap; the extra_buffer mamba strategy then needs one spare slot instead "
           "of two."));
  add(flag("--enable-memory-saver", "enable_memory_saver", T::kBool, "False",
           "torch_memory_saver pools (disables post-capture sizing)."));
  at_least(add(flag("--cpu-offload-gb", "cpu_offload_gb", T::kInt, "0",
                    "Weights offloaded to CPU memory (GiB); disables prefill graphs.")),
           0);

  // CUDA graphs (per-phase config since 2026-06-09, #23906).
  add(flag("--cuda-graph-config", "cuda_graph_config", T::kJson, "None",
           "Per-phase CUDA-graph settings as JSON; highest precedence."));
  {
    FlagSpec& f = add(flag("--cuda-graph-backend-decode", "cuda_graph_backend_decode", T::kChoice,
                           "None (full)", "Decode CUDA-graph backend."));
    f.choices = {"full", "breakable", "tc_piecewise", "disabled"};
  }
  {
    FlagSpec& f = add(flag("--cuda-graph-backend-prefill", "cuda_graph_backend_prefill", T::kChoice,
                           "None (breakable)",
                           "Prefill CUDA-graph backend; an enabled prefill graph adds len(sizes)*8 "
                           "MiB (MHA) or 1.5 GiB (MLA) to the mem_fraction reserve."));
    f.choices = {"full", "breakable", "tc_piecewise", "disabled"};
  }
  at_least(add(flag("--cuda-graph-max-bs-decode", "cuda_graph_max_bs_decode", T::kInt,
                    "None (by GPU memory, R2.1)",
                    "Largest decode batch captured; adds max_bs*2 MiB to the reserve.")),
           1);
  at_least(add(flag("--cuda-graph-max-bs-prefill", "cuda_graph_max_bs_prefill", T::kInt,
                    "None (chunked_prefill_size)", "Largest prefill token count captured.")),
           1);
  {
    FlagSpec& f = add(flag("--cuda-graph-bs-decode", "cuda_graph_bs_decode", T::kIntList,
                           "None (generated, R2.2)", "Decode batch sizes to capture."));
    f.min = 1;
  }
  {
    FlagSpec& f = add(flag("--cuda-graph-bs-prefill", "cuda_graph_bs_prefill", T::kIntList,
                           "None (generated, R2.3)", "Prefill token counts to capture."));
    f.min = 1;
  }
  add(flag("--disable-prefill-cuda-graph", "disable_prefill_cuda_graph", T::kBool, "False",
           "Turns the prefill CUDA graph off."));
  add(flag("--disable-decode-cuda-graph", "disable_decode_cuda_graph", T::kBool, "False",
           "Turns the decode CUDA graph off."));
  add(flag("--disable-cuda-graph-padding", "disable_cuda_graph_padding", T::kBool, "False",
           "Captures every decode batch size 1..max_bs."));
  deprecated("--disable-cuda-graph", "disable_cuda_graph", T::kBool,
             "--cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled",
             "Turns every CUDA graph off (legacy global switch).");
  deprecated("--cuda-graph-max-bs", "cuda_graph_max_bs_decode", T::kInt,
             "--cuda-graph-max-bs-decode", "Largest decode batch captured (old name).")
      .min = 1;
  deprecated("--cuda-graph-bs", "cuda_graph_bs_decode", T::kIntList, "--cuda-graph-bs-decode",
             "Decode batch sizes to capture (old name).")
      .min = 1;
  deprecated("--disable-piecewise-cuda-graph", "cuda_graph_backend_prefill", T::kBool,
             "--cuda-graph-backend-prefill disabled",
             "Turns the prefill (piecewise) CUDA graph off (old name).")
      .const_value = "disabled";
  deprecated("--enforce-piecewise-cuda-graph", "cuda_graph_backend_prefill", T::kBool,
             "--cuda-graph-backend-prefill tc_piecewise",
             "Keeps the torch.compile piecewise prefill graph on (old name).")
      .const_value = "tc_piecewise";
  deprecated("--enable-breakable-cuda-graph", "cuda_graph_backend_prefill", T::kBool,
             "--cuda-graph-backend-prefill breakable",
             "Selects the breakable prefill graph (old name).")
      .const_value = "breakable";
  deprecated("--piecewise-cuda-graph-tokens", "cuda_graph_bs_prefill", T::kIntList,
             "--cuda-graph-bs-prefill", "Prefill token counts to capture (old name).")
      .min = 1;
  deprecated("--piecewise-cuda-graph-max-tokens", "cuda_graph_max_bs_prefill", T::kInt,
             "--cuda-graph-max-bs-prefill", "Largest prefill token count captured (old name).")
      .min = 1;
  add(flag(
      "--enable-piecewise-cuda-graph", "enable_piecewise_cuda_graph", T::kBool, "False",
      "Opt-in piecewise prefill CUDA graph (2025-10-11 … 2026-03-01; on by default afterwards)."));
  {
    FlagSpec& f = add(flag("--enable-torch-compile", "enable_torch_compile", T::kBool, "False",
                           "torch.compile the model; disables the tc_piecewise prefill graph."));
    f.runtime_effect =
        "compiles the model at startup; it only disables the tc_piecewise prefill graph";
  }
  {
    FlagSpec& f = at_least(add(flag("--torch-compile-max-bs", "torch_compile_max_bs", T::kInt, "32",
                                    "Largest batch torch.compile captures.")),
                           1);
    f.runtime_effect = "bounds torch.compile capture at run time";
  }

  // Speculative decoding.
  {
    FlagSpec& f =
        add(flag("--speculative-algorithm", "speculative_algorithm", T::kChoice, "None",
                 "Speculative decoding: defaults max_running_requests to 48 when unset (R5.10)."));
    f.choices = {"EAGLE", "EAGLE3", "NEXTN",  "STANDALONE",
                 "NGRAM", "DFLASH", "DSPARK", "FROZEN_KV_MTP"};
  }
  add(flag("--speculative-draft-model-path", "speculative_draft_model_path", T::kString, "None",
           "Draft model weights (loaded before sizing)."))
      .aliases = {"--speculative-draft-model"};
  at_least(add(flag("--speculative-num-steps", "speculative_num_steps", T::kInt, "None (auto: 3)",
                    "Draft steps.")),
           1);
  at_least(add(flag("--speculative-eagle-topk", "speculative_eagle_topk", T::kInt, "None (auto: 1)",
                    "Draft branching factor.")),
           1);
  at_least(add(flag("--speculative-num-draft-tokens", "speculative_num_draft_tokens", T::kInt,
                    "None (auto: steps+1)",
                    "Tokens verified per step; sizes the mamba intermediate state.")),
           1);

  // Hybrid (mamba / linear attention) state.
  {
    FlagSpec& f = add(flag("--mamba-ssm-dtype", "mamba_ssm_dtype", T::kChoice,
                           "None (config.json, else float32)",
                           "SSM state dtype; bfloat16 roughly halves the per-request state."));
    f.choices = {"float32", "bfloat16", "float16"};
  }
  {
    FlagSpec& f = add(flag("--mamba-full-memory-ratio", "mamba_full_memory_ratio", T::kFloat, "0.9",
                           "Mamba state : KV split of the budget, r/(1+r) goes to mamba state."));
    f.min = 0;
    f.min_exclusive = true;
  }
  at_least(add(flag("--max-mamba-cache-size", "max_mamba_cache_size", T::kInt,
                    "None (from the budget, R6.8)", "Mamba state slots (divided by DP size).")),
           1);
  {
    FlagSpec& f =
        add(flag("--mamba-radix-cache-strategy", "mamba_radix_cache_strategy", T::kChoice, "auto",
                 "How prefix caching keeps mamba state: slots per running request 3 (no_buffer), 4 "
                 "(lazy), 5 (extra_buffer with overlap)."));
    f.choices = {"auto", "no_buffer", "extra_buffer", "extra_buffer_lazy"};
  }
  {
    FlagSpec& f = deprecated("--mamba-scheduler-strategy", "mamba_radix_cache_strategy", T::kChoice,
                             "--mamba-radix-cache-strategy",
                             "Mamba radix-cache strategy (name before 2026-06-18).");
    f.choices = {"auto", "no_buffer", "extra_buffer", "extra_buffer_lazy"};
  }
  at_least(add(flag("--mamba-track-interval", "mamba_track_interval", T::kInt, "256",
                    "Tokens between tracked mamba states (extra_buffer needs ≥ draft tokens).")),
           1);
  {
    FlagSpec& f = add(flag("--linear-attn-backend", "linear_attn_backend", T::kChoice, "triton",
                           "Linear-attention kernels; extra_buffer needs triton."));
    f.choices = {"triton", "cutedsl", "flashinfer", "flashkda"};
  }
  add(flag("--language-only", "language_only", T::kBool, "False",
           "Serve the language model only: no VLM factor on mem_fraction_static."));

  // Kernels and backends.
  {
    FlagSpec& f = add(flag("--attention-backend", "attention_backend", T::kString,
                           "None (by GPU, §2.3)", "Attention kernels."));
    f.runtime_effect =
        "chooses attention kernels; sizes no pool except through the page size some backends need";
  }
  {
    FlagSpec& f = add(flag("--prefill-attention-backend", "prefill_attention_backend", T::kString,
                           "None", "Prefill attention kernels."));
    f.runtime_effect = "chooses prefill attention kernels at run time";
  }
  {
    FlagSpec& f = add(flag("--decode-attention-backend", "decode_attention_backend", T::kString,
                           "None", "Decode attention kernels."));
    f.runtime_effect = "chooses decode attention kernels at run time";
  }
  {
    FlagSpec& f = add(flag("--moe-runner-backend", "moe_runner_backend", T::kString, "auto",
                           "Fused-MoE kernels."));
    f.runtime_effect = "chooses the fused-MoE kernels at run time";
  }
  {
    FlagSpec& f =
        add(flag("--moe-a2a-backend", "moe_a2a_backend", T::kChoice, "none",
                 "MoE all-to-all; deepep adds 2 GiB to the reserve and disables prefill graphs."));
    f.choices = {"none",          "deepep",     "mooncake", "nixl",     "mori",
                 "ascend_fuseep", "flashinfer", "megamoe",  "ascend_tp"};
  }
  {
    FlagSpec& f = add(flag("--fp8-gemm-runner-backend", "fp8_gemm_runner_backend", T::kString,
                           "auto", "FP8 GEMM kernels (cutlass on SM120)."));
    f.runtime_effect = "chooses FP8 GEMM kernels at run time";
  }
  {
    FlagSpec& f = add(flag(
        "--enable-fused-moe-sum-all-reduce", "enable_fused_moe_sum_all_reduce", T::kBool, "False",
        "Fuses the top-k expert sum into the second MoE GEMM (Triton runner, top-k > 2); no "
        "memory effect."));
    f.runtime_effect =
        "consumed only at runtime by the Triton fused-MoE kernel (top-k > 2), which sums the top-k "
        "expert outputs inside the second GEMM; no pool is sized from it (§9.2)";
  }
  {
    FlagSpec& f = deprecated(
        "--enable-flashinfer-allreduce-fusion", "enable_flashinfer_allreduce_fusion", T::kBool,
        "--flashinfer-allreduce-fusion-backend auto",
        "FlashInfer allreduce + residual + RMSNorm fusion (SM90/SM10x only); workspaces are "
        "allocated after the pools are sized.");
    f.runtime_effect =
        "fuses the TP all-reduce with residual add and RMSNorm at run time; its workspaces (about "
        "0.4 GB per rank) are allocated at warmup, after the KV and mamba pools are sized (§9.1)";
  }
  {
    FlagSpec& f = add(flag("--flashinfer-allreduce-fusion-backend",
                           "flashinfer_allreduce_fusion_backend", T::kChoice, "None",
                           "FlashInfer allreduce fusion backend (SM90: trtllm, SM10x: mnnvl)."));
    f.runtime_effect =
        "selects the FlashInfer all-reduce fusion backend at run time; workspaces are allocated "
        "after the pools are sized (§9.1)";
    f.choices = {"auto", "trtllm", "mnnvl"};
  }
  {
    FlagSpec& f = add(flag("--enforce-disable-flashinfer-allreduce-fusion",
                           "enforce_disable_flashinfer_allreduce_fusion", T::kBool, "False",
                           "Turns FlashInfer allreduce fusion off, overriding auto-enable."));
    f.runtime_effect = "turns the run-time all-reduce fusion off; no pool is sized from it";
  }

  // Modes that switch capacity rules.
  {
    FlagSpec& f =
        add(flag("--disaggregation-mode", "disaggregation_mode", T::kChoice, "null",
                 "PD disaggregation role; decode nodes size activations by running requests."));
    f.choices = {"null", "prefill", "decode"};
  }
  add(flag("--enable-deterministic-inference", "enable_deterministic_inference", T::kBool, "False",
           "Deterministic kernels; disables the tc_piecewise prefill graph and allreduce fusion."));
  add(flag("--enable-lora", "enable_lora", T::kBool, "None",
           "LoRA adapters; disables prefill graphs."));
  add(flag("--enable-multimodal", "enable_multimodal", T::kBool, "None",
           "Serves a multimodal model's vision part; Llama 4 and Gemma 3 load text-only without "
           "it (the VLM fraction and the multimodal graph rules then apply)."));
  add(flag("--enable-hierarchical-cache", "enable_hierarchical_cache", T::kBool, "False",
           "HiCache; disables the tc_piecewise prefill graph."));
  return v;
}

}  // namespace

const std::vector<FlagSpec>& capacity_flags() {
  static const std::vector<FlagSpec> kFlags = build_capacity_flags();
  return kFlags;
}

const FlagSpec* find_capacity_flag(std::string_view name) {
  return find_flag_spec(capacity_flags(), name);
}

const std::vector<CliFlag>& cli_surface() {
  static const std::vector<CliFlag> kSurface = [] {
    const std::string_view* tsv = find_embedded_file("sglang/flags-2026-07-20.tsv");
    if (tsv == nullptr)
      throw std::logic_error("data/sglang/flags-2026-07-20.tsv was not embedded");
    auto parsed = parse_cli_surface(*tsv, "data/sglang/flags-2026-07-20.tsv");
    if (!parsed)
      throw std::logic_error(parsed.message());
    return std::move(parsed).value();
  }();
  return kSurface;
}

const std::vector<CliFlag>& removed_flags() {
  // Flags of 2024-2026 releases that main 2026-07-20 no longer accepts (argparse there
  // would exit with "unrecognized arguments").
  static const std::vector<CliFlag> kRemoved = {
      {"--enable-piecewise-cuda-graph", {}, "enable_piecewise_cuda_graph", '0', "bool"},
      {"--enable-ep-moe", {}, "enable_ep_moe", '0', "bool"},
      {"--enable-deepep-moe", {}, "enable_deepep_moe", '0', "bool"},
      {"--disable-mla", {}, "disable_mla", '0', "bool"},
      {"--enable-flashinfer-mla", {}, "enable_flashinfer_mla", '0', "bool"},
      {"--disable-jump-forward", {}, "disable_jump_forward", '0', "bool"},
      {"--fp8-gemm-backend", {}, "fp8_gemm_backend", '1', "str"},
  };
  return kRemoved;
}

}  // namespace servescope::sglang
