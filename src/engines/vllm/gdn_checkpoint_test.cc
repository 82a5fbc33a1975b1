// V3.5b: Gated-DeltaNet layers on FlashInfer's prefill kernel export a prefix-cache checkpoint
// every 64 tokens (vLLM 0.33.0+, qwen_gdn_linear_attn.py): in mamba cache mode align the hybrid
// block is a multiple of 64 and each state group keeps one more block per request. Held against
// vLLM 0.34.0's own model code by tests/oracle/vllm_drafters_test.cc (Qwen3-Next, Qwen3.5).
#include <gtest/gtest.h>

#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

VllmRun next(const std::string& gpu, const std::string& flags,
             const std::string& engine = "vllm@0.34.0") {
  VllmRun r;
  r.engine = engine;
  r.gpu = gpu;
  r.command =
      "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 2 "
      "--max-model-len 4096 --block-size 16 --no-enable-extensible-kv-cache " +
      flags;
  r.kv_memory = 20;
  return r;
}

TEST(V3_5b_GdnCheckpoints, AlignModeOnHopperAlignsTheBlockTo64) {
  const Plan p = vllm_plan(next("h200", "--enable-prefix-caching"));
  EXPECT_EQ(text_of(p, "mamba_cache_mode"), "align");
  EXPECT_EQ(value_of(p, "mamba_checkpoint_alignment"), 64);
  // The state page: conv 4096 × 3 × 2 + ssm 16 × 128 × 128 × 2 = 548864 bytes; one token of
  // attention 1024 bytes. 16 × cdiv(548864, 16384) = 544 before; 64 × cdiv(548864, 65536) now.
  EXPECT_EQ(value_of(p, "block_size"), 576);
  // Three state groups of 2 + 0 speculative + 1 checkpoint blocks, the full group 8 blocks.
  EXPECT_EQ(value_of(p, "blocks_per_request"), 8 + 3 * 3);
}

TEST(V3_5b_GdnCheckpoints, OnlyWhereFlashInfersKernelRunsAndTheReleaseHasIt) {
  const Plan triton =
      vllm_plan(next("h200", "--enable-prefix-caching --gdn-prefill-backend triton"));
  EXPECT_EQ(triton.graph.find("mamba_checkpoint_alignment"), nullptr);
  EXPECT_EQ(value_of(triton, "block_size"), 544);
  const Plan ampere = vllm_plan(next("a100-80gb", "--enable-prefix-caching"));
  EXPECT_EQ(ampere.graph.find("mamba_checkpoint_alignment"), nullptr);
  const Plan none = vllm_plan(next("h200", "--no-enable-prefix-caching"));
  EXPECT_EQ(none.graph.find("mamba_checkpoint_alignment"), nullptr);
  const Plan older = vllm_plan(next("h200", "--enable-prefix-caching", "vllm@0.32.0"));
  EXPECT_EQ(older.graph.find("mamba_checkpoint_alignment"), nullptr);
  // Blackwell with key heads of 128: the CUDA 13 runtime of vLLM's wheels picks FlashInfer too.
  const Plan blackwell = vllm_plan(next("b200", "--enable-prefix-caching"));
  EXPECT_EQ(value_of(blackwell, "mamba_checkpoint_alignment"), 64);
}

}  // namespace
}  // namespace servescope::testing
