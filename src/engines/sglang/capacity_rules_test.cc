// One or more tests per SGLang rule id (docs/research/sglang-capacity.md), each through the planner
// with a command typed as a user would, asserting values computed by hand from the rule.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

// The rules as of main 2026-07-20 (release 0.5.16), which docs/research/sglang-capacity.md
// describes; the changes after it are tested in rule_variants_test.cc and against the engine in
// tests/oracle/.
PlanRequest cmd(const std::string& args, const std::string& gpu,
                std::optional<double> before = std::nullopt,
                std::optional<double> after = std::nullopt) {
  PlanRequest r;
  r.engine = "sglang@0.5.16";
  r.command = "python -m sglang.launch_server " + args;
  r.gpu = gpu;
  r.before = before;
  r.after = after;
  return r;
}

const char kLlama8b[] = "--model-path meta-llama/Llama-3.1-8B-Instruct";
const char kQwen35[] = "--model-path Qwen/Qwen3.5-122B-A10B-FP8";

// --- R2.1 GPU memory tiers -----------------------------------------------------------

TEST(R2_1_MemoryTiers, H100AtTp1Gets8kChunksAnd256DecodeGraphs) {
  Plan p = plan_of(cmd(kLlama8b, "h100-sxm"));
  EXPECT_EQ(num(p, "chunked_prefill_size"), 8192);
  EXPECT_EQ(num(p, "cuda_graph_max_bs_decode.resolved"), 256);
}

TEST(R2_1_MemoryTiers, H100AtTp4Gets512DecodeGraphs) {
  Plan p = plan_of(cmd(std::string(kLlama8b) + " --tp 4", "h100-sxm"));
  EXPECT_EQ(num(p, "cuda_graph_max_bs_decode.resolved"), 512);
}

TEST(R2_1_MemoryTiers, L4Gets2kChunksAnd24Or80DecodeGraphs) {
  EXPECT_EQ(num(plan_of(cmd(kLlama8b, "l4")), "chunked_prefill_size"), 2048);
  EXPECT_EQ(num(plan_of(cmd(kLlama8b, "l4")), "cuda_graph_max_bs_decode.resolved"), 24);
  EXPECT_EQ(num(plan_of(cmd(std::string(kLlama8b) + " --tp 4", "l4")),
                "cuda_graph_max_bs_decode.resolved"),
            80);
}

TEST(R2_1_MemoryTiers, A100_40GbGets4kChunks) {
  Plan p = plan_of(cmd(kLlama8b, "a100-40gb"));
  EXPECT_EQ(num(p, "chunked_prefill_size"), 4096);
  EXPECT_EQ(num(p, "cuda_graph_max_bs_decode.resolved"), 32);
}

TEST(R2_1_MemoryTiers, B200Gets16kChunks) {
  Plan p = plan_of(cmd(kLlama8b, "b200"));
  EXPECT_EQ(num(p, "chunked_prefill_size"), 16384);
  EXPECT_EQ(num(p, "cuda_graph_max_bs_decode.resolved"), 512);
}

TEST(R2_1_MemoryTiers, ExplicitChunkedPrefillWins) {
  EXPECT_EQ(num(plan_of(cmd(std::string(kLlama8b) + " --chunked-prefill-size 4096", "h100-sxm")),
                "chunked_prefill_size"),
            4096);
}

// --- R2.2 decode capture list ------------------------------------------------------------

TEST(R2_2_DecodeCaptureList, StandardPatternUpTo256Has36Sizes) {
  Plan p = plan_of(cmd(kLlama8b, "h100-sxm"));
  const IntList& bs = p.graph.find("cuda_graph_bs_decode.resolved")->value.as_list();
  ASSERT_EQ(bs.size(), 36u);  // [1,2,4,8,12] + 16..256 step 8
  EXPECT_EQ(bs[4], 12);
  EXPECT_EQ(bs[5], 16);
  EXPECT_EQ(bs.back(), 256);
}

