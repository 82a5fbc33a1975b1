// docs/research/sglang-capacity.md §12: Qwen3.5-122B-A10B-FP8 on 4× RTX PRO 6000 (SM120), P = 94.6
// GiB, A = 64.6 GiB, SGLang main 2026-07-20. Each variant of §12.6 is one test.
#include <gtest/gtest.h>

#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

TEST(WorkedExample, DefaultsGive117RunningRequests) {
  Plan p = plan_of(qwen35_tp4());
  EXPECT_NEAR(num(p, "mem_fraction_static"), 0.785, 0.001);
  EXPECT_EQ(num(p, "max_mamba_cache_size"), 586);
  EXPECT_NEAR(num(p, "max_total_num_tokens"), 2036790, 2036790 * 0.002);
  EXPECT_EQ(num(p, "max_running_requests"), 117);
  EXPECT_EQ(num(p, "chunked_prefill_size"), 8192);
  EXPECT_EQ(num(p, "cuda_graph_max_bs"), 117);
  EXPECT_EQ(num(p, "context_len"), 262144);
  EXPECT_TRUE(p.starts);
}

TEST(WorkedExample, Fp8KvCacheDoublesTokensKeeps117) {
  Plan base = plan_of(qwen35_tp4());
  Plan p = plan_of(qwen35_tp4("--kv-cache-dtype fp8_e4m3"));
  EXPECT_NEAR(num(p, "max_total_num_tokens"), 2 * num(base, "max_total_num_tokens"), 2);
  EXPECT_EQ(num(p, "max_running_requests"), 117);
}

TEST(WorkedExample, Bf16MambaStateGives230) {
  EXPECT_EQ(num(plan_of(qwen35_tp4("--mamba-ssm-dtype bfloat16")), "max_running_requests"), 230);
}

TEST(WorkedExample, MambaFullMemoryRatio2Gives165) {
  EXPECT_EQ(num(plan_of(qwen35_tp4("--mamba-full-memory-ratio 2.0")), "max_running_requests"), 165);
}

TEST(WorkedExample, NoBufferStrategyGives195) {
  EXPECT_EQ(
      num(plan_of(qwen35_tp4("--mamba-radix-cache-strategy no_buffer")), "max_running_requests"),
      195);
}

TEST(WorkedExample, DisabledRadixCacheGives586) {
  EXPECT_EQ(num(plan_of(qwen35_tp4("--disable-radix-cache")), "max_running_requests"), 586);
}

TEST(WorkedExample, DisabledPiecewiseGraphGives118) {
  Plan p = plan_of(qwen35_tp4("--disable-piecewise-cuda-graph"));
  EXPECT_NEAR(num(p, "mem_fraction_static"), 0.7897, 0.0005);
  EXPECT_EQ(num(p, "max_mamba_cache_size"), 592);
  EXPECT_EQ(num(p, "max_running_requests"), 118);
}

TEST(WorkedExample, LanguageOnlyGives133) {
  Plan p = plan_of(qwen35_tp4("--language-only"));
  EXPECT_DOUBLE_EQ(num(p, "mem_fraction_static"), 0.849);
  EXPECT_EQ(num(p, "max_mamba_cache_size"), 666);
  EXPECT_EQ(num(p, "max_running_requests"), 133);
}

TEST(WorkedExample, SpeculativeDecodingGives48) {
  Plan p = plan_of(qwen35_tp4("--speculative-algorithm NEXTN"));
  EXPECT_EQ(num(p, "max_running_requests"), 48);
  EXPECT_EQ(num(p, "kv_cell_bytes"), 13312);
}

TEST(WorkedExample, SpeculativeWith256RequestedGives64AndPool321) {
  Plan p = plan_of(qwen35_tp4("--speculative-algorithm NEXTN --max-running-requests 256", 64.0));
  EXPECT_EQ(num(p, "max_mamba_cache_size"), 321);
  EXPECT_EQ(num(p, "max_running_requests"), 64);
  EXPECT_TRUE(has_finding(p, "running-requests-capped-by-mamba"));
}

}  // namespace
}  // namespace servescope::testing
