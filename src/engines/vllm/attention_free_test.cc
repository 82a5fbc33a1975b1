// Attention-free models (Mamba, Mamba2, Falcon-Mamba) on vLLM 0.34.0: every layer keeps a state,
// none attends (data/recurrent-state.tsv "=mamba"; models/config.py::MambaModelConfig).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

// Codestral-Mamba-7B's shape (Mamba2Config fields); no attention heads, no context length key.
std::string codestral_config() {
  // One file per test: ctest runs the tests of this file in parallel.
  const auto path =
      std::filesystem::temp_directory_path() /
      ("servescope-codestral-mamba-" +
       std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json");
  std::ofstream(path) << R"({"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2",
    "hidden_size": 4096, "num_hidden_layers": 64, "state_size": 128, "expand": 2,
    "conv_kernel": 4, "n_groups": 8, "num_heads": 128, "head_dim": 64, "vocab_size": 32768,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";
  return path.string();
}

VllmRun codestral(const std::string& flags) {
  VllmRun r;
  r.engine = "vllm@0.34.0";
  r.model = codestral_config();
  r.command = "vllm serve " + r.model + " " + flags;
  r.kv_memory = 20;
  return r;
}

TEST(VllmAttentionFree, EveryLayerIsAStateWithOneBlockPerRequest) {
  const Plan p = vllm_plan(codestral("--max-model-len 32768 --max-num-seqs 64"));
  EXPECT_EQ(text_of(p, "kv_layers"), "64 mamba");
  // Prefix caching is unsupported, so the state's block covers the whole context.
  EXPECT_EQ(text_of(p, "enable_prefix_caching"), "false");
  EXPECT_EQ(text_of(p, "mamba_cache_mode"), "none");
  EXPECT_EQ(value_of(p, "mamba_block_size"), 32768);
  EXPECT_EQ(value_of(p, "blocks_per_request"), 1);
  // conv (8192 + 2·8·128) × 3 and ssm 128 × 64 × 128, both bfloat16.
  EXPECT_EQ(value_of(p, "mamba_conv_state_bytes") + value_of(p, "mamba_ssm_state_bytes"),
            (10240.0 * 3 + 128.0 * 64 * 128) * 2);
  EXPECT_EQ(value_of(p, "num_gpu_blocks"),
            std::floor(20.0 * 1024 * 1024 * 1024 / (2158592.0 * 64)));
}

TEST(VllmAttentionFree, ATypedLengthStandsWhereTheConfigDeclaresNone) {
  // _get_and_verify_max_len returns a typed length as is when no config key gives one.
  EXPECT_EQ(
      value_of(vllm_plan(codestral("--max-model-len 65536 --max-num-seqs 8")), "max_model_len"),
      65536);
  EXPECT_EQ(value_of(vllm_plan(codestral("--max-num-seqs 8")), "max_model_len"), 2048);
}

TEST(VllmAttentionFree, FullGraphsNeedAStateBlockPerRunningRequest) {
  // 20 GiB holds 155 states of 138 MB: the default 1024 running requests cannot be captured.
  const auto p = try_vllm_plan(codestral("--max-model-len 2048"));
  ASSERT_TRUE(p) << p.message();
  EXPECT_FALSE(p->starts);
  EXPECT_TRUE(has_code(*p, "mamba-blocks-below-max-num-seqs"));
}

TEST(SglangAttentionFree, IsRefusedInOneLineNamingTheEngineThatModelsIt) {
  ScenarioOptions o;
  o.engine = "sglang@0.5.23";
  o.gpu = "h100-sxm";
  o.command = {"python", "-m", "sglang.launch_server", "--model-path", codestral_config()};
  auto built = build_scenario(o);
  ASSERT_TRUE(built) << built.message();
  auto plan = built->engine->plan(built->scenario);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.message().find("no attention layer"), std::string::npos) << plan.message();
  EXPECT_NE(plan.message().find("--engine vllm"), std::string::npos) << plan.message();
}

}  // namespace
}  // namespace servescope::testing
