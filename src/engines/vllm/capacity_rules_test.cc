// One or more tests per vLLM rule id (docs/research/vllm-capacity.md §1–§9, §12), each through the
// planner with a command typed as a user would, asserting values computed by hand from the rule.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/units.h"
#include "engines/vllm/vllm_rules.h"
#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

constexpr char kLlama[] = "vllm serve meta-llama/Llama-3.1-8B-Instruct ";

VllmRun run(const std::string& args, const std::string& gpu = "h100-sxm",
            std::optional<double> kv = 20.0, const std::string& engine = "vllm@2026-05-27") {
  VllmRun r;
  r.command = args;
  r.gpu = gpu;
  r.kv_memory = kv;
  r.engine = engine;
  return r;
}

// A llama-shaped profile: T = 79.19 GiB, W 14.99, A 1.89, N 0.25 (the v0.19.0 sweep's run).
VllmRun profiled(const std::string& extra, const std::string& engine = "vllm@2026-05-27") {
  VllmRun r =
      run(std::string(kLlama) + "--max-model-len 8192 " + extra, "h100-sxm", std::nullopt, engine);
  r.total = 79.19;
  r.weights = 14.99;
  r.activation = 1.89;
  r.non_torch = 0.25;
  return r;
}

// --- V1.2 max_model_len -----------------------------------------------------------------

TEST(V1_2_MaxModelLen, FromTheConfigWhenNotTyped) {
  EXPECT_EQ(value_of(vllm_plan(run(kLlama)), "max_model_len"), 131072);
}

TEST(V1_2_MaxModelLen, AboveTheConfigIsRefusedUnlessAllowed) {
  auto p = try_vllm_plan(run(std::string(kLlama) + "--max-model-len 200000"));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("--max-model-len 200000"), std::string::npos);
  VllmRun r = run(std::string(kLlama) + "--max-model-len 200000");
  r.env = {"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"};
  EXPECT_EQ(value_of(vllm_plan(r), "max_model_len"), 200000);
}

TEST(V4_4_AutoFit, MinusOneFitsTheContextToTheKvMemory) {
  // 4 GiB / (32 layers × 2 × 8 heads × 128 × 2 bytes = 128 KiB per token) = 32768 tokens.
  Plan p = vllm_plan(run(std::string(kLlama) + "--max-model-len auto", "h100-sxm", 4.0));
  EXPECT_EQ(value_of(p, "max_model_len"), 32768);
  EXPECT_TRUE(p.starts);
}

// --- V2 memory profile ----------------------------------------------------------------------

TEST(V2_1_RequestedMemory, CeilOfTotalTimesUtilization) {
  Plan p = vllm_plan(profiled("--gpu-memory-utilization 0.95"));
  EXPECT_NEAR(value_of(p, "requested_memory_gib"), std::ceil(79.19 * 0.95 * kGiB) / kGiB, 1e-12);
}

TEST(V2_1_RequestedMemory, TooLittleFreeMemoryAtStartupRefuses) {
  VllmRun r = profiled("--gpu-memory-utilization 0.95");
  r.free = 70;  // < 75.23 GiB requested
  Plan p = vllm_plan(r);
  EXPECT_FALSE(p.starts);
  EXPECT_TRUE(has_code(p, "startup-free-memory"));
  EXPECT_NE(p.startup_error.find("Free memory on device (70.00/79.19 GiB)"), std::string::npos);
}

TEST(V2_2_AvailableKv, RequestedMinusWeightsActivationNonTorch) {
  Plan p = vllm_plan(profiled("--gpu-memory-utilization 0.95", "vllm@0.19.0"));
  // ceil(79.19 GiB × 0.95) − 14.99 − 1.89 − 0.25 GiB = 58.1005 GiB → printed 58.1.
  EXPECT_DOUBLE_EQ(value_of(p, "available_kv_cache_memory_gib"), 58.1);
}