TEST(R2_2_DecodeCaptureList, SpeculativePatternIsDenserAtSmallBatches) {
  Plan p = plan_of(cmd(std::string(kQwen35) + " --tp 4 --speculative-algorithm NEXTN",
                       "rtx-pro-6000", 94.6, 64.6));
  const IntList& bs = p.graph.find("cuda_graph_bs_decode.resolved")->value.as_list();
  EXPECT_EQ(IntList(bs.begin(), bs.begin() + 10), (IntList{1, 2, 3, 4, 5, 6, 7, 8, 10, 12}));
}

TEST(R2_2_DecodeCaptureList, NoPaddingCapturesEverySize) {
  Plan p = plan_of(cmd(
      std::string(kLlama8b) + " --disable-cuda-graph-padding --cuda-graph-max-bs 20", "h100-sxm"));
  EXPECT_EQ(p.graph.find("cuda_graph_bs_decode.resolved")->value.as_list().size(), 20u);
}

TEST(R2_2_DecodeCaptureList, ExplicitListSetsMaxBs) {
  Plan p = plan_of(cmd(std::string(kLlama8b) + " --cuda-graph-bs 1 2 64", "h100-sxm"));
  EXPECT_EQ(num(p, "cuda_graph_max_bs_decode.resolved"), 64);
}

// --- R2.3 prefill capture list ---------------------------------------------------------

TEST(R2_3_PrefillCaptureList, ChunkedPrefill8192Gives58Sizes) {
  Plan p = plan_of(cmd(kLlama8b, "h100-sxm"));
  const IntList& bs = p.graph.find("cuda_graph_bs_prefill.resolved")->value.as_list();
  EXPECT_EQ(bs.size(), 58u);
  EXPECT_EQ(bs.front(), 4);
  EXPECT_EQ(bs.back(), 8192);
}

TEST(R2_3_PrefillCaptureList, MlaModelsCaptureUpTo2048) {
  Plan p = plan_of(cmd("--model-path deepseek-ai/DeepSeek-V3 --tp 8", "h200"));
  EXPECT_EQ(num(p, "cuda_graph_max_bs_prefill.resolved"), 2048);
}

TEST(R2_3_PrefillCaptureList, ExplicitContextLengthClampsMaxBs) {
  Plan p = plan_of(cmd(std::string(kLlama8b) + " --context-length 4096", "h100-sxm"));
  EXPECT_EQ(num(p, "cuda_graph_max_bs_prefill.resolved"), 4096);
}

// --- R2.5–R2.7 reserve and mem_fraction_static ----------------------------------------

TEST(R2_5_Reserve, H100Llama8bReserves13904MiB) {
  // 512 + 1.5·8192 + 1·1/8·1024 + (256·2 + 58·8) = 13904 MiB, above the 10 GiB floor.
  Plan p = plan_of(cmd(kLlama8b, "h100-sxm"));
  EXPECT_DOUBLE_EQ(num(p, "reserved_mem_mib"), 13904);
  EXPECT_DOUBLE_EQ(num(p, "mem_fraction_static"), 0.83);  // round(67655/81559, 3)
}

TEST(R2_5_Reserve, TenGibFloorAppliesAbove60Gib) {
  // Chunked 2048 on an H100: 512 + 3072 + 128 + 512 + 42·8 = 4560 < 10240.
  Plan p = plan_of(cmd(std::string(kLlama8b) + " --chunked-prefill-size 2048", "h100-sxm"));
  EXPECT_DOUBLE_EQ(num(p, "reserved_mem_mib"), 10240);
}

TEST(R2_5_Reserve, NoFloorOnSmallCards) {
  // L4: 512 + 1.5·2048 + 128 + 24·2 + 42·8 = 4096 MiB (42 prefill sizes up to 2048), no floor
  // below 60 GiB; round(18938/23034, 3) = 0.822.
  Plan p = plan_of(cmd(kLlama8b, "l4"));
  EXPECT_DOUBLE_EQ(num(p, "reserved_mem_mib"), 4096);
  EXPECT_DOUBLE_EQ(num(p, "mem_fraction_static"), 0.822);
}

