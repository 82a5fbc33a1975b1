// A unified-memory GPU (DGX Spark's GB10, Jetson) is planned with the rules the engines apply
// only there: both read free memory as the system's available memory, and the plan says so.
#include <gtest/gtest.h>

#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

TEST(UnifiedMemory, BothEnginesSayTheyReadTheSystemsAvailableMemoryOnGb10) {
  for (const char* command :
       {"vllm serve Qwen/Qwen3-8B", "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"}) {
    SCOPED_TRACE(command);
    PlanRequest gb10{command, "gb10"};
    EXPECT_TRUE(has_finding(plan_of(gb10), "unified-memory"));
    PlanRequest discrete{command, "rtx-pro-6000"};
    EXPECT_FALSE(has_finding(plan_of(discrete), "unified-memory"));
  }
}

TEST(UnifiedMemory, TheGb10IsKnownByTheNameNvidiaSmiPrints) {
  PlanRequest r{"vllm serve Qwen/Qwen3-8B", "NVIDIA GB10"};
  Plan p = plan_of(r);
  EXPECT_TRUE(has_finding(p, "unified-memory"));
  EXPECT_GT(num(p, "gpu_kv_cache_size_tokens"), 0);
}

}  // namespace
}  // namespace servescope::testing