TEST(V2_3_CudaGraphEstimate, SubtractedByDefaultOnlySince20260421) {
  VllmRun r = profiled("--gpu-memory-utilization 0.95", "vllm@0.19.0");
  r.cuda_graph = 1.0;
  EXPECT_EQ(value_of(vllm_plan(r), "cuda_graph_memory_subtracted_gib"), 0);  // env default 0
  r.env = {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1"};
  EXPECT_EQ(value_of(vllm_plan(r), "cuda_graph_memory_subtracted_gib"), 1.0);  // opt-in
  r.engine = "vllm@2026-03-01";  // before #30515: no estimate at all
  EXPECT_EQ(value_of(vllm_plan(r), "cuda_graph_memory_subtracted_gib"), 0);
  r.engine = "vllm@2026-04-21";
  r.env.clear();
  EXPECT_EQ(value_of(vllm_plan(r), "cuda_graph_memory_subtracted_gib"), 1.0);  // default on
  r.env = {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0"};
  EXPECT_EQ(value_of(vllm_plan(r), "cuda_graph_memory_subtracted_gib"), 0);
  r.env.clear();
  r.command += " --enforce-eager";
  EXPECT_EQ(value_of(vllm_plan(r), "cuda_graph_memory_subtracted_gib"), 0);  // no graphs
}

TEST(V2_4_KvCacheMemoryBytes, UsedVerbatimWithoutProfiling) {
  VllmRun r = profiled("--kv-cache-memory-bytes 20G");
  Plan p = vllm_plan(r);
  EXPECT_EQ(value_of(p, "available_kv_cache_memory_bytes"), 20.0 * kGiB);
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), 10240);  // 20 GiB / 2 MiB per block
  r.command = std::string(kLlama) + "--max-model-len 8192 --kv-cache-memory-bytes 20g";
  EXPECT_EQ(value_of(vllm_plan(r), "available_kv_cache_memory_bytes"), 20e9);
}

TEST(V2_5_DeviceTotal, TableForKnownGpusEstimateOtherwise) {
  Plan h100 = vllm_plan(run(kLlama));
  EXPECT_DOUBLE_EQ(value_of(h100, "device_total_memory_gib"), 81090.0 / 1024);
  Plan l4 = vllm_plan(run(kLlama, "l4"));
  EXPECT_DOUBLE_EQ(value_of(l4, "device_total_memory_gib"), 23034.0 / 1024 - 0.6);
  EXPECT_NE(std::find(l4.estimated.begin(), l4.estimated.end(), "device_total_memory"),
            l4.estimated.end());
}

TEST(V2_7_V2_8_Estimates, UncalibratedActivationAndNonTorchAreMarked) {
  Plan p = vllm_plan(run(std::string(kLlama) + "--max-model-len 8192", "h100-sxm", std::nullopt));
  // 3.05 × 1024 rows × 128256 × 4 bytes + 0.40 GiB ≈ 1.89 GiB, the sweep's measured value.
  EXPECT_NEAR(value_of(p, "activation_peak_gib"), 1.89, 0.03);
  EXPECT_EQ(value_of(p, "non_torch_gib"), 0.25);
  EXPECT_EQ(p.graph.find("activation_peak_gib")->origin, Origin::kEstimate);
  for (const char* e : {"weights", "activation_peak", "non_torch"}) {
    EXPECT_NE(std::find(p.estimated.begin(), p.estimated.end(), e), p.estimated.end()) << e;
  }
  EXPECT_TRUE(has_code(p, "estimated-input"));
}

// --- V3 KV specs -------------------------------------------------------------------------------

TEST(V3_2_CacheDtype, Float32ModelsKeepFourByteKv) {
  Plan p = vllm_plan(run(std::string(kLlama) + "--dtype float32"));
  EXPECT_EQ(value_of(p, "kv_element_bytes"), 4);
  EXPECT_EQ(value_of(p, "kv_page_bytes"), 131072);
}

TEST(V3_4_KvHeads, MoreRanksThanKvHeadsReplicate) {
  Plan p = vllm_plan(run("vllm serve Qwen/Qwen3-30B-A3B -tp 8"));
  EXPECT_EQ(value_of(p, "kv_heads_per_rank"), 1);  // 4 KV heads over 8 ranks
  EXPECT_EQ(value_of(p, "kv_page_bytes"), 16 * 1 * 256 * 2);
}

TEST(V3_1_V8_2_MlaBackendsAndBlocks, ByGpuAndFlag) {
  const std::string ds = "vllm serve deepseek-ai/DeepSeek-V2-Lite-Chat ";
  Plan h100 = vllm_plan(run(ds));
  EXPECT_EQ(text_of(h100, "attention_backend"), "FLASH_ATTN_MLA");
  EXPECT_EQ(value_of(h100, "block_size"), 16);
  EXPECT_EQ(value_of(h100, "kv_page_bytes"), 16 * 576 * 2);  // kv_lora_rank 512 + rope 64
  Plan b200 = vllm_plan(run(ds, "b200"));
  EXPECT_EQ(text_of(b200, "attention_backend"), "FLASHINFER_MLA");
  EXPECT_EQ(value_of(b200, "block_size"), 32);
  Plan cutlass = vllm_plan(run(ds + "--attention-backend CUTLASS_MLA", "b200"));
  EXPECT_EQ(value_of(cutlass, "block_size"), 128);
  Plan l40s = vllm_plan(run(ds, "l40s"));
  EXPECT_EQ(text_of(l40s, "attention_backend"), "TRITON_MLA");
}

