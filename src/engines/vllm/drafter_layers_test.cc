// V9.1: a drafter with a config of its own registers its own KV layers, of its own kinds and
// shapes, which join the grouping like the target's (issue: DFlash and draft models were taken as
// one full-attention layer of the target's shape, silently).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

VllmRun with_drafter(const std::string& spec) {
  VllmRun r;
  r.engine = "vllm@0.34.0";
  r.command = "vllm serve Qwen/Qwen3-32B --max-model-len 8192 --speculative-config '" + spec + "'";
  r.kv_memory = 20;
  return r;
}

TEST(VllmDrafterLayers, ADraftModelsOwnLayersAreSizedFromItsConfig) {
  const Plan p = vllm_plan(with_drafter(
      R"({"method": "draft_model", "model": "Qwen/Qwen3-8B", "num_speculative_tokens": 3})"));
  // 64 target layers and the draft model's 36, all full attention with 8 KV heads × 128.
  EXPECT_EQ(text_of(p, "kv_layers"), "100 full");
  EXPECT_FALSE(has_code(p, "unmodelled-draft-model"));
  // The cache's blocks are shared by all 100 layers.
  EXPECT_EQ(value_of(p, "kv_bytes_per_token"), 100.0 * 8 * 128 * 2 * 2);
}

TEST(VllmDrafterLayers, ADrafterWithoutAReadableConfigIsSaidNotSilent) {
  const Plan eagle = vllm_plan(with_drafter(
      R"({"method": "eagle3", "model": "nobody/no-such-eagle3-head", "num_speculative_tokens": 3})"));
  EXPECT_EQ(text_of(eagle, "kv_layers"), "65 full");
  EXPECT_TRUE(has_code(eagle, "drafter-layers-assumed"));
  const Plan dflash = vllm_plan(with_drafter(
      R"({"method": "dflash", "model": "nobody/no-such-dflash", "num_speculative_tokens": 8})"));
  EXPECT_TRUE(has_code(dflash, "unmodelled-drafter"));
  const Plan draft = vllm_plan(with_drafter(
      R"({"method": "draft_model", "model": "nobody/none", "num_speculative_tokens": 2})"));
  EXPECT_TRUE(has_code(draft, "unmodelled-draft-model"));
  // n-gram lookups and MLP speculators keep no KV of their own.
  for (const char* spec : {R"({"method": "ngram_gpu", "num_speculative_tokens": 3, )"
                           R"("prompt_lookup_max": 4})",
                           R"({"method": "mlp_speculator", "model": "nobody/mlp", )"
                           R"("num_speculative_tokens": 3})"}) {
    const Plan none = vllm_plan(with_drafter(spec));
    EXPECT_EQ(text_of(none, "kv_layers"), "64 full") << spec;
    EXPECT_FALSE(has_code(none, "unmodelled-drafter")) << spec;
  }
}

TEST(VllmDrafterLayers, ASlidingDrafterJoinsTheHybridGrouping) {
  // gemma-2's layers alternate sliding and full: as a drafter they add a sliding-window group.
  const Plan p = vllm_plan(with_drafter(
      R"({"method": "draft_model", "model": "google/gemma-2-9b-it", "num_speculative_tokens": 2})"));
  const std::string layers = text_of(p, "kv_layers");
  EXPECT_NE(layers.find("sliding_window"), std::string::npos) << layers;
  EXPECT_GT(value_of(p, "kv_cache_groups"), 1);
}

// A DFlash head for Qwen3-8B in a folder of its own (the speculative config's "model").
std::string write_dflash(const std::string& name, const std::string& dflash_config) {
  const auto dir = std::filesystem::temp_directory_path() / ("servescope-dflash-" + name);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json")
      << R"({"architectures": ["DFlashDraftModel"], "model_type": "qwen3", "hidden_size": 4096,
  "intermediate_size": 12288, "num_hidden_layers": 5, "num_attention_heads": 32,
  "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
  "max_position_embeddings": 40960, "torch_dtype": "bfloat16", "dflash_config": )"
      << dflash_config << "}";
  return dir.string();
}

TEST(VllmDrafterLayers, ADFlashHeadWithUseSwaSlidesEveryLayerAndSplitsTheGroups) {
  // models/qwen3_dflash.py::_resolve_layer_attention: use_swa without layer_types slides every
  // layer with dflash_config.swa_window_size. 36 full + 5 sliding layers: group size 5, 8 full
  // groups and 1 sliding (vLLM 0.34.0's own planning gives the same: vllm_drafters_test.cc).
  VllmRun r;
  r.engine = "vllm@0.34.0";
  r.command =
      "vllm serve Qwen/Qwen3-8B --max-model-len 16384 --no-enable-extensible-kv-cache "
      "--speculative-config '{\"method\": \"dflash\", \"num_speculative_tokens\": 8, "
      "\"model\": \"" +
      write_dflash("swa", R"({"use_swa": true, "swa_window_size": 2048})") + "\"}'";
  r.kv_memory = 20;
  const Plan swa = vllm_plan(r);
  EXPECT_EQ(text_of(swa, "kv_layers"), "36 full + 5 sliding_window");
  EXPECT_EQ(value_of(swa, "kv_cache_groups"), 9);
  EXPECT_FALSE(has_code(swa, "unmodelled-drafter"));
  // Without use_swa the same head is five full layers in the target's one group.
  r.command =
      "vllm serve Qwen/Qwen3-8B --max-model-len 16384 --no-enable-extensible-kv-cache "
      "--speculative-config '{\"method\": \"dflash\", \"num_speculative_tokens\": 8, "
      "\"model\": \"" +
      write_dflash("full", R"({"mask_token_id": 151669})") + "\"}'";
  const Plan full = vllm_plan(r);
  EXPECT_EQ(text_of(full, "kv_layers"), "41 full");
  EXPECT_EQ(value_of(full, "kv_cache_groups"), 1);
}

}  // namespace
}  // namespace servescope::testing