TEST(R2_6_GraphReserve, DisablingAllGraphsRemovesTheTerm) {
  Plan p = plan_of(cmd(std::string(kLlama8b) + " --disable-cuda-graph", "l4"));
  EXPECT_DOUBLE_EQ(num(p, "graph_reserve_mib"), 0);
}

TEST(R2_6_GraphReserve, MlaPrefillGraphWouldCost1_5GiBButBreakableIsOffForMla) {
  Plan p = plan_of(cmd("--model-path deepseek-ai/DeepSeek-V3 --tp 8", "h200"));
  EXPECT_EQ(text(p, "cuda_graph_backend_prefill.resolved"), "disabled");
  EXPECT_DOUBLE_EQ(num(p, "graph_reserve_mib"), 512 * 2);
  Plan forced = plan_of(
      cmd("--model-path deepseek-ai/DeepSeek-V3 --tp 8 --cuda-graph-backend-prefill tc_piecewise",
          "h200"));
  EXPECT_DOUBLE_EQ(num(forced, "graph_reserve_mib"), 512 * 2 + 1536);
}

TEST(R2_6_GraphReserve, DpAttentionAddsPerRankPadding) {
  // max_bs 512 > 300: 512·2 + 512·8·3 + 512·8·1.5.
  Plan p = plan_of(
      cmd("--model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 --enable-dp-attention", "h200"));
  EXPECT_DOUBLE_EQ(num(p, "graph_reserve_mib"), 1024 + 12288 + 6144);
}

TEST(R2_7_MemFraction, ExplicitValueIsUsedAsIs) {
  EXPECT_DOUBLE_EQ(
      num(plan_of(cmd(std::string(kLlama8b) + " --mem-fraction-static 0.7", "h100-sxm")),
          "mem_fraction_static"),
      0.7);
}

TEST(R2_8_VlmFactor, Qwen35VisionTowerGives0_92477) {
  // vision_config has depth 27 but no num_hidden_layers, so L = 24: c = 1.265625.
  Plan p = plan_of(qwen35_tp4());
  EXPECT_NEAR(num(p, "vlm_factor"), 0.95 * 0.9734375, 1e-12);
  EXPECT_DOUBLE_EQ(num(p, "vision_layers"), 24);
}

TEST(R2_8_VlmFactor, LanguageOnlySkipsIt) {
  EXPECT_EQ(plan_of(qwen35_tp4("--language-only")).graph.find("vlm_factor"), nullptr);
}

// --- R3 memory profile -------------------------------------------------------------------

TEST(R3_3_Slack, IsPTimesOneMinusFraction) {
  Plan p =
      plan_of(cmd(std::string(kLlama8b) + " --mem-fraction-static 0.88", "h100-sxm", 78.81, 63.72));
  EXPECT_NEAR(num(p, "slack_gib"), 78.81 * 0.12, 1e-9);
  EXPECT_NEAR(num(p, "rest_gib"), 63.72 - 78.81 * 0.12, 1e-9);
}

TEST(R3_1_Estimates, UncalibratedPlansSayTheyAreEstimates) {
  Plan p = plan_of(cmd(kLlama8b, "h100-sxm"));
  EXPECT_EQ(p.estimated, (std::vector<std::string>{"free_before_load", "free_after_load"}));
  EXPECT_TRUE(has_finding(p, "estimated-input"));
  // 8.03 B bf16 parameters ≈ 14.96 GiB; the real log shows 15.09 GiB used by the load.
  EXPECT_NEAR(num(p, "weights_gib"), 14.96, 0.1);
}

TEST(R3_6_NoMemory, WeightsAboveTheStaticBudgetFailStartup) {
  Plan p =
      plan_of(cmd(std::string(kLlama8b) + " --mem-fraction-static 0.1", "h100-sxm", 78.81, 63.72));
  EXPECT_FALSE(p.starts);
  EXPECT_NE(p.startup_error.find("Raise --mem-fraction-static above 0.192"), std::string::npos)
      << p.startup_error;
}

// --- R4 KV pool --------------------------------------------------------------------------