TEST(V8_2_Backend, ByComputeCapability) {
  EXPECT_EQ(text_of(vllm_plan(run(kLlama, "a100-80gb")), "attention_backend"), "FLASH_ATTN");
  EXPECT_EQ(value_of(vllm_plan(run(kLlama, "a100-80gb")), "flash_attn_version"), 2);
  EXPECT_EQ(text_of(vllm_plan(run(kLlama, "b200")), "attention_backend"), "FLASHINFER");
  EXPECT_EQ(text_of(vllm_plan(run(kLlama, "v100-32gb", 10.0)), "attention_backend"), "TRITON_ATTN");
}

// --- V4 grouping and blocks --------------------------------------------------------------------

// A gpt-oss-shaped model with 16 full and 22 sliding-window layers: 22 < 1.5 × 16 but not
// < 1.25 × 16, so the grouping threshold change of #36684 (2026-03-12) changes the groups.
std::string write_uneven_sliding_config() {
  const auto path = std::filesystem::temp_directory_path() / "servescope-vllm-uneven-swa.json";
  std::string types;
  for (int i = 0; i < 38; ++i)
    types +=
        fmt::format("{}\"{}\"", i ? ", " : "", i < 16 ? "full_attention" : "sliding_attention");
  std::ofstream(path) << fmt::format(
      R"({{"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss",
  "num_hidden_layers": 38, "hidden_size": 2880, "num_attention_heads": 64,
  "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 201088, "sliding_window": 128,
  "max_position_embeddings": 131072, "num_local_experts": 32, "experts_per_token": 4,
  "intermediate_size": 2880, "torch_dtype": "bfloat16", "layer_types": [{}]}})",
      types);
  return path.string();
}

TEST(V4_1_Grouping, ThresholdDatedByPr36684) {
  VllmRun r = run("vllm serve uneven-swa --max-model-len 8192");
  r.model = write_uneven_sliding_config();
  r.engine = "vllm@2026-03-12";
  EXPECT_EQ(value_of(vllm_plan(r), "kv_cache_groups"), 2);  // group size 22
  r.engine = "vllm@2026-03-11";
  EXPECT_EQ(value_of(vllm_plan(r), "kv_cache_groups"), 3);  // group size 16
}

// V3.7: phi-4's dimensions with the sliding_window 16384 one published copy of its config carries
// (the Hub's says null); no layer_types, so vLLM windows every layer.
std::string write_model_level_window_config(const std::string& window) {
  const auto path = std::filesystem::temp_directory_path() / "servescope-vllm-phi-window.json";
  std::ofstream(path) << fmt::format(
      R"({{"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 5120,
  "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 10,
  "intermediate_size": 17920, "vocab_size": 100352, "max_position_embeddings": 16384,
  "torch_dtype": "bfloat16", "sliding_window": {}}})",
      window);
  return path.string();
}

TEST(V3_7_ModelLevelWindow, EveryLayerSlidesAndARequestHoldsOneMoreBlock) {
  // 8192 tokens of context in 16-token blocks: 512 blocks full, cdiv(min(16383 + 8192, 8192),
  // 16) + 1 = 513 windowed (SlidingWindowSpec.max_memory_usage_bytes).
  VllmRun r = run("vllm serve phi --max-model-len 8192");
  r.model = write_model_level_window_config("16384");
  const Plan windowed = vllm_plan(r);
  EXPECT_EQ(text_of(windowed, "kv_layers"), "40 sliding_window");
  EXPECT_EQ(value_of(windowed, "kv_window"), 16384);
  EXPECT_EQ(value_of(windowed, "blocks_per_request"), 513);
  r.model = write_model_level_window_config("null");
  const Plan full = vllm_plan(r);
  EXPECT_EQ(text_of(full, "kv_layers"), "40 full");
  EXPECT_EQ(value_of(full, "blocks_per_request"), 512);
  // --disable-sliding-window keeps every layer full.
  r.command = "vllm serve phi --max-model-len 8192 --disable-sliding-window";
  r.model = write_model_level_window_config("16384");
  EXPECT_EQ(text_of(vllm_plan(r), "kv_layers"), "40 full");
}

TEST(V4_2_NumBlocks, PipelineStagesHoldHalfTheLayers) {
  const double tp1 = value_of(vllm_plan(run(kLlama)), "num_gpu_blocks");
  const double pp2 = value_of(vllm_plan(run(std::string(kLlama) + "-pp 2")), "num_gpu_blocks");
  EXPECT_EQ(tp1, std::floor(20.0 * kGiB / 65536 / 32));
  EXPECT_EQ(pp2, std::floor(20.0 * kGiB / 65536 / 16));
}

