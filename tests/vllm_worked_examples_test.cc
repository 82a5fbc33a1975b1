// The worked examples of docs/research/vllm-capacity.md §11 (1× H100 SXM unless stated, T = 79.19
// GiB). Their W/A/N/G figures are the document's assumptions; the structure — page sizes, grouping,
// num_blocks, blocks per request, both token formulas, capture sizes — is what is checked.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

// §11.A meta-llama/Llama-3.1-8B-Instruct, --gpu-memory-utilization 0.9, newest main.
TEST(VllmWorkedExampleA, Llama8bAtUtilization09) {
  Plan p = vllm_plan(llama8b_h100("--gpu-memory-utilization 0.9"));
  EXPECT_DOUBLE_EQ(value_of(p, "available_kv_cache_memory_gib"), 52.93);
  EXPECT_EQ(value_of(p, "kv_page_bytes"), 65536);
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), 27100);
  EXPECT_EQ(value_of(p, "blocks_per_request"), 2048);
  EXPECT_EQ(value_of(p, "gpu_kv_cache_size_tokens"), 433600);
  EXPECT_EQ(fmt::format("{:.2f}", value_of(p, "maximum_concurrency")), "13.23");
  EXPECT_EQ(value_of(p, "usable_gpu_blocks"), 27099);  // 433,584 usable slots
  EXPECT_EQ(value_of(p, "max_num_seqs"), 1024);
  EXPECT_EQ(value_of(p, "max_num_batched_tokens"), 8192);
  EXPECT_EQ(text_of(p, "attention_backend"), "FLASH_ATTN");
  EXPECT_EQ(value_of(p, "flash_attn_version"), 3);
  EXPECT_EQ(text_of(p, "runtime_cudagraph_mode"), "FULL_AND_PIECEWISE");
  EXPECT_EQ(p.graph.find("cudagraph_capture_sizes")->value.as_list().size(), 51u);
  EXPECT_EQ(value_of(p, "cudagraphs_piecewise"), 51);
  EXPECT_EQ(value_of(p, "cudagraphs_full"), 51);
}

// §11.A.9: the default utilization 0.92 gives about 1.58 GiB more.
TEST(VllmWorkedExampleA, DefaultUtilization092) {
  Plan p = vllm_plan(llama8b_h100());
  EXPECT_DOUBLE_EQ(value_of(p, "gpu_memory_utilization"), 0.92);
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), 27911);
  EXPECT_EQ(value_of(p, "gpu_kv_cache_size_tokens"), 446576);
  EXPECT_EQ(fmt::format("{:.2f}", value_of(p, "maximum_concurrency")), "13.63");
}

// §11.A.10: EAGLE3 with k = 3 adds one drafter layer (32 → 33 layers per block) and rounds the
// capture sizes to multiples of q = 4 (49 sizes: 4, 8, 16, …, 512).
TEST(VllmWorkedExampleA, Eagle3) {
  VllmRun r = llama8b_h100(
      "--gpu-memory-utilization 0.9 --speculative-config "
      "'{\"method\": \"eagle3\", \"model\": \"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\", "
      "\"num_speculative_tokens\": 3}'");
  Plan plain = vllm_plan(llama8b_h100("--gpu-memory-utilization 0.9"));
  Plan p = vllm_plan(r);
  EXPECT_EQ(text_of(p, "kv_layers"), "33 full");
  const double memory = value_of(p, "available_kv_cache_memory_bytes");
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), std::floor(memory / 65536 / 33));
  EXPECT_NEAR(value_of(p, "num_gpu_blocks") / value_of(plain, "num_gpu_blocks"), 32.0 / 33, 1e-3);
  const IntList& sizes = p.graph.find("cudagraph_capture_sizes")->value.as_list();
  ASSERT_EQ(sizes.size(), 49u);
  EXPECT_EQ(sizes[0], 4);
  EXPECT_EQ(sizes[1], 8);
  EXPECT_EQ(sizes[2], 16);
  EXPECT_EQ(sizes.back(), 512);
}

