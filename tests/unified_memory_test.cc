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

// Both engines read psutil on Orin, Thor and Spark (by SM, then by torch's is_integrated: see
// unified_memory_releases_test.cc); an MI300A shares its memory too, yet neither rule is
// applied on ROCm.
TEST(UnifiedMemory, TheEnginesReadPsutilOnOrinThorAndSparkButNotOnAnMi300a) {
  for (const char* command :
       {"vllm serve Qwen/Qwen3-8B", "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"}) {
    SCOPED_TRACE(command);
    for (const char* gpu : {"gb10", "jetson-thor", "jetson-agx-orin"}) {
      SCOPED_TRACE(gpu);
      PlanRequest r{command, gpu};
      EXPECT_TRUE(has_finding(plan_of(r), "unified-memory"));
    }
    PlanRequest mi300a{command, "mi300a"};
    EXPECT_FALSE(has_finding(plan_of(mi300a), "unified-memory"));
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

namespace servescope::testing {
namespace {

// vLLM on GB10 reads T from cudaMemGetInfo (the system's MemTotal, 121.69 GiB in the published
// Spark logs) and the free memory at startup from psutil: the plan says so node by node.
TEST(UnifiedMemory, VllmPlansTheStartupGateFromTheTotalTheEngineReadsOnGb10) {
  PlanRequest r{"vllm serve Qwen/Qwen3-8B --gpu-memory-utilization 0.8", "gb10"};
  const Plan p = plan_of(r);
  EXPECT_NEAR(num(p, "device_total_memory_gib"), 121.69, 0.005);
  // R = ceil(121.69 GiB × 0.8): 97.35 GiB, as the Spark logs print it.
  EXPECT_NEAR(num(p, "requested_memory_gib"), 97.35, 0.005);
  // Free at startup is the system's available memory: the OS's share is out of it.
  const Node* free = p.graph.find("free_at_startup_gib");
  ASSERT_NE(free, nullptr);
  EXPECT_NEAR(free->value.as_number(), 121.69 - 7.15, 0.01);
  EXPECT_NE(free->why.find("unified-memory GPU"), std::string::npos) << free->why;
  EXPECT_FALSE(has_finding(p, "integrated-startup-margin"));
}

TEST(UnifiedMemory, VllmWarnsWhenTheRequestExceedsWhatAnIdleSparkHadFree) {
  // The default 0.92 asks 111.95 GiB: more than the 110.37 an idle Spark head node had (0.33.0:
  // from 0.34.0 the extensible KV cache skips the startup gate, below).
  PlanRequest idle{"vllm serve Qwen/Qwen3-8B", "gb10"};
  idle.engine = "vllm@0.33.0";
  EXPECT_TRUE(has_finding(plan_of(idle), "integrated-startup-margin"));
  // The free memory the user measured replaces the estimate: no warning, the gate decides.
  PlanRequest measured{"vllm serve Qwen/Qwen3-8B", "gb10"};
  measured.engine = "vllm@0.33.0";
  measured.before = 104.46;
  const Plan p = plan_of(measured);
  EXPECT_FALSE(has_finding(p, "integrated-startup-margin"));
  EXPECT_FALSE(p.starts);  // 104.46 < 111.95: vLLM's own ValueError
  EXPECT_NE(p.startup_error.find("(104.46/121.69 GiB)"), std::string::npos) << p.startup_error;
  // 0.34.0 measures the cache after warmup: request_memory skips the gate, and the cache takes
  // what is free then (V2.9).
  measured.engine = "vllm@0.34.0";
  const Plan measured034 = plan_of(measured);
  EXPECT_TRUE(measured034.starts) << measured034.startup_error;
  EXPECT_LT(measured034.graph.value("measured_kv_cache_bytes").as_number(), 104.46 * (1 << 30));
}

TEST(UnifiedMemory, SglangTakesTheFreeMemoryAtLoadAsTheSystemsAvailableMemory) {
  PlanRequest r{"python -m sglang.launch_server --model-path Qwen/Qwen3-8B", "gb10"};
  const Plan p = plan_of(r);
  const Node* free = p.graph.find("free_before_load_gib");
  ASSERT_NE(free, nullptr);
  EXPECT_NE(free->why.find("R3.1"), std::string::npos) << free->why;
  // The figure the user gives replaces the estimate, and mem_fraction_static applies to it.
  r.before = 100.0;
  const Plan given = plan_of(r);
  EXPECT_DOUBLE_EQ(num(given, "free_before_load_gib"), 100.0);
  EXPECT_NEAR(num(given, "slack_gib"), 100.0 * (1 - num(given, "mem_fraction_static")), 1e-9);
  // Less free memory at load, a smaller KV pool: the other tenants' share comes out of it.
  EXPECT_LT(num(given, "max_total_num_tokens"), num(p, "max_total_num_tokens"));
}

}  // namespace
}  // namespace servescope::testing

namespace servescope::testing {
namespace {

// sm_121 (GB10) is compute capability 12.1: the engines test the major version, so every SM12x
// rule applies to it as to the RTX PRO 6000 (SGLang utils/common.py::is_sm120_supported is
// major == 12; vLLM's backend priorities are per capability family).
TEST(Sm121, GetsTheSm12xDefaultsAndFailures) {
  for (const char* gpu : {"gb10", "rtx-pro-6000"}) {
    SCOPED_TRACE(gpu);
    const Plan sglang = plan_of({"python -m sglang.launch_server --model-path Qwen/Qwen3-8B", gpu});
    EXPECT_EQ(text(sglang, "attention_backend.resolved"), "flashinfer");
    const Plan fused =
        plan_of({"python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 "
                 "--nnodes 2 --enable-flashinfer-allreduce-fusion",
                 gpu});
    EXPECT_TRUE(has_finding(fused, "fusion-unsupported-gpu"));
    const Plan vllm = plan_of({"vllm serve Qwen/Qwen3-8B", gpu});
    EXPECT_EQ(text(vllm, "attention_backend"), "FLASH_ATTN");
    const Plan mla = plan_of({"vllm serve deepseek-ai/DeepSeek-V2-Lite-Chat", gpu});
    EXPECT_EQ(text(mla, "attention_backend"), "TRITON_MLA");
  }
  // SM 9.0 takes the other branches: the test above would hold for any GPU otherwise.
  const Plan h100 =
      plan_of({"python -m sglang.launch_server --model-path Qwen/Qwen3-8B", "h100-sxm"});
  EXPECT_EQ(text(h100, "attention_backend.resolved"), "fa3");
}

}  // namespace
}  // namespace servescope::testing