TEST(V4_3_FitCheck, AContextLongerThanTheCacheRefuses) {
  Plan p = vllm_plan(run(std::string(kLlama) + "--max-model-len 29000", "rtx-3090", 2.89));
  EXPECT_FALSE(p.starts);
  EXPECT_TRUE(has_code(p, "max-model-len-does-not-fit"));
  // 2.89 GiB holds 1479 whole blocks of 2 MiB (32 layers × 64 KiB); the binary search stops at
  // the longest context whose blocks fit: 1479 × 16 tokens.
  EXPECT_EQ(value_of(p, "estimated_max_model_len"), 1479 * 16);
}

TEST(V4_5_BlockOverride, ReplacesBlocksAndSinceApril2026TheCheckedMemory) {
  Plan p =
      vllm_plan(run(std::string(kLlama) + "--num-gpu-blocks-override 1000 --max-model-len 8192"));
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), 1000);
  // 100 blocks cannot hold one 32768-token request (2048 blocks): refused since #41069.
  const std::string cmd =
      std::string(kLlama) + "--num-gpu-blocks-override 100 --max-model-len 32768";
  EXPECT_FALSE(vllm_plan(run(cmd)).starts);
  EXPECT_TRUE(vllm_plan(run(cmd, "h100-sxm", 20.0, "vllm@0.19.0")).starts);
}

// --- V5 headline figures ------------------------------------------------------------------------

TEST(V5_2_KvCacheSize, DenseModelsAgreeInBothEras) {
  const std::string cmd = std::string(kLlama) + "--max-model-len 8192";
  EXPECT_EQ(
      value_of(vllm_plan(run(cmd)), "gpu_kv_cache_size_tokens"),
      value_of(vllm_plan(run(cmd, "h100-sxm", 20.0, "vllm@0.19.0")), "gpu_kv_cache_size_tokens"));
}

// --- V6 scheduler limits
// ---------------------------------------------------------------------------

TEST(V6_1_BatchDefaults, ByGpuMemoryAndName) {
  for (const auto& [gpu, tokens, seqs] : std::vector<std::tuple<const char*, int, int>>{
           {"h100-sxm", 8192, 1024},
           {"rtx-pro-6000", 8192, 1024},
           {"a100-80gb", 2048, 256},  // ≥ 70 GiB but an A100
           {"l40s", 2048, 256}}) {
    Plan p = vllm_plan(run(kLlama, gpu, 10.0));
    EXPECT_EQ(value_of(p, "max_num_batched_tokens"), tokens) << gpu;
    EXPECT_EQ(value_of(p, "max_num_seqs"), seqs) << gpu;
  }
}

TEST(V6_2_BatchAdjustments, ThroughputChunkedPrefillAndCaps) {
  Plan t = vllm_plan(run(std::string(kLlama) + "--performance-mode throughput"));
  EXPECT_EQ(value_of(t, "max_num_batched_tokens"), 16384);
  EXPECT_EQ(value_of(t, "max_num_seqs"), 2048);
  Plan nc =
      vllm_plan(run(std::string(kLlama) + "--no-enable-chunked-prefill --max-model-len 32768"));
  EXPECT_EQ(value_of(nc, "max_num_batched_tokens"), 32768);
  Plan cap = vllm_plan(run(std::string(kLlama) + "--max-num-seqs 2 --max-model-len 1024"));
  EXPECT_EQ(value_of(cap, "max_num_batched_tokens"), 2048);
  Plan seqs = vllm_plan(run(std::string(kLlama) + "--max-num-batched-tokens 512"));
  EXPECT_EQ(value_of(seqs, "max_num_seqs"), 512);
  Plan bad =
      vllm_plan(run(std::string(kLlama) + "--max-num-batched-tokens 512 --max-num-seqs 1024"));
  EXPECT_FALSE(bad.starts);
  EXPECT_NE(bad.startup_error.find("max_num_batched_tokens (512)"), std::string::npos);
}

TEST(V6_3_PrefixCaching, HybridModelsDefaultOffAndAlignWhenOn) {
  const std::string next =
      "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct -tp 4 --max-model-len 32768 ";
  Plan off = vllm_plan(run(next, "h100-sxm", 30.0));
  EXPECT_FALSE(off.graph.value("enable_prefix_caching").as_bool());
  Plan on = vllm_plan(run(next + "--enable-prefix-caching", "h100-sxm", 30.0));
  EXPECT_EQ(text_of(on, "mamba_cache_mode"), "align");
  EXPECT_EQ(value_of(on, "blocks_per_request"), 121 + 3 * 2);
  EXPECT_TRUE(vllm_plan(run(kLlama)).graph.value("enable_prefix_caching").as_bool());
}