// §11.B Qwen/Qwen3-30B-A3B-FP8: block-FP8 weights, no KV scheme, so the KV cache stays bf16.
TEST(VllmWorkedExampleB, Qwen3MoeFp8KeepsBf16Kv) {
  VllmRun r;
  r.command =
      "vllm serve Qwen/Qwen3-30B-A3B-FP8 --max-model-len 32768 --gpu-memory-utilization 0.9";
  r.total = 79.19;  // §11.B's assumptions: W ≈ 29, A ≈ 3.0, N ≈ 0.3, G ≈ 0.7 GiB
  r.weights = 29;
  r.activation = 3.0;
  r.non_torch = 0.3;
  r.cuda_graph = 0.7;
  Plan p = vllm_plan(r);
  EXPECT_DOUBLE_EQ(value_of(p, "available_kv_cache_memory_gib"), 38.27);
  EXPECT_EQ(text_of(p, "kv_cache_dtype"), "bfloat16");
  EXPECT_EQ(value_of(p, "kv_page_bytes"), 32768);
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), 26126);
  EXPECT_EQ(value_of(p, "gpu_kv_cache_size_tokens"), 418016);
  EXPECT_EQ(fmt::format("{:.2f}", value_of(p, "maximum_concurrency")), "12.76");
}

TEST(VllmWorkedExampleB, Fp8KvDoublesBlocksAndMovesTheBackendOffSm90) {
  VllmRun r;
  r.command =
      "vllm serve Qwen/Qwen3-30B-A3B-FP8 --max-model-len 32768 --gpu-memory-utilization 0.9 "
      "--kv-cache-dtype fp8";
  r.total = 79.19;
  r.weights = 29;
  r.activation = 3.0;
  r.non_torch = 0.3;
  r.cuda_graph = 0.7;
  Plan p = vllm_plan(r);
  EXPECT_EQ(value_of(p, "kv_page_bytes"), 16384);
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), 52252);
  EXPECT_EQ(value_of(p, "gpu_kv_cache_size_tokens"), 836032);
  EXPECT_EQ(fmt::format("{:.2f}", value_of(p, "maximum_concurrency")), "25.51");
  EXPECT_EQ(text_of(p, "attention_backend"), "FLASH_ATTN");  // FA3 takes fp8 on SM 9.0
  for (const char* gpu : {"l40s", "rtx-pro-6000"}) {
    r.gpu = gpu;
    r.total.reset();  // the H100 figures do not fit these GPUs
    r.weights.reset();
    r.kv_memory = 10;
    EXPECT_EQ(text_of(vllm_plan(r), "attention_backend"), "FLASHINFER") << gpu;
  }
}

// §11.C Qwen3-Next-80B-A3B, TP 4 on 4× H100, 30 GiB per rank (page math).
VllmRun qwen3_next(const std::string& extra = "", const std::string& engine = "vllm@2026-05-27") {
  VllmRun r;
  r.command = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct -tp 4 --max-model-len 32768 " + extra;
  r.engine = engine;
  r.kv_memory = 30;
  return r;
}

TEST(VllmWorkedExampleC, HybridGdnBlockAlignmentAndGrouping) {
  Plan p = vllm_plan(qwen3_next());
  EXPECT_EQ(text_of(p, "mamba_cache_mode"), "none");
  EXPECT_EQ(value_of(p, "mamba_conv_state_bytes"), 12288);
  EXPECT_EQ(value_of(p, "mamba_ssm_state_bytes"), 262144);
  EXPECT_EQ(value_of(p, "block_size"), 272);
  EXPECT_EQ(value_of(p, "block_size.backend"), 16);
  EXPECT_EQ(value_of(p, "kv_page_bytes"), 278528);
  EXPECT_EQ(fmt::format("{:.2f}", value_of(p, "mamba_page_padding_pct")), "1.49");
  EXPECT_EQ(value_of(p, "kv_cache_groups"), 4);
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), 9637);
  EXPECT_EQ(value_of(p, "blocks_per_request"), 124);
  EXPECT_EQ(fmt::format("{:.2f}", value_of(p, "maximum_concurrency")), "77.72");
  EXPECT_EQ(value_of(p, "gpu_kv_cache_size_tokens"), 2546654);
}

TEST(VllmWorkedExampleC, TheOldTokenFormulaLogsFourTimesFewer) {
  Plan p = vllm_plan(qwen3_next("", "vllm@0.19.0"));
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), 9637);
  EXPECT_EQ(value_of(p, "gpu_kv_cache_size_tokens"), 655248);  // 9637 // 4 × 272
}