TEST(R4_1_MhaCell, KvHeadsAreReplicatedWhenTpExceedsThem) {
  Plan p = plan_of(qwen35_tp4());
  EXPECT_EQ(num(p, "kv_heads_per_rank"), 1);  // max(1, 2 // 4)
  EXPECT_EQ(num(p, "kv_cell_bytes"), 12288);  // 1·(256+256)·12·2
}

TEST(R4_1_MhaCell, Qwen3_8bAtTp2) {
  Plan p = plan_of(cmd("--model-path Qwen/Qwen3-8B --tp 2", "h100-sxm"));
  EXPECT_EQ(num(p, "kv_cell_bytes"), 4 * 256 * 36 * 2);
}

TEST(R4_1_MhaCell, Fp8KvHalvesTheCell) {
  Plan p = plan_of(cmd("--model-path Qwen/Qwen3-8B --tp 2 --kv-cache-dtype fp8_e4m3", "h100-sxm"));
  EXPECT_EQ(num(p, "kv_cell_bytes"), 4 * 256 * 36);
}

TEST(R4_2_MlaCell, DeepSeekV3LatentPerToken) {
  Plan p = plan_of(cmd("--model-path deepseek-ai/DeepSeek-V3 --tp 8", "h200"));
  EXPECT_EQ(num(p, "kv_cell_bytes"), (512 + 64) * 61 * 2);
}

TEST(R4_4_HybridSwaCell, GptOssSplitsFullAndSlidingLayers) {
  // 18 full + 18 sliding layers, 2 KV heads of 64 per rank at tp 4: 512 B per layer-token.
  Plan p = plan_of(cmd("--model-path openai/gpt-oss-120b --tp 4", "h100-sxm"));
  EXPECT_DOUBLE_EQ(num(p, "kv_cell_bytes"), 512 * 18 + 0.8 * 512 * 18);
  EXPECT_NEAR(num(p, "swa_max_total_num_tokens"), 0.8 * num(p, "max_total_num_tokens"), 1);
}

TEST(R4_5_DraftScaling, MtpAddsOneLayerOfTwelve) {
  EXPECT_EQ(num(plan_of(qwen35_tp4("--speculative-algorithm EAGLE")), "kv_cell_bytes"), 13312);
}

TEST(R4_6_PageAlignment, TokensAreAMultipleOfThePageSize) {
  Plan p = plan_of(cmd(std::string(kLlama8b) + " --page-size 64", "h100-sxm", 78.81, 63.72));
  EXPECT_EQ(static_cast<long long>(num(p, "max_total_num_tokens")) % 64, 0);
  Plan one = plan_of(cmd(kLlama8b, "h100-sxm", 78.81, 63.72));
  EXPECT_LT(num(one, "max_total_num_tokens") - num(p, "max_total_num_tokens"), 64);
}

TEST(R4_6_Tokens, Llama8bFromTheQuickstartLog) {
  // int((63.72 − 78.81·0.12) GiB) // 131072 B = 444,520; the log's 444,500 lies inside the
  // ±46 tokens the 0.01 GB rounding of the two printed figures allows.
  Plan p =
      plan_of(cmd(std::string(kLlama8b) + " --mem-fraction-static 0.88", "h100-sxm", 78.81, 63.72));
  EXPECT_EQ(num(p, "max_total_num_tokens"), 444520);
}

TEST(R4_7_UserCap, MaxTotalTokensCapsTheProfiledValue) {
  Plan p =
      plan_of(cmd(std::string(kLlama8b) + " --max-total-tokens 100000", "h100-sxm", 78.81, 63.72));
  EXPECT_EQ(num(p, "max_total_num_tokens"), 100000);
  Plan above =
      plan_of(cmd(std::string(kLlama8b) + " --max-total-tokens 9000000", "h100-sxm", 78.81, 63.72));
  EXPECT_TRUE(has_finding(above, "max-total-tokens-above-capacity"));
}

// --- R5 max_running_requests -------------------------------------------------------------

TEST(R5_3_Estimate, ClampsTo2048AtLongContexts) {
  Plan p = plan_of(cmd(kLlama8b, "h100-sxm", 78.81, 63.72));
  EXPECT_EQ(num(p, "max_running_requests.estimated"), 2048);
  EXPECT_EQ(num(p, "max_running_requests"), 2048);
}