// --- After main 2026-05-27 (currency-2026-12.md §2.2)
// ----------------------------------------------

TEST(V6_3_PrefixCaching, HybridModelsDefaultOnFrom2026_08_04) {
  // V6 (#50991): prefix caching on by default for hybrids, in the align mode.
  const std::string next =
      "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct -tp 4 --max-model-len 32768 ";
  Plan before = vllm_plan(run(next, "h100-sxm", 30.0, "vllm@2026-08-03"));
  EXPECT_FALSE(before.graph.value("enable_prefix_caching").as_bool());
  Plan after = vllm_plan(run(next, "h100-sxm", 30.0, "vllm@2026-08-04"));
  EXPECT_TRUE(after.graph.value("enable_prefix_caching").as_bool());
  EXPECT_EQ(text_of(after, "mamba_cache_mode"), "align");
  // The same pages per request as typing --enable-prefix-caching before.
  EXPECT_EQ(value_of(after, "blocks_per_request"), 121 + 3 * 2);
}

TEST(V6_3_PrefixCaching, ReleasesTakeItFrom0_28_0AsTheirWheelsShow) {
  // 0.27.0 and 0.27.1 still say `and not model_config.is_hybrid` in engine/arg_utils.py; 0.28.0
  // does not (wheel grep): their cuts in data/vllm/releases.csv precede #50991.
  const std::string next =
      "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct -tp 4 --max-model-len 32768 ";
  for (const char* release : {"vllm@0.27.0", "vllm@0.27.1"}) {
    Plan p = vllm_plan(run(next, "h100-sxm", 30.0, release));
    EXPECT_FALSE(p.graph.value("enable_prefix_caching").as_bool()) << release;
    EXPECT_EQ(text_of(p, "mamba_cache_mode"), "none") << release;
  }
  Plan p = vllm_plan(run(next, "h100-sxm", 30.0, "vllm@0.28.0"));
  EXPECT_TRUE(p.graph.value("enable_prefix_caching").as_bool());
  EXPECT_EQ(text_of(p, "mamba_cache_mode"), "align");
}

TEST(V6_1_BatchDefaults, DevicesOf160GibDefaultTo16kTokensFrom2026_08_11) {
  // V17 (#51726): B200 (183,359 MiB) gets 16384 tokens; H200 (143,771 MiB) keeps 8192.
  EXPECT_EQ(
      value_of(vllm_plan(run(kLlama, "b200", 20.0, "vllm@2026-08-10")), "max_num_batched_tokens"),
      8192);
  EXPECT_EQ(
      value_of(vllm_plan(run(kLlama, "b200", 20.0, "vllm@2026-08-11")), "max_num_batched_tokens"),
      16384);
  EXPECT_EQ(
      value_of(vllm_plan(run(kLlama, "h200", 20.0, "vllm@2026-08-11")), "max_num_batched_tokens"),
      8192);
}

TEST(V7_3_CaptureSizes, TheSm10xFamilyCapturesUpTo1024From2026_08_07) {
  // V15 (#49390): min(max_num_seqs·q·2, 1024) on SM 10.x, then ≤ max_num_batched_tokens.
  EXPECT_EQ(value_of(vllm_plan(run(kLlama, "b200", 20.0, "vllm@2026-08-06")),
                     "max_cudagraph_capture_size"),
            512);
  EXPECT_EQ(value_of(vllm_plan(run(kLlama, "b200", 20.0, "vllm@2026-08-07")),
                     "max_cudagraph_capture_size"),
            1024);
  EXPECT_EQ(value_of(vllm_plan(run(kLlama, "h100-sxm", 20.0, "vllm@2026-08-07")),
                     "max_cudagraph_capture_size"),
            512);
}

// --- V7 compilation and CUDA graphs -------------------------------------------------------------

TEST(V7_1_OptimizationLevel, LevelsAndTheirCudagraphModes) {
  EXPECT_EQ(text_of(vllm_plan(run(std::string(kLlama) + "-O0")), "cudagraph_mode"), "NONE");
  EXPECT_EQ(text_of(vllm_plan(run(std::string(kLlama) + "-O1")), "cudagraph_mode"), "PIECEWISE");
  EXPECT_EQ(text_of(vllm_plan(run(std::string(kLlama) + "-O 3")), "cudagraph_mode"),
            "FULL_AND_PIECEWISE");
  EXPECT_EQ(text_of(vllm_plan(run(kLlama, "h100-sxm", 20.0, "vllm@2025-09-01")), "cudagraph_mode"),
            "PIECEWISE");  // before #25444
}