TEST(VllmWorkedExampleC, Fp32SsmStateNeedsBlock528) {
  Plan p = vllm_plan(qwen3_next("--mamba-ssm-cache-dtype float32"));
  EXPECT_EQ(value_of(p, "mamba_ssm_state_bytes") + value_of(p, "mamba_conv_state_bytes"), 536576);
  EXPECT_EQ(value_of(p, "block_size"), 528);
}

TEST(VllmWorkedExampleC, FullGraphsNeedMaxNumSeqsBelowTheBlocks) {
  VllmRun r = qwen3_next();
  r.kv_memory = 1;  // 1 GiB // 278,528 // 12 = 321 blocks < max_num_seqs 1024
  Plan p = vllm_plan(r);
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), 321);
  EXPECT_FALSE(p.starts);
  EXPECT_TRUE(has_code(p, "mamba-blocks-below-max-num-seqs"));
  r.command += " --max-num-seqs 256";
  EXPECT_TRUE(vllm_plan(r).starts);
}

TEST(VllmWorkedExampleC, MtpAddsAnAttentionLayerAndASpeculativeMambaPage) {
  Plan p = vllm_plan(qwen3_next(
      "--speculative-config '{\"method\": \"qwen3_next_mtp\", \"num_speculative_tokens\": 1}'"));
  EXPECT_EQ(value_of(p, "mamba_conv_state_bytes") + value_of(p, "mamba_ssm_state_bytes"), 278528);
  EXPECT_EQ(value_of(p, "block_size"), 272);
  EXPECT_EQ(p.graph.find("mamba_page_padding_pct"), nullptr);  // no padding
  EXPECT_EQ(text_of(p, "kv_layers"), "13 full + 36 mamba");
  EXPECT_TRUE(has_code(p, "kv-padding-layers"));  // 3 padding layers, 8.33 %
  EXPECT_EQ(value_of(p, "kv_cache_groups"), 4);
  EXPECT_EQ(value_of(p, "blocks_per_request"), 127);  // 121 + 3 × (1 + 1)
  EXPECT_EQ(fmt::format("{:.2f}", value_of(p, "maximum_concurrency")), "70.05");
}

// §11.D gpt-oss-120b: 18 full + 18 sliding-window (128) layers, 8 KV heads of 64.
VllmRun gpt_oss(const std::string& extra = "") {
  VllmRun r;
  r.command = "vllm serve openai/gpt-oss-120b --max-model-len 32768 " + extra;
  r.kv_memory = 20;
  return r;
}

TEST(VllmWorkedExampleD, SlidingWindowGroupsReserveWindowPlusBatch) {
  Plan p = vllm_plan(gpt_oss());
  EXPECT_EQ(value_of(p, "kv_page_bytes"), 32768);
  EXPECT_EQ(value_of(p, "kv_cache_groups"), 2);
  EXPECT_EQ(value_of(p, "blocks_per_request"), 2569);  // 2048 + cdiv(127 + 8192, 16) + 1
}

TEST(VllmWorkedExampleD, CapacityDependsOnMaxNumBatchedTokens) {
  Plan p = vllm_plan(gpt_oss("--max-num-batched-tokens 16384"));
  EXPECT_EQ(value_of(p, "blocks_per_request"), 2048 + 1033);
}

TEST(VllmWorkedExampleD, WithoutTheHybridManagerWindowsKeepTheWholeContext) {
  Plan hybrid = vllm_plan(gpt_oss());
  Plan p = vllm_plan(gpt_oss("--disable-hybrid-kv-cache-manager"));
  EXPECT_FALSE(p.graph.value("hybrid_kv_cache_manager").as_bool());
  EXPECT_EQ(value_of(p, "kv_cache_groups"), 1);
  EXPECT_EQ(value_of(p, "blocks_per_request"), 2048);  // of 36-layer blocks: 4,096 of 18 layers
  EXPECT_NEAR(value_of(p, "maximum_concurrency") / value_of(hybrid, "maximum_concurrency"),
              2569.0 / 4096, 1e-3);
  Plan kv = vllm_plan(gpt_oss("--kv-transfer-config '{\"kv_connector\": \"NixlConnector\"}'"));
  EXPECT_FALSE(kv.graph.value("hybrid_kv_cache_manager").as_bool());
}

}  // namespace
}  // namespace servescope::testing