TEST(R5_3_Estimate, ShortContextsRaiseItUpTo4096) {
  Plan p = plan_of(cmd(std::string(kLlama8b) + " --context-length 8192", "h100-sxm", 78.81, 63.72));
  EXPECT_EQ(num(p, "max_running_requests.estimated"), 4096);
}

TEST(R5_4_UserValue, RespectedUpToHalfTheTokens) {
  EXPECT_EQ(num(plan_of(cmd(std::string(kLlama8b) + " --max-running-requests 5000", "h100-sxm",
                            78.81, 63.72)),
                "max_running_requests"),
            5000);
  Plan tiny =
      plan_of(cmd(std::string(kLlama8b) + " --max-running-requests 5000 --max-total-tokens 4000",
                  "h100-sxm", 78.81, 63.72));
  EXPECT_EQ(num(tiny, "max_running_requests"), 2000);
  EXPECT_TRUE(has_finding(tiny, "running-requests-reduced"));
}

TEST(R5_4_UserValue, DividedByDpAttentionSize) {
  Plan p =
      plan_of(cmd("--model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 --enable-dp-attention "
                  "--max-running-requests 512",
                  "h200", 139.0, 60.0));
  EXPECT_EQ(num(p, "max_running_requests"), 64);
}

TEST(R5_6_MambaCap, CapsHybridModels) {
  Plan p = plan_of(qwen35_tp4());
  EXPECT_EQ(num(p, "max_running_requests.mamba_cap"), 586 / 5);
  EXPECT_LT(num(p, "max_running_requests.mamba_cap"), num(p, "max_running_requests.kv_bound"));
}

TEST(R5_8_MambaRatio, StrategiesGiveOneToFiveSlots) {
  EXPECT_EQ(num(plan_of(qwen35_tp4()), "mamba_ratio"), 5);
  EXPECT_EQ(
      num(plan_of(qwen35_tp4("--mamba-radix-cache-strategy extra_buffer_lazy")), "mamba_ratio"), 4);
  EXPECT_EQ(num(plan_of(qwen35_tp4(
                    "--mamba-radix-cache-strategy extra_buffer --disable-overlap-schedule")),
                "mamba_ratio"),
            4);
  EXPECT_EQ(num(plan_of(qwen35_tp4("--mamba-radix-cache-strategy no_buffer")), "mamba_ratio"), 3);
  EXPECT_EQ(num(plan_of(qwen35_tp4("--disable-radix-cache")), "mamba_ratio"), 1);
}

TEST(R5_9_MambaStrategy, AutoBecomesExtraBufferWithTritonAndOverlap) {
  EXPECT_EQ(text(plan_of(qwen35_tp4()), "mamba_radix_cache_strategy.resolved"), "extra_buffer");
}

TEST(R5_9_MambaStrategy, AutoBecomesNoBufferWithoutTriton) {
  Plan p = plan_of(qwen35_tp4("--linear-attn-backend flashinfer"));
  EXPECT_EQ(text(p, "mamba_radix_cache_strategy.resolved"), "no_buffer");
  EXPECT_EQ(text(p, "disable_overlap_schedule.resolved"), "true");
}

TEST(R5_10_SpeculativeDefault, UnsetBecomes48ExplicitIsKept) {
  EXPECT_EQ(
      num(plan_of(qwen35_tp4("--speculative-algorithm EAGLE")), "max_running_requests.requested"),
      48);
  EXPECT_EQ(num(plan_of(qwen35_tp4("--speculative-algorithm EAGLE --max-running-requests 30")),
                "max_running_requests"),
            30);
}

TEST(R5_15_CapturedGraphs, DecodeGraphsStopAtMaxRunningRequests) {
  Plan p = plan_of(qwen35_tp4());
  const IntList& bs = p.graph.find("cuda_graph_bs")->value.as_list();
  EXPECT_EQ(bs.back(), 117);
  EXPECT_EQ(bs[bs.size() - 2], 112);
}

// --- R6 mamba state ----------------------------------------------------------------------