TEST(V7_2_Downgrades, EagerTorchCompileDisableAndSplittingOps) {
  Plan eager = vllm_plan(run(std::string(kLlama) + "--enforce-eager"));
  EXPECT_EQ(text_of(eager, "runtime_cudagraph_mode"), "NONE");
  EXPECT_TRUE(eager.graph.value("cudagraph_capture_sizes").as_list().empty());
  EXPECT_EQ(value_of(eager, "cudagraphs_full"), 0);
  VllmRun r = run(kLlama);
  r.env = {"TORCH_COMPILE_DISABLE=1"};
  EXPECT_EQ(text_of(vllm_plan(r), "cudagraph_mode"), "NONE");
  Plan split = vllm_plan(run(std::string(kLlama) + "-cc.splitting_ops='[]'"));
  EXPECT_EQ(text_of(split, "cudagraph_mode"), "FULL");
  EXPECT_EQ(text_of(split, "runtime_cudagraph_mode"), "FULL");  // FA3 supports ALWAYS
}

TEST(V7_3_CaptureSizes, DefaultsInteractivityTypedAndTheTokenBudget) {
  auto sizes = [](const Plan& p) { return p.graph.value("cudagraph_capture_sizes").as_list(); };
  EXPECT_EQ(sizes(vllm_plan(run(std::string(kLlama) + "--max-num-seqs 16"))),
            (IntList{1, 2, 4, 8, 16, 24, 32}));
  // interactivity: every size up to 32, then the usual steps of 8 and 16.
  const IntList inter =
      sizes(vllm_plan(run(std::string(kLlama) + "--performance-mode interactivity")));
  ASSERT_EQ(inter.size(), 76u);
  EXPECT_EQ(inter[31], 32);
  EXPECT_EQ(inter[32], 40);
  EXPECT_EQ(sizes(vllm_plan(run(std::string(kLlama) + "--cudagraph-capture-sizes 1 2 2 99999"))),
            (IntList{1, 2}));
  const std::string budget =
      std::string(kLlama) + "--max-num-batched-tokens 300 --max-num-seqs 256";
  EXPECT_EQ(sizes(vllm_plan(run(budget))).back(), 300);  // #40734 captures the budget itself
  EXPECT_EQ(sizes(vllm_plan(run(budget, "h100-sxm", 20.0, "vllm@0.19.0"))).back(), 288);
}

// #26016 (2025-10-24, vLLM 0.11.1): step 16 from 256. Before it the default list stepped by 8
// up to the largest size: 67 sizes at max_num_seqs 256, as 0.10.1.1 logs print.
TEST(V7_3_CaptureSizes, StepEightUpToTheLargestBefore26016) {
  auto sizes = [](const Plan& p) { return p.graph.value("cudagraph_capture_sizes").as_list(); };
  const std::string seqs256 = std::string(kLlama) + "--max-num-seqs 256";
  const IntList before = sizes(vllm_plan(run(seqs256, "h100-sxm", 20.0, "vllm@2025-10-23")));
  ASSERT_EQ(before.size(), 67u);
  EXPECT_EQ(before[35], 264);
  EXPECT_EQ(before.back(), 512);
  const IntList after = sizes(vllm_plan(run(seqs256, "h100-sxm", 20.0, "vllm@2025-10-24")));
  ASSERT_EQ(after.size(), 51u);
  EXPECT_EQ(after[35], 272);
  EXPECT_EQ(after.back(), 512);
  // At 128 sequences or fewer the two forms agree.
  const std::string seqs64 = std::string(kLlama) + "--max-num-seqs 64";
  EXPECT_EQ(sizes(vllm_plan(run(seqs64, "h100-sxm", 20.0, "vllm@2025-10-23"))),
            sizes(vllm_plan(run(seqs64, "h100-sxm", 20.0, "vllm@2025-10-24"))));
}

