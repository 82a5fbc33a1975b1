// Models whose layers keep a Mamba or short-convolution state, read by data/recurrent-state.tsv:
// the layer patterns each family writes, the state each kind keeps per rank, and the errors a
// wrong config gets. (The engine's own figures for the same configs: tests/oracle/
// vllm_layouts_test.cc.)
#include "catalog/recurrent_layout.h"

#include <gtest/gtest.h>

#include "catalog/model_config_reader.h"
#include "catalog/weight_estimate.h"

namespace servescope {
namespace {

// Nemotron-H as its checkpoints write it: one letter per block.
constexpr char kNemotronH[] = R"({
  "architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h",
  "hidden_size": 1024, "num_hidden_layers": 6, "num_attention_heads": 8,
  "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 1000, "intermediate_size": 4096,
  "hybrid_override_pattern": "M-M*EM", "mamba_num_heads": 16, "mamba_head_dim": 64,
  "n_groups": 2, "ssm_state_size": 128, "conv_kernel": 4,
  "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 512,
  "moe_shared_expert_intermediate_size": 1024, "n_shared_experts": 1})";

TEST(RecurrentLayout, NemotronHBlocksAreAMixerOrAFeedForwardNeverBoth) {
  auto m = read_model_config(kNemotronH, "nemotron.json");
  ASSERT_TRUE(m) << m.message();
  const std::vector<LayerKind> kinds = {
      LayerKind::kLinearAttention, LayerKind::kNone, LayerKind::kLinearAttention,
      LayerKind::kFullAttention,   LayerKind::kNone, LayerKind::kLinearAttention};
  EXPECT_EQ(m->layer_kinds, kinds);
  EXPECT_EQ(m->ffn_layers, (std::vector<bool>{false, true, false, false, true, false}));
  ASSERT_TRUE(m->moe);
  EXPECT_EQ(m->moe->sparse_layers, (std::vector<bool>{false, false, false, false, true, false}));
  // One shared MLP of moe_shared_expert_intermediate_size × n_shared_experts.
  EXPECT_EQ(m->moe->shared_expert_intermediate, 1024);
  EXPECT_EQ(m->moe->num_shared_experts, 0);
  ASSERT_TRUE(m->linear);
  EXPECT_EQ(m->linear->kind, RecurrentKind::kMamba2);
  EXPECT_EQ(m->linear->intermediate_size, 16 * 64);
  // The class default when the config does not say (models/config.py).
  EXPECT_EQ(m->linear->ssm_dtype, "float32");
  EXPECT_FALSE(m->gated_mlp);  // relu² MLPs and experts
}

TEST(RecurrentLayout, TheLayerCountComesFromThePatternWhenTheConfigOmitsIt) {
  std::string text = kNemotronH;
  text.replace(text.find("\"num_hidden_layers\": 6, "), 24, "");
  auto m = read_model_config(text, "nemotron.json");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->num_layers, 6);
}

TEST(RecurrentLayout, Mamba2StateReplicatesGroupsThatDoNotSplitOverTheRanks) {
  LinearAttentionDims l;
  l.kind = RecurrentKind::kMamba2;
  l.intermediate_size = 8192;
  l.n_groups = 1;
  l.num_heads = 128;
  l.head_dim = 64;
  l.state_size = 256;
  l.conv_kernel = 4;
  // tp 2: one group becomes two so each rank has its own (conv dim 8192 + 2·2·256 = 9216).
  const RecurrentStateSize two = recurrent_state_size(l, 2, 0);
  EXPECT_EQ(two.conv_elements, 9216 / 2 * 3);
  EXPECT_EQ(two.ssm_elements, 64 * 64 * 256);
  // Speculative tokens add conv rows, not SSM state.
  const RecurrentStateSize spec = recurrent_state_size(l, 1, 3);
  EXPECT_EQ(spec.conv_elements, (8192 + 2 * 256) * (3 + 3));
  EXPECT_EQ(spec.ssm_elements, 128 * 64 * 256);
}

TEST(RecurrentLayout, Mamba1AndShortConvolutionStates) {
  LinearAttentionDims m1;
  m1.kind = RecurrentKind::kMamba1;
  m1.intermediate_size = 8192;
  m1.state_size = 16;
  m1.conv_kernel = 4;
  EXPECT_EQ(recurrent_state_size(m1, 2, 2).conv_elements, 4096 * 3);  // no speculative rows
  EXPECT_EQ(recurrent_state_size(m1, 2, 2).ssm_elements, 4096 * 16);
  LinearAttentionDims sc;
  sc.kind = RecurrentKind::kShortConv;
  sc.intermediate_size = 2048;
  sc.conv_kernel = 3;
  EXPECT_EQ(recurrent_state_size(sc, 1, 1).conv_elements, 2048 * 3);
  EXPECT_EQ(recurrent_state_size(sc, 1, 1).ssm_elements, 0);
}

TEST(RecurrentLayout, JambaPlacesAttentionAndExpertsByPeriod) {
  auto m = read_model_config(R"({
    "architectures": ["JambaForCausalLM"], "model_type": "jamba", "hidden_size": 512,
    "num_hidden_layers": 8, "num_attention_heads": 8, "num_key_value_heads": 2,
    "vocab_size": 1000, "intermediate_size": 1024, "attn_layer_period": 4,
    "attn_layer_offset": 2, "expert_layer_period": 2, "expert_layer_offset": 1,
    "num_experts": 4, "num_experts_per_tok": 2, "mamba_expand": 2, "mamba_d_state": 16,
    "mamba_d_conv": 4})",
                             "jamba.json");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->count_layers(LayerKind::kFullAttention), 2);
  EXPECT_EQ(m->layer_kinds[2], LayerKind::kFullAttention);
  EXPECT_EQ(m->layer_kinds[6], LayerKind::kFullAttention);
  EXPECT_EQ(m->linear->kind, RecurrentKind::kMamba1);
  EXPECT_EQ(m->linear->intermediate_size, 1024);
  EXPECT_EQ(m->linear->dt_rank, 32);  // "auto": ceil(512 / 16)
  EXPECT_EQ(m->moe->sparse_layers,
            (std::vector<bool>{false, true, false, true, false, true, false, true}));
  EXPECT_TRUE(m->ffn_layers.empty());  // every layer has its MLP or MoE
}

