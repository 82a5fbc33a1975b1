// The unified-memory rules as each engine release has them, dated by the releases' wheels
// (tools/engine-sync/wheel_grep.py; data/integrated-gpu-rules.md holds the run):
//   SGLang: cudaMemGetInfo up to 0.5.3.post3; psutil on SM 8.7/11.0/12.1 from 0.5.4; on
//           torch's is_integrated from 0.5.9.
//   vLLM:   cudaMemGetInfo up to 0.11.0; psutil on SM 8.7/11.0/12.1 from 0.11.1; on
//           is_integrated_gpu from 0.20.0 (#35356). get_batch_defaults: NVML's missing total
//           is 0 up to 0.32.0; from 0.33.0 torch's total, with GB10 kept on the small tier.
#include <gtest/gtest.h>

#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

std::string unified_memory_message(const std::string& command, const std::string& engine,
                                   const std::string& gpu = "gb10") {
  PlanRequest r{command, gpu};
  r.engine = engine;
  for (const Finding& f : plan_of(r).findings)
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
  PlanRequest old{kSglang, "gb10"};
  old.engine = "sglang@0.5.3";
  const Node* p = plan_of(old).graph.find("free_before_load_gib");
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
  PlanRequest old{kVllm, "gb10"};
  old.engine = "vllm@0.11.0";
  const Node* free = plan_of(old).graph.find("free_at_startup_gib");
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

// vllm serve's batch defaults (V6.1) on an integrated NVIDIA GPU, whose NVML has no memory total.
int default_batched_tokens(const std::string& engine, const std::string& gpu) {
  PlanRequest r{kVllm, gpu};
  r.engine = engine;
  return static_cast<int>(num(plan_of(r), "max_num_batched_tokens"));
}

int default_max_num_seqs(const std::string& engine, const std::string& gpu) {
  PlanRequest r{kVllm, gpu};
  r.engine = engine;
  return static_cast<int>(num(plan_of(r), "max_num_seqs"));
}

TEST(UnifiedMemoryReleases, VllmBatchDefaultsOnIntegratedGpusFollowTheRelease) {
  // Up to 0.32.0 the NVML error makes the total 0: the small tier on GB10 and Thor alike.
  for (const char* gpu : {"gb10", "jetson-thor"}) {
    EXPECT_EQ(default_batched_tokens("vllm@0.32.0", gpu), 2048) << gpu;
    EXPECT_EQ(default_max_num_seqs("vllm@0.32.0", gpu), 256) << gpu;
  }
  // 0.33.0 reads torch's total instead: GB10 stays small by name, a 119.7 GiB Thor is tiered
  // like any GPU of ≥ 70 GiB.
  EXPECT_EQ(default_batched_tokens("vllm@0.33.0", "gb10"), 2048);
  EXPECT_EQ(default_max_num_seqs("vllm@0.33.0", "gb10"), 256);
  EXPECT_EQ(default_batched_tokens("vllm@0.33.0", "jetson-thor"), 8192);
  EXPECT_EQ(default_max_num_seqs("vllm@0.33.0", "jetson-thor"), 1024);
  // A 61 GiB Orin is below 70 GiB in either era.
  EXPECT_EQ(default_batched_tokens("vllm@0.33.0", "jetson-agx-orin"), 2048);
  // The derivation says which reason applied.
  PlanRequest r{kVllm, "gb10"};
  r.engine = "vllm@0.33.0";
  const Node* tier = plan_of(r).graph.find("batch_defaults_tier");
  ASSERT_NE(tier, nullptr);
  EXPECT_NE(tier->why.find("keeps GB10 on the small tier"), std::string::npos) << tier->why;
  r.engine = "vllm@0.32.0";
  tier = plan_of(r).graph.find("batch_defaults_tier");
  ASSERT_NE(tier, nullptr);
  EXPECT_NE(tier->why.find("NVML reports no memory total"), std::string::npos) << tier->why;
}

}  // namespace
}  // namespace servescope::testing