TEST(V7_4_RuntimeMode, SpeculativeDecodingNeedsUniformBatchSupport) {
  const std::string eagle = std::string(kLlama) +
                            "--speculative-config '{\"method\": \"eagle3\", \"model\": \"m\", "
                            "\"num_speculative_tokens\": 2}' ";
  Plan fa2 = vllm_plan(run(eagle, "rtx-pro-6000"));
  EXPECT_EQ(text_of(fa2, "runtime_cudagraph_mode"), "FULL_AND_PIECEWISE");  // FA2: UNIFORM_BATCH
  Plan fi = vllm_plan(run(eagle + "--attention-backend FLASHINFER", "rtx-pro-6000"));
  EXPECT_EQ(text_of(fi, "runtime_cudagraph_mode"), "PIECEWISE");
  EXPECT_TRUE(has_code(fi, "cudagraph-downgrade"));
  Plan plain =
      vllm_plan(run(std::string(kLlama) + "--attention-backend FLASHINFER", "rtx-pro-6000"));
  EXPECT_EQ(text_of(plain, "runtime_cudagraph_mode"), "FULL_AND_PIECEWISE");
}

// --- V8.1 allreduce + RMSNorm fusion -----------------------------------------------------------

TEST(V8_1_AllreduceFusion, DefaultOnlyOnSm90And10xWithTp) {
  auto fused = [](const std::string& args, const std::string& gpu, const std::string& engine) {
    return vllm_plan(run(std::string(kLlama) + args, gpu, 20.0, engine))
        .graph.value("fuse_allreduce_rms")
        .as_bool();
  };
  EXPECT_TRUE(fused("-tp 2", "h100-sxm", "vllm"));
  EXPECT_FALSE(fused("-tp 1", "h100-sxm", "vllm"));
  EXPECT_FALSE(fused("-tp 2", "rtx-pro-6000", "vllm"));
  EXPECT_FALSE(fused("-tp 2", "a100-80gb", "vllm"));
  EXPECT_FALSE(fused("-tp 2", "h100-sxm", "vllm@2026-02-01"));        // before #34299
  EXPECT_FALSE(fused("-tp 2 -dp 2", "h100-sxm", "vllm@2026-02-20"));  // #34392: DP = 1 only
  EXPECT_TRUE(fused("-tp 2 -dp 2", "h100-sxm", "vllm"));              // #41458
  EXPECT_FALSE(fused("-tp 2", "b300", "vllm@2026-03-01"));            // 10.3 from #37755
  EXPECT_TRUE(fused("-tp 2", "b300", "vllm"));
  EXPECT_FALSE(fused("-tp 2 --enforce-eager", "h100-sxm", "vllm"));
}

TEST(V8_1_AllreduceFusion, ForcedOnWhereThePassDisablesItselfIsAWarning) {
  Plan p = vllm_plan(
      run(std::string(kLlama) + "-tp 2 -cc.pass_config.fuse_allreduce_rms=true", "rtx-pro-6000"));
  EXPECT_FALSE(p.graph.value("fuse_allreduce_rms").as_bool());
  EXPECT_TRUE(has_code(p, "fusion-ineffective"));
  Plan old =
      vllm_plan(run(std::string(kLlama) + "-tp 2 -cc.pass_config.enable_fi_allreduce_fusion=true"));
  EXPECT_TRUE(has_code(old, "removed-option"));
}

// --- V9 speculative decoding -------------------------------------------------------------------

TEST(V9_1_DrafterLayers, NgramAddsNoneDraftModelsAreReported) {
  Plan ngram = vllm_plan(run(std::string(kLlama) +
                             "--speculative-config '{\"method\": \"ngram\", "
                             "\"num_speculative_tokens\": 4, \"prompt_lookup_max\": 4}'"));
  EXPECT_EQ(text_of(ngram, "kv_layers"), "32 full");
  Plan draft =
      vllm_plan(run(std::string(kLlama) +
                    "--speculative-config '{\"method\": \"draft_model\", \"model\": "
                    "\"meta-llama/Llama-3.2-1B-Instruct\", \"num_speculative_tokens\": 4}'"));
  EXPECT_TRUE(has_code(draft, "unmodelled-draft-model"));
  // V9.4: a draft model takes one slot per running request from the token budget.
  EXPECT_EQ(value_of(draft, "max_num_scheduled_tokens"), 8192 - 1024);
  EXPECT_TRUE(has_code(draft, "speculative-token-budget"));
}

// --- CLI findings ------------------------------------------------------------------------------

TEST(VllmFindings, UnmodelledFlagsVersionSurfaceAndRemovedEnv) {
  VllmRun r = run(std::string(kLlama) + "--port 8001 --enable-cumem-allocator", "h100-sxm", 20.0,
                  "vllm@0.19.0");
  r.env = {"VLLM_ATTENTION_BACKEND=FLASHINFER", "VLLM_SOMETHING_ELSE=1"};
  Plan p = vllm_plan(r);
  EXPECT_TRUE(has_code(p, "unmodelled-flag"));
  EXPECT_TRUE(has_code(p, "flag-not-in-version"));  // added after v0.19.0
  EXPECT_TRUE(has_code(p, "removed-env"));
  EXPECT_TRUE(has_code(p, "unmodelled-env"));
  r.engine = "vllm";
  EXPECT_FALSE(has_code(vllm_plan(r), "flag-not-in-version"));
}

