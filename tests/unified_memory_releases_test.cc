// The unified-memory rules as each engine release has them, dated by the releases' wheels
// (tools/engine-sync/wheel_grep.py; data/integrated-gpu-rules.md holds the run):
//   SGLang: cudaMemGetInfo up to 0.5.3.post3; psutil on SM 8.7/11.0/12.1 from 0.5.4; on
//           torch's is_integrated from 0.5.9.
//   vLLM:   cudaMemGetInfo up to 0.11.0; psutil on SM 8.7/11.0/12.1 from 0.11.1; on
//           is_integrated_gpu from 0.20.0 (#35356). get_batch_defaults: NVML's missing total
//           is 0 up to 0.32.0; from 0.33.0 torch's total, with GB10 kept on the small tier.
#include <gtest/gtest.h>

#include <utility>

#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

Plan plan_at(const std::string& command, const std::string& engine,
             const std::string& gpu = "gb10") {
  PlanRequest r{command, gpu};
  r.engine = engine;
  return plan_of(r);
}

std::string unified_memory_message(const std::string& command, const std::string& engine,
                                   const std::string& gpu = "gb10") {
  for (const Finding& f : plan_at(command, engine, gpu).findings)
    if (f.code == "unified-memory")
      return f.message;
  return "";
}

constexpr char kSglang[] = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B";
constexpr char kVllm[] = "vllm serve Qwen/Qwen3-8B";

TEST(UnifiedMemoryReleases, SglangReadsMemFreeThenPsutilBySmThenByIsIntegrated) {
  const std::string v053 = unified_memory_message(kSglang, "sglang@0.5.3");
  EXPECT_NE(v053.find("cudaMemGetInfo"), std::string::npos) << v053;
  EXPECT_EQ(v053.find("psutil"), std::string::npos) << v053;
  // The estimate of P says which figure this release reads.
  const Plan old = plan_at(kSglang, "sglang@0.5.3");
  const Node* p = old.graph.find("free_before_load_gib");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->why.find("MemFree"), std::string::npos) << p->why;
  for (const char* release : {"sglang@0.5.4", "sglang@0.5.8"}) {
    const std::string m = unified_memory_message(kSglang, release);
    EXPECT_NE(m.find("psutil"), std::string::npos) << release << ": " << m;
    EXPECT_NE(m.find("SM 12.1, one of the three"), std::string::npos) << release << ": " << m;
  }
  for (const char* release : {"sglang@0.5.9", "sglang@0.5.23"}) {
    const std::string m = unified_memory_message(kSglang, release);
    EXPECT_NE(m.find("psutil"), std::string::npos) << release << ": " << m;
    EXPECT_NE(m.find("is_integrated"), std::string::npos) << release << ": " << m;
  }
}

TEST(UnifiedMemoryReleases, VllmReadsMemFreeThenPsutilBySmThenByIsIntegrated) {
  const std::string v011 = unified_memory_message(kVllm, "vllm@0.11.0");
  EXPECT_NE(v011.find("cudaMemGetInfo's (the kernel's MemFree"), std::string::npos) << v011;
  EXPECT_EQ(v011.find("psutil's available memory only from 0.11.1"), v011.find("psutil"))
      << "0.11.0 does not read psutil: " << v011;
  const Plan old = plan_at(kVllm, "vllm@0.11.0");
  const Node* free = old.graph.find("free_at_startup_gib");
  ASSERT_NE(free, nullptr);
  EXPECT_NE(free->why.find("MemFree"), std::string::npos) << free->why;
  for (const char* release : {"vllm@0.11.1", "vllm@0.19.0"}) {
    const std::string m = unified_memory_message(kVllm, release);
    EXPECT_NE(m.find("system's available memory (psutil"), std::string::npos) << release;
    EXPECT_NE(m.find("SM 12.1, one of the three"), std::string::npos) << release << ": " << m;
  }
  for (const char* release : {"vllm@0.20.0", "vllm@0.33.0"}) {
    const std::string m = unified_memory_message(kVllm, release);
    EXPECT_NE(m.find("system's available memory (psutil"), std::string::npos) << release;
    EXPECT_NE(m.find("is_integrated"), std::string::npos) << release << ": " << m;
  }
  // Jetson Thor (SM 11.0) is in the SM list and integrated: the same reading in every era.
  EXPECT_NE(unified_memory_message(kVllm, "vllm@0.19.0", "jetson-thor").find("SM 11.0"),
            std::string::npos);
}

// vllm serve's batch defaults (V6.1) on an integrated NVIDIA GPU, whose NVML has no memory total:
// {max_num_batched_tokens, max_num_seqs}.
std::pair<int, int> batch_defaults(const std::string& engine, const std::string& gpu) {
  const Plan p = plan_at(kVllm, engine, gpu);
  return {static_cast<int>(num(p, "max_num_batched_tokens")),
          static_cast<int>(num(p, "max_num_seqs"))};
}

std::string tier_why(const std::string& engine) {
  const Plan p = plan_at(kVllm, engine);
  const Node* tier = p.graph.find("batch_defaults_tier");
  return tier == nullptr ? "" : tier->why;
}

TEST(UnifiedMemoryReleases, VllmBatchDefaultsOnIntegratedGpusFollowTheRelease) {
  using Defaults = std::pair<int, int>;
  // Up to 0.32.0 the NVML error makes the total 0: the small tier on GB10 and Thor alike.
  EXPECT_EQ(batch_defaults("vllm@0.32.0", "gb10"), Defaults(2048, 256));
  EXPECT_EQ(batch_defaults("vllm@0.32.0", "jetson-thor"), Defaults(2048, 256));
  // 0.33.0 reads torch's total instead: GB10 stays small by name, a 119.7 GiB Thor is tiered
  // like any GPU of ≥ 70 GiB.
  EXPECT_EQ(batch_defaults("vllm@0.33.0", "gb10"), Defaults(2048, 256));
  EXPECT_EQ(batch_defaults("vllm@0.33.0", "jetson-thor"), Defaults(8192, 1024));
  // A 61 GiB Orin is below 70 GiB in either era.
  EXPECT_EQ(batch_defaults("vllm@0.33.0", "jetson-agx-orin"), Defaults(2048, 256));
  // The derivation says which reason applied.
  EXPECT_NE(tier_why("vllm@0.33.0").find("keeps GB10 on the small tier"), std::string::npos)
      << tier_why("vllm@0.33.0");
  EXPECT_NE(tier_why("vllm@0.32.0").find("NVML reports no memory total"), std::string::npos)
      << tier_why("vllm@0.32.0");
}

}  // namespace
}  // namespace servescope::testing