TEST(R6_5_MambaState, Qwen35PerRequestAtTp4) {
  // 36 · ((12288/4)·3·2 + (64/4)·128·128·4) = 38,412,288 bytes.
  EXPECT_EQ(num(plan_of(qwen35_tp4()), "mamba_state_bytes_per_request"), 38412288);
}

TEST(R6_5_MambaState, Qwen3NextPerRequestAtTp4Is18_42MiB) {
  Plan p = plan_of(cmd("--model-path Qwen/Qwen3-Next-80B-A3B-Thinking --tp 4", "h100-sxm"));
  EXPECT_EQ(num(p, "mamba_state_bytes_per_request"), 36 * (2048 * 3 * 2 + 8 * 128 * 128 * 4));
}

TEST(R6_4_SsmDtype, EnvironmentOverridesConfig) {
  PlanRequest r = qwen35_tp4();
  r.env = {"SGLANG_MAMBA_SSM_DTYPE=bfloat16"};
  EXPECT_EQ(num(plan_of(r), "mamba_state_bytes_per_request"), 36 * (18432 + 524288));
}

TEST(R6_6_UserMambaSize, ExplicitSlotsBoundRequests) {
  Plan p = plan_of(qwen35_tp4("--max-mamba-cache-size 200"));
  EXPECT_EQ(num(p, "max_mamba_cache_size"), 200);
  EXPECT_EQ(num(p, "max_running_requests"), 40);
}

TEST(R6_8_MambaPool, AutoSizeIsTheRatioShareOfRest) {
  Plan p = plan_of(qwen35_tp4());
  EXPECT_NEAR(num(p, "mamba_budget_gib"), num(p, "rest_gib") * 0.9 / 1.9, 1e-9);
}

// --- §9 flags in the founding case -------------------------------------------------------

TEST(R9_1_AllreduceFusion, DeprecatedFlagFailsStartupOnSm120AtHead) {
  Plan p = plan_of(qwen35_tp4("--enable-flashinfer-allreduce-fusion"));
  EXPECT_FALSE(p.starts);
  EXPECT_TRUE(has_finding(p, "fusion-unsupported-gpu"));
  EXPECT_TRUE(has_finding(p, "deprecated-flag"));
  // Sizing is unchanged: the failure comes after the pools are sized.
  EXPECT_EQ(num(p, "max_running_requests"), 117);
}

TEST(R9_1_AllreduceFusion, AutoEnabledOnHopperForQwenMoe) {
  Plan p = plan_of(cmd(std::string(kQwen35) + " --tp 4", "h100-sxm"));
  EXPECT_EQ(text(p, "flashinfer_allreduce_fusion_backend.resolved"), "auto");
  EXPECT_TRUE(p.starts);
}

TEST(R9_2_FusedMoeSum, SizesNothing) {
  Plan base = plan_of(qwen35_tp4());
  Plan p = plan_of(qwen35_tp4("--enable-fused-moe-sum-all-reduce"));
  EXPECT_EQ(num(p, "max_total_num_tokens"), num(base, "max_total_num_tokens"));
  EXPECT_EQ(num(p, "max_running_requests"), num(base, "max_running_requests"));
}

TEST(R9_3_PrefillGraph, Qwen35IsAllowlistedForBreakable) {
  EXPECT_EQ(text(plan_of(qwen35_tp4()), "cuda_graph_backend_prefill.resolved"), "breakable");
}

TEST(R9_3_PrefillGraph, Llama4IsTextOnlyUnlessMultimodalIsEnabled) {
  // configs/model_config.py: Llama 4 (like Gemma 3) loads text-only by default, so neither the
  // multimodal graph rule nor the VLM fraction applies (the engine oracle shows breakable and
  // an unscaled fraction); with --enable-multimodal it is a VLM that is not allowlisted.
  const std::string llama4 = "--model-path meta-llama/Llama-4-Scout-17B-16E-Instruct --tp 8";
  Plan text_only = plan_of(cmd(llama4, "h100-sxm"));
  EXPECT_EQ(text(text_only, "cuda_graph_backend_prefill.resolved"), "breakable");
  Plan vlm = plan_of(cmd(llama4 + " --enable-multimodal", "h100-sxm"));
  EXPECT_EQ(text(vlm, "cuda_graph_backend_prefill.resolved"), "disabled");
  EXPECT_LT(num(vlm, "mem_fraction_static"), num(text_only, "mem_fraction_static"));
}

