// A vLLM log that names no GPU and prints no total or free memory still bounds the device:
// lines shaped like the vLLM 0.10.1.1 logs of dennislee22 (1× A100-80GB, gpu_memory_utilization
// 0.25), written here for the test.
#include "engines/vllm/vllm_log_scenario.h"

#include <gtest/gtest.h>

#include "engines/vllm/vllm_log_grammar.h"
#include "tests/grammar_fixture.h"

namespace servescope::vllm {
namespace {

constexpr std::string_view kArgs =
    "(APIServer pid=1) INFO 09-04 01:02:21 [utils.py:326] non-default args: {'model_tag': "
    "'Qwen/Qwen2-7B-Instruct', 'model': 'Qwen/Qwen2-7B-Instruct', 'max_model_len': 16384, "
    "'gpu_memory_utilization': 0.25}";
constexpr std::string_view kWeights =
    "(EngineCore_0 pid=2) INFO 09-04 01:03:03 [gpu_model_runner.py:2007] Model loading took "
    "14.2488 GiB and 4.422213 seconds";
constexpr std::string_view kKv =
    "(EngineCore_0 pid=2) INFO 09-04 01:04:29 [gpu_worker.py:276] Available KV cache memory: "
    "5.01 GiB";

TEST(VllmLogScenario, WeightsAndKvWithinTheFractionBoundTheDevice) {
  auto r = testing::read_lines<VllmLogGrammar>({kArgs, kWeights, kKv});
  auto s = vllm_scenario_from_log(r.facts);
  ASSERT_TRUE(s) << s.message();
  ASSERT_TRUE(s->memory_at_least_gib.has_value());
  // (14.2488 + 5.01) / 0.25
  EXPECT_NEAR(*s->memory_at_least_gib, 77.0352, 1e-3);
  EXPECT_NE(s->memory_at_least_why.find("gpu_memory_utilization 0.25"), std::string::npos)
      << s->memory_at_least_why;
}

TEST(VllmLogScenario, WithoutAStatedFractionTheLargestDefaultKeepsItABound) {
  constexpr std::string_view kArgsDefault =
      "(APIServer pid=1) INFO 09-04 01:02:21 [utils.py:326] non-default args: {'model_tag': "
      "'Qwen/Qwen2-7B-Instruct', 'model': 'Qwen/Qwen2-7B-Instruct'}";
  auto r = testing::read_lines<VllmLogGrammar>({kArgsDefault, kWeights, kKv});
  auto s = vllm_scenario_from_log(r.facts);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->memory_at_least_gib.has_value());
  EXPECT_NEAR(*s->memory_at_least_gib, (14.2488 + 5.01) / 0.92, 1e-3);
  EXPECT_NE(s->memory_at_least_why.find("the default"), std::string::npos);
}

TEST(VllmLogScenario, AStatedTotalNeedsNoBound) {
  auto r = testing::read_lines<VllmLogGrammar>(
      {kArgs, kWeights, kKv,
       // The 0.19 memory summary (vLLM issue shapes; the corpus sweep prints it too).
       "(EngineCore pid=283) DEBUG 04-22 15:13:24 [v1/worker/gpu_worker.py:661] Free memory on "
       "device (78.68/79.19 GiB) on startup. Desired GPU memory utilization is (0.95, 75.23 "
       "GiB). Actual usage is 12.56 GiB for weight, 0.77 GiB for peak activation, 0.25 GiB for "
       "non-torch memory, and 0.89 GiB for CUDAGraph memory."});
  auto s = vllm_scenario_from_log(r.facts);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->calibration.total_memory_gib.has_value()) << "the profiling line was not read";
  EXPECT_FALSE(s->memory_at_least_gib.has_value());
}

}  // namespace
}  // namespace servescope::vllm