TEST(RecurrentLayout, FalconH1RunsAttentionAndTheMixerSideBySideInEveryLayer) {
  auto m = read_model_config(R"({
    "architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1", "hidden_size": 512,
    "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2,
    "vocab_size": 1000, "intermediate_size": 1024, "mamba_d_ssm": 256, "mamba_n_groups": 1,
    "mamba_n_heads": 32, "mamba_d_head": 8, "mamba_d_state": 64, "mamba_d_conv": 4})",
                             "falcon.json");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->count_layers(LayerKind::kFullAttention), 4);
  EXPECT_TRUE(m->parallel_recurrent);
  EXPECT_EQ(m->recurrent_layers(), 4);
  EXPECT_EQ(m->linear->intermediate_size, 256);  // mamba_d_ssm wins over expand × hidden
  // A mixer per layer on top of the attention and the MLP.
  ModelShape attention_only = *m;
  attention_only.parallel_recurrent = false;
  const double h = 512, conv = 256 + 2 * 64;
  const double mixer = h * (256 + conv + 32) + conv * 5 + 3 * 32 + 256 + 256 * h;
  EXPECT_DOUBLE_EQ(estimate_weights(*m, {}).total_params,
                   estimate_weights(attention_only, {}).total_params + 4 * mixer);
}

TEST(RecurrentLayout, Lfm2FeedForwardWidthIsAdjustedAsTheEngineDoes) {
  auto m = read_model_config(R"({
    "architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "hidden_size": 1024,
    "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 8,
    "vocab_size": 1000, "block_ff_dim": 6656, "block_multiple_of": 256,
    "block_ffn_dim_multiplier": 1.0, "block_auto_adjust_ff_dim": true,
    "layer_types": ["conv", "full_attention", "conv", "conv"], "conv_dim": 1024,
    "conv_L_cache": 3})",
                             "lfm2.json");
  ASSERT_TRUE(m) << m.message();
  // int(2·6656/3) = 4437, rounded up to a multiple of 256: 4608.
  EXPECT_EQ(m->intermediate_size, 4608);
  EXPECT_EQ(m->count_layers(LayerKind::kLinearAttention), 3);
  EXPECT_EQ(m->linear->kind, RecurrentKind::kShortConv);
}

TEST(RecurrentLayout, AnAllAttentionConfigNeedsNoStateFieldsAndKeepsNoState) {
  auto m = read_model_config(R"({
    "architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "hidden_size": 1024,
    "num_hidden_layers": 2, "num_attention_heads": 16, "vocab_size": 1000,
    "intermediate_size": 3072, "layer_types": ["full_attention", "full_attention"]})",
                             "lfm2.json");
  ASSERT_TRUE(m) << m.message();
  EXPECT_FALSE(m->is_hybrid_linear());
}

TEST(RecurrentLayout, WrongPatternsAreOneLineNamingTheField) {
  std::string unknown = kNemotronH;
  unknown.replace(unknown.find("M-M*EM"), 6, "M-M*XM");
  auto a = read_model_config(unknown, "n.json");
  ASSERT_FALSE(a);
  EXPECT_NE(a.message().find("layer 4 of nemotron_h is 'X'"), std::string::npos) << a.message();
  std::string short_pattern = kNemotronH;
  short_pattern.replace(short_pattern.find("M-M*EM"), 6, "M-M*E");
  auto b = read_model_config(short_pattern, "n.json");
  ASSERT_FALSE(b);
  EXPECT_NE(b.message().find("5 entries for 6 layers"), std::string::npos) << b.message();
  std::string no_state = kNemotronH;
  no_state.replace(no_state.find("\"ssm_state_size\": 128, "), 23, "");
  auto c = read_model_config(no_state, "n.json");
  ASSERT_FALSE(c);
  EXPECT_NE(c.message().find("'ssm_state_size' is missing"), std::string::npos) << c.message();
}

TEST(RecurrentLayout, ImplausiblyLargeStateFieldsAreRefusedNotOverflowed) {
  std::string huge = kNemotronH;
  huge.replace(huge.find("\"ssm_state_size\": 128"), 21, "\"ssm_state_size\": 2000000000");
  auto m = read_model_config(huge, "n.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("implausibly large"), std::string::npos) << m.message();
}

TEST(RecurrentLayout, WeightsCountEachBlockOnce) {
  auto m = read_model_config(kNemotronH, "nemotron.json");
  ASSERT_TRUE(m) << m.message();
  const WeightEstimate w = estimate_weights(*m, {});
  const double h = 1024, i = 16 * 64, conv = i + 2 * 2 * 128;
  const double mamba = h * (i + conv + 16) + conv * 5 + 3 * 16 + i + i * h;
  const double attention = h * (8 * 128 + 2 * 2 * 128) + 8 * 128 * h;
  const double mlp = 2 * h * 4096;
  const double moe = 2 * h * 512 * 8 + 2 * h * 1024 + h * 8;
  const double expected = 2 * 1000 * h + 3 * mamba + attention + mlp + moe + 6 * 2 * h;
  EXPECT_DOUBLE_EQ(w.total_params, expected);
}

}  // namespace
}  // namespace servescope
