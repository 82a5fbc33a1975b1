// Gemma 4's layer-by-layer features as a checkpoint writes them (global_head_dim,
// num_global_key_value_heads with attention_k_eq_v, num_kv_shared_layers, per-layer
// embeddings) and as transformers saves them (per_layer_config).
#include "catalog/per_layer_features.h"

#include <gtest/gtest.h>

#include "catalog/model_config_reader.h"
#include "catalog/weight_estimate.h"

namespace servescope {
namespace {

std::string gemma4(const std::string& extra, int per_layer_input = 0) {
  return R"({"architectures": ["Gemma4ForCausalLM"], "model_type": "gemma4_text",
    "hidden_size": 512, "num_hidden_layers": 6, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 1000, "intermediate_size": 1024,
    "sliding_window": 256, "hidden_size_per_layer_input": )" +
         std::to_string(per_layer_input) + R"(,
    "layer_types": ["sliding_attention", "sliding_attention", "full_attention",
                    "sliding_attention", "sliding_attention", "full_attention"])" +
         extra + "}";
}

TEST(PerLayerFeatures, GlobalHeadsComeFromTheCheckpointsFieldsOrTheClassDefault) {
  auto m = read_model_config(gemma4(R"(, "global_head_dim": 256)"), "g.json");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->full_head_dim, 256);
  EXPECT_EQ(m->full_kv_heads, 0);  // without attention_k_eq_v the KV heads are the same
  auto d = read_model_config(gemma4(""), "g.json");
  ASSERT_TRUE(d) << d.message();
  EXPECT_EQ(d->full_head_dim, 512);  // Gemma4TextConfig's default global_head_dim
  auto k = read_model_config(
      gemma4(R"(, "attention_k_eq_v": true, "num_global_key_value_heads": 1)"), "g.json");
  ASSERT_TRUE(k) << k.message();
  EXPECT_EQ(k->full_kv_heads, 1);
}

TEST(PerLayerFeatures, TransformersPerLayerConfigWins) {
  auto m = read_model_config(gemma4(R"(, "global_head_dim": 999,
        "per_layer_config": {"02": {"head_dim": 256, "num_key_value_heads": 1},
                             "05": {"head_dim": 256, "num_key_value_heads": 1}})"),
                             "g.json");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->full_head_dim, 256);
  EXPECT_EQ(m->full_kv_heads, 1);
}

TEST(PerLayerFeatures, KvSharedLayersKeepQAndOAloneAndMayDoubleTheirMlp) {
  auto plain = read_model_config(gemma4(R"(, "global_head_dim": 128)"), "g.json");
  auto shared = read_model_config(
      gemma4(R"(, "global_head_dim": 128, "num_kv_shared_layers": 2, "use_double_wide_mlp": true)"),
      "g.json");
  ASSERT_TRUE(plain && shared);
  EXPECT_EQ(shared->kv_shared_layers, 2);
  EXPECT_TRUE(shared->kv_shared(4));
  EXPECT_FALSE(shared->kv_shared(3));
  const double h = 512, kv = 2 * 2 * 128;
  // Two layers lose k and v, and gain a second MLP's width.
  const double expected = estimate_weights(*plain, {}).total_params - 2 * h * kv + 2 * 3 * h * 1024;
  EXPECT_DOUBLE_EQ(estimate_weights(*shared, {}).total_params, expected);
}

TEST(PerLayerFeatures, PerLayerEmbeddingsAreATableAndAProjectionPerLayer) {
  auto m = read_model_config(
      gemma4(R"(, "global_head_dim": 128, "vocab_size_per_layer_input": 100)", 16), "g.json");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->per_layer_input_size, 16);
  EXPECT_EQ(m->per_layer_vocab, 100);
  const WeightEstimate w = estimate_weights(*m, {});
  double ple = 0;
  for (const WeightPart& p : w.parts)
    ple += p.name == "per-layer embeddings" ? p.params : 0;
  EXPECT_DOUBLE_EQ(ple, 100.0 * 6 * 16 + 512.0 * 6 * 16 + 6 * 2 * 512.0 * 16);
}

TEST(PerLayerFeatures, TooManySharedLayersIsAnError) {
  auto m = read_model_config(gemma4(R"(, "num_kv_shared_layers": 6)"), "g.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("num_kv_shared_layers"), std::string::npos) << m.message();
}

}  // namespace
}  // namespace servescope