// --- Versions ------------------------------------------------------------------------------------

TEST(VllmVersions, ReleasesDatesAndVariants) {
  EXPECT_EQ(vllm::resolve_vllm_version("0.19.0")->main_date, "2026-03-29");
  EXPECT_EQ(vllm::resolve_vllm_version("v0.19.0")->main_date, "2026-03-29");
  EXPECT_EQ(vllm::resolve_vllm_version("0.19.0.post1")->main_date, "2026-03-29");
  EXPECT_EQ(vllm::resolve_vllm_version("")->main_date, "2026-11-10");
  EXPECT_EQ(vllm::resolve_vllm_version("2027-01-01")->main_date, "2026-11-10");
  // Every published release is accepted (the PyPI upload bounds those the release table lacks);
  // one newer than all of them is accepted with a warning; a version that is no release is not.
  auto r33 = vllm::resolve_vllm_version("0.33.0");
  ASSERT_TRUE(r33.ok()) << r33.message();
  EXPECT_EQ(r33->release, "0.33.0");
  EXPECT_EQ(r33->main_date, "2026-10-27");
  EXPECT_TRUE(r33->rules_gap.empty());
  // 0.34.0's capacity changes its wheel shows are all change points now (the 64-token block,
  // the extensible KV cache V2.9, the split capture sizes V7.3b): data/vllm/unmodelled-changes.csv
  // lists none, and its plans carry no version warning.
  auto r34 = vllm::resolve_vllm_version("0.34.0");
  ASSERT_TRUE(r34.ok()) << r34.message();
  EXPECT_EQ(r34->main_date, "2026-11-10");
  EXPECT_TRUE(r34->rules_gap.empty()) << r34->rules_gap;
  EXPECT_FALSE(r34->unmodelled_changes);
  EXPECT_FALSE(vllm::resolve_vllm_version("0.34.0.post1")->unmodelled_changes);
  EXPECT_FALSE(r33->unmodelled_changes);
  EXPECT_EQ(vllm::resolve_vllm_version("0.10.1.1")->release, "0.10.1.1");
  EXPECT_EQ(vllm::resolve_vllm_version("")->release, "0.34.0");  // the newest published
  auto future = vllm::resolve_vllm_version("0.99.0");
  ASSERT_TRUE(future.ok()) << future.message();
  EXPECT_TRUE(future->newer_than_known);
  auto bad = vllm::resolve_vllm_version("0.5.99");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("vllm@0.5.99"), std::string::npos);
  EXPECT_EQ(vllm::rules_for_date("2026-04-20").default_gpu_memory_utilization, 0.9);
  EXPECT_EQ(vllm::rules_for_date("2026-04-21").default_gpu_memory_utilization, 0.92);
  EXPECT_EQ(vllm::rules_for_date("2026-04-27").kv_tokens, vllm::KvTokensFormula::kBlocksPerGroup);
  EXPECT_EQ(vllm::rules_for_date("2026-04-28").kv_tokens,
            vllm::KvTokensFormula::kConcurrencyTimesLen);
  // Change points are dated and in order.
  const auto& cps = vllm::change_points();
  for (std::size_t i = 1; i < cps.size(); ++i)
    EXPECT_LE(cps[i - 1].date, cps[i].date) << cps[i].pr;
}

// V3.1 from 0.34.0: CacheConfig.DEFAULT_BLOCK_SIZE is 64, and a backend keeps it when its
// kernels take it (FlashInfer MLA's 32 or 64: 64; FlashMLA 64; CUTLASS MLA 128 either way).
// Its oracle (tests/oracle/vllm-0.34.0.jsonl) agrees on every KV case with it.
TEST(V3_1_BlockSize, TheDefaultBlockIs64From034) {
  EXPECT_EQ(value_of(vllm_plan(run(kLlama, "h100-sxm", std::nullopt, "vllm@0.33.0")), "block_size"),
            16);
  EXPECT_EQ(value_of(vllm_plan(run(kLlama, "h100-sxm", std::nullopt, "vllm@0.34.0")), "block_size"),
            64);
  // A typed size still wins.
  EXPECT_EQ(value_of(vllm_plan(run(std::string(kLlama) + "--block-size 16", "h100-sxm",
                                   std::nullopt, "vllm@0.34.0")),
                     "block_size"),
            16);
}

}  // namespace
}  // namespace servescope::testing
