#include "catalog/kimi_delta_layout.h"

#include <gtest/gtest.h>

#include <string>

#include "catalog/model_config_reader.h"
#include "catalog/recurrent_layout.h"
#include "catalog/weight_estimate.h"

namespace servescope {
namespace {

// A scaled Kimi-Linear: four layers, KDA in the first three (numbered from 1), latent attention
// in the fourth, experts after one dense layer.
std::string kimi_linear(const std::string& kda_layers) {
  return R"({"architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear",
    "hidden_size": 256, "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 64,
    "num_hidden_layers": 4, "vocab_size": 1000, "intermediate_size": 512,
    "kv_lora_rank": 64, "q_lora_rank": null, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16,
    "v_head_dim": 32, "mla_use_nope": true, "mla_use_output_gate": true,
    "num_experts": 8, "num_experts_per_token": 2, "num_shared_experts": 1,
    "moe_intermediate_size": 64, "first_k_dense_replace": 1, "max_position_embeddings": 4096,
    "linear_attn_config": {"num_heads": 4, "head_dim": 32, "short_conv_kernel_size": 4,
                           "kda_layers": )" +
         kda_layers + R"(, "full_attn_layers": [4]}})";
}

TEST(KimiDeltaLayout, KdaLayersFromOneAndLatentAttentionBetweenThem) {
  auto m = read_model_config(kimi_linear("[1, 2, 3]"), "test");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->count_layers(LayerKind::kLinearAttention), 3);
  EXPECT_EQ(m->count_layers(LayerKind::kMla), 1);
  EXPECT_EQ(m->layer_kinds.back(), LayerKind::kMla);
  ASSERT_TRUE(m->linear);
  EXPECT_EQ(m->linear->kind, RecurrentKind::kKimiDelta);
  EXPECT_EQ(m->linear->ssm_dtype, "float32");  // kda_state_dtype: auto is float32
  EXPECT_TRUE(m->attention_output_gate);
  ASSERT_TRUE(m->moe);
  EXPECT_EQ(m->moe->experts_per_token, 2);
  EXPECT_EQ(m->moe->first_dense_layers, 1);
}

TEST(KimiDeltaLayout, StateIsGatedDeltaNetsShapeWithEqualHeads) {
  auto m = read_model_config(kimi_linear("[1, 2, 3]"), "test");
  ASSERT_TRUE(m) << m.message();
  // kda_state_shape: conv (3 × 4 heads × 32)/tp channels × (4 − 1) rows; recurrent
  // 4/tp heads × 32 × 32.
  const RecurrentStateSize tp1 = recurrent_state_size(*m->linear, 1, 0);
  EXPECT_EQ(tp1.conv_elements, 3 * 128 * 3);
  EXPECT_EQ(tp1.ssm_elements, 4 * 32 * 32);
  const RecurrentStateSize tp2 = recurrent_state_size(*m->linear, 2, 1);
  EXPECT_EQ(tp2.conv_elements, 3 * 128 / 2 * 4);
  EXPECT_EQ(tp2.ssm_elements, 2 * 32 * 32);
  EXPECT_EQ(recurrent_kind_name(m->linear->kind), "kda");
}

TEST(KimiDeltaLayout, AKdaLayerCountsItsProjectionsConvolutionsAndGates) {
  auto with_kda = read_model_config(kimi_linear("[1, 2, 3]"), "test");
  auto fewer = read_model_config(kimi_linear("[1, 2]"), "test");
  ASSERT_TRUE(with_kda && fewer);
  // Layer 3 turns from latent attention into KDA: the difference is one KDA layer's parameters
  // less one latent-attention layer's (kda.py; mla.py with its output gate).
  const double h = 256, d = 32, heads = 4, p = heads * d;
  const double kda =
      h * (3 * p + heads + d) + 2 * d * p + h * d + 3 * p * 4 + heads + p + d + p * h;
  const double mla = h * 4 * 48 + h * (64 + 16) + 64 * 4 * (32 + 32) + 4 * 32 * h + h * 4 * 32;
  const double bytes = 2;
  const WeightEstimate a = estimate_weights(*with_kda, {});
  const WeightEstimate b = estimate_weights(*fewer, {});
  EXPECT_DOUBLE_EQ(a.bytes_per_gpu - b.bytes_per_gpu, (kda - mla) * bytes);
}

TEST(KimiDeltaLayout, ALayerOutsideTheModelIsNamed) {
  auto bad = read_model_config(kimi_linear("[1, 2, 5]"), "test");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("linear_attn_config.kda_layers lists 5, not a layer from 1 to 4"),
            std::string::npos)
      << bad.message();
  auto missing = read_model_config(
      R"({"architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear",
      "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 4, "vocab_size": 1000,
      "linear_attn_config": {"num_heads": 4, "kda_layers": [1]}})",
      "test");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("linear_attn_config.head_dim"), std::string::npos)
      << missing.message();
}

}  // namespace
}  // namespace servescope