// --- R4.10 hybrid-SWA allowlist -----------------------------------------------------------

TEST(R4_10_HybridSwaAllowlist, OnlyListedArchitecturesGetASlidingWindowPool) {
  // configs/model_config.py::is_hybrid_swa_model (0.5.8+): gpt-oss and Llama 4's multimodal class
  // are listed; Gemma 2 is not, so its sliding layers share the one full pool.
  Plan gpt_oss = plan_of(cmd("--model-path openai/gpt-oss-120b --tp 4", "h100-sxm"));
  EXPECT_NE(gpt_oss.graph.find("swa_max_total_num_tokens"), nullptr);
  EXPECT_FALSE(has_finding(gpt_oss, "sliding-window-in-full-pool"));
  Plan gemma2 = plan_of(cmd("--model-path google/gemma-2-9b-it", "h100-sxm"));
  EXPECT_EQ(gemma2.graph.find("swa_max_total_num_tokens"), nullptr);
  EXPECT_TRUE(has_finding(gemma2, "sliding-window-in-full-pool"));
  // Every one of its 42 layers keeps KV for every token: 42 × 8 heads × 256 × 2 × 2 bytes.
  EXPECT_DOUBLE_EQ(num(gemma2, "kv_cell_bytes"), 42.0 * 8 * 256 * 2 * 2);
}

TEST(R4_10_HybridSwaAllowlist, AMainBranchDateTakesTheListOfTheReleaseCutByThen) {
  PlanRequest r = cmd("--model-path google/gemma-2-9b-it", "h100-sxm");
  r.engine = "sglang@2026-08-01";  // after 0.5.8's cut: the allowlist, which omits Gemma 2
  EXPECT_EQ(plan_of(r).graph.find("swa_max_total_num_tokens"), nullptr);
  r.engine = "sglang@2025-09-01";  // before it: every model with sliding layers but Gemma 3
  EXPECT_NE(plan_of(r).graph.find("swa_max_total_num_tokens"), nullptr);
}

TEST(R4_10_HybridSwaAllowlist, BeforeTheAllowlistEverySlidingModelButGemma3GotOne) {
  // 0.5.7 predates is_hybrid_swa_model's set (data/sglang/hybrid-swa-architectures.tsv starts at
  // 0.5.8): the earlier reading, every model with sliding layers but Gemma 3, stands.
  PlanRequest r = cmd("--model-path google/gemma-2-9b-it", "h100-sxm");
  r.engine = "sglang@0.5.7";
  Plan gemma2 = plan_of(r);
  EXPECT_NE(gemma2.graph.find("swa_max_total_num_tokens"), nullptr);
  // Before the rule of 2025-06-27 no model had a sliding-window pool, and the plan says why.
  r.engine = "sglang@2025-06-01";
  Plan early = plan_of(r);
  EXPECT_EQ(early.graph.find("swa_max_total_num_tokens"), nullptr);
  bool said = false;
  for (const Finding& f : early.findings)
    said = said || (f.code == "sliding-window-in-full-pool" &&
                    f.message.find("no sliding-window pools") != std::string::npos);
  EXPECT_TRUE(said);
}

// --- R4.2b DeepSeek Sparse Attention ------------------------------------------------------

// A DeepSeek V3.2-shaped config (MLA with an indexer), written for the test.
std::string write_dsa_config() {
  const auto path = std::filesystem::temp_directory_path() / "servescope-dsa-config.json";
  std::ofstream(path) << R"({"architectures": ["DeepseekV32ForCausalLM"],
    "model_type": "deepseek_v32", "hidden_size": 2048, "num_hidden_layers": 4,
    "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 4096,
    "moe_intermediate_size": 512, "n_routed_experts": 8, "num_experts_per_tok": 2,
    "n_shared_experts": 1, "first_k_dense_replace": 1, "vocab_size": 1000,
    "kv_lora_rank": 512, "q_lora_rank": 768, "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128, "v_head_dim": 128, "index_topk": 2048, "index_head_dim": 128,
    "index_n_heads": 64, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"})";
  return path.string();
}

