// A DFlash drafter's layers as vLLM's models/qwen3_dflash.py::_resolve_layer_attention sets
// them: use_swa, layer_types and the window from dflash_config or the config.
#include "catalog/dflash_layers.h"

#include <gtest/gtest.h>

#include <string>

#include "catalog/model_config_reader.h"

namespace servescope {
namespace {

// A four-layer Qwen3 DFlash head (z-lab/Qwen3-8B-DFlash-b16's layer shape) with `extra` fields.
Result<ModelShape> dflash(const std::string& extra) {
  return read_model_config(
      R"({"architectures": ["DFlashDraftModel"], "model_type": "qwen3", "hidden_size": 4096,
          "intermediate_size": 12288, "num_hidden_layers": 4, "num_attention_heads": 32,
          "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
          "max_position_embeddings": 40960, "torch_dtype": "bfloat16")" +
          extra + "}",
      "dflash.json");
}

std::string kinds(const ModelShape& m) {
  std::string out;
  for (LayerKind k : m.layer_kinds)
    out += k == LayerKind::kSlidingAttention ? 'S' : (k == LayerKind::kFullAttention ? 'F' : '?');
  return out;
}

TEST(DFlashLayers, WithoutLayerTypesEveryLayerIsFullUnlessUseSwa) {
  auto full = dflash(R"(, "dflash_config": {"mask_token_id": 1})");
  ASSERT_TRUE(full) << full.message();
  EXPECT_EQ(kinds(*full), "FFFF");
  auto swa = dflash(R"(, "dflash_config": {"use_swa": true, "swa_window_size": 2048})");
  ASSERT_TRUE(swa) << swa.message();
  EXPECT_EQ(kinds(*swa), "SSSS");
  EXPECT_EQ(swa->sliding_window, 2048);
  EXPECT_EQ(swa->model_sliding_window, 0);
}

TEST(DFlashLayers, LayerTypesDecideUnlessUseSwaForcesAnAllFullList) {
  const std::string types =
      R"(, "layer_types": ["sliding_attention", "sliding_attention", "full_attention",
                           "full_attention"], "sliding_window": 1024, "use_sliding_window": true)";
  auto mixed = dflash(types + R"(, "dflash_config": {"mask_token_id": 1})");
  ASSERT_TRUE(mixed) << mixed.message();
  EXPECT_EQ(kinds(*mixed), "SSFF");
  EXPECT_EQ(mixed->sliding_window, 1024);
  // use_swa with a list that already slides somewhere: the list still decides.
  auto listed = dflash(types + R"(, "dflash_config": {"use_swa": true, "swa_window_size": 512})");
  ASSERT_TRUE(listed) << listed.message();
  EXPECT_EQ(kinds(*listed), "SSFF");
  EXPECT_EQ(listed->sliding_window, 512);  // dflash_config's window first
  auto forced = dflash(
      R"(, "layer_types": ["full_attention", "full_attention", "full_attention",
                           "full_attention"], "dflash_config": {"use_swa": true,
                           "swa_window_size": 256})");
  ASSERT_TRUE(forced) << forced.message();
  EXPECT_EQ(kinds(*forced), "SSSS");
}

TEST(DFlashLayers, ASlidingLayerWithoutAWindowIsTheEnginesError) {
  // transformers' Qwen3Config drops sliding_window without use_sliding_window.
  auto none = dflash(R"(, "sliding_window": 4096, "dflash_config": {"use_swa": true})");
  ASSERT_FALSE(none);
  EXPECT_NE(none.message().find("swa_window_size"), std::string::npos) << none.message();
  auto top = dflash(
      R"(, "sliding_window": 4096, "use_sliding_window": true, "dflash_config": {"use_swa": true})");
  ASSERT_TRUE(top) << top.message();
  EXPECT_EQ(top->sliding_window, 4096);
}

TEST(DFlashLayers, OnlyDFlashConfigsTakeTheRule) {
  auto plain = read_model_config(
      R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096,
          "intermediate_size": 12288, "num_hidden_layers": 2, "num_attention_heads": 32,
          "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
          "max_position_embeddings": 40960})",
      "qwen3.json");
  ASSERT_TRUE(plain) << plain.message();
  EXPECT_FALSE(is_dflash_drafter(nlohmann::json::object(), *plain));
  EXPECT_TRUE(is_dflash_drafter(nlohmann::json::parse(R"({"dflash_config": {}})"), *plain));
  auto swa = dflash(R"(, "dflash_config": {"use_swa": true, "swa_window_size": 64})");
  ASSERT_TRUE(swa) << swa.message();
  EXPECT_TRUE(is_dflash_drafter(nlohmann::json::object(), *swa));  // by its architecture
}

TEST(DFlashLayers, ALagunaHeadKeepsFullKvOnEveryLayer) {
  // models/laguna_dflash.py clears each layer's window: sliding is a compute-time limit only.
  ModelShape m;
  m.architecture = "DFlashLagunaForCausalLM";
  m.layer_kinds = {LayerKind::kSlidingAttention, LayerKind::kFullAttention};
  m.model_sliding_window = 512;
  const auto config = nlohmann::json::parse(
      R"({"layer_types": ["sliding_attention", "full_attention"], "sliding_window": 512,
          "dflash_config": {"use_swa": true, "swa_window_size": 512}})");
  ASSERT_TRUE(is_dflash_drafter(config, m));
  ASSERT_TRUE(read_dflash_layers(config, m));
  EXPECT_EQ(kinds(m), "FF");
  EXPECT_EQ(m.model_sliding_window, 0);
}

}  // namespace
}  // namespace servescope