std::string write_gemma4_config(int kv_shared_layers) {
  const auto path = std::filesystem::temp_directory_path() /
                    fmt::format("servescope-gemma4-{}.json", kv_shared_layers);
  std::ofstream(path) << fmt::format(R"({{"architectures": ["Gemma4ForConditionalGeneration"],
    "model_type": "gemma4", "text_config": {{"model_type": "gemma4_text", "hidden_size": 1024,
    "num_hidden_layers": 6, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
    "global_head_dim": 512, "intermediate_size": 2048, "vocab_size": 1000,
    "sliding_window": 512, "num_kv_shared_layers": {}, "max_position_embeddings": 8192,
    "layer_types": ["sliding_attention", "sliding_attention", "full_attention",
                    "sliding_attention", "sliding_attention", "full_attention"]}},
    "torch_dtype": "bfloat16"}})",
                                     kv_shared_layers);
  return path.string();
}

TEST(R4_4_HybridSwa, Gemma4sFullLayersTakeTheirOwnHeadsInTheFullPool) {
  // HybridSWAPoolConfigurator: the full term is get_num_kv_heads × (head_dim + v_head_dim), the
  // sliding one get_swa_num_kv_heads × 2 × swa_head_dim: Gemma 4's full layers keep 512-wide
  // heads beside the sliding layers' 256 (layouts oracle, 0.5.23).
  PlanRequest r = cmd("--model-path GEMMA4", "h100-sxm");
  r.model = write_gemma4_config(0);
  r.engine = "sglang@0.5.23";
  Plan p = plan_of(r);
  EXPECT_DOUBLE_EQ(num(p, "kv_cell_bytes"),
                   2 * (4 * 2 * 512 * 2.0) + 0.8 * 4 * (4 * 2 * 256 * 2.0));
  EXPECT_FALSE(has_finding(p, "unmodelled-layer-shapes"));
  r.model = write_gemma4_config(2);  // KV-shared layers: read from vLLM's code only, said so
  EXPECT_TRUE(has_finding(plan_of(r), "unmodelled-layer-shapes"));
}

TEST(R4_2b_DsaIndexer, TheIndexerKeysJoinTheCellFrom053Post1AndThePageIs64) {
  // pool_configurator.py::_compute_dsa_indexer_cell_size: (128 + 128/128·4) bytes per layer
  // beside the latent's (512 + 64)·2; model_overrides/deepseek_v2.py: page size 64 on CUDA.
  PlanRequest r = cmd("--model-path DSA", "h100-sxm");
  r.model = write_dsa_config();
  r.engine = "sglang@0.5.23";
  Plan now = plan_of(r);
  EXPECT_DOUBLE_EQ(num(now, "kv_cell_bytes"), 4 * (576.0 * 2 + 132));
  EXPECT_EQ(num(now, "page_size.resolved"), 64);
  EXPECT_EQ(text(now, "attention_backend.resolved"), "dsa");
  EXPECT_FALSE(has_finding(now, "unmodelled-layer-shapes"));
  r.engine = "sglang@0.5.3";  // before the indexer joined the cell: plain MLA, and a warning
  Plan before = plan_of(r);
  EXPECT_DOUBLE_EQ(num(before, "kv_cell_bytes"), 4 * 576.0 * 2);
  EXPECT_TRUE(has_finding(before, "unmodelled-layer-shapes"));
  EXPECT_EQ(text(before, "attention_backend.resolved"), "nsa");  // renamed dsa in 0.5.13
  r.gpu = "b200";  // on SM100 too: the DSA backend, no trtllm_mla/cutlass page snap
  r.engine = "sglang@0.5.23";
  EXPECT_EQ(num(plan_of(r), "page_size.resolved"), 64);
}

}  // namespace
}  // namespace servescope::testing
