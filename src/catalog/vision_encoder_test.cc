#include "catalog/vision_encoder.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

// The fields every exactly counted encoder shares, at the transformers defaults of these tests:
// 3 input channels, 2 frames per temporal patch, 2×2 patches merged.
VisionDims encoder(std::string model_type, int depth, int patch, int out_hidden) {
  VisionDims v;
  v.present = true;
  v.model_type = std::move(model_type);
  v.depth = depth;
  v.patch_size = patch;
  v.out_hidden_size = out_hidden;
  v.temporal_patch_size = 2;
  v.in_channels = 3;
  v.spatial_merge_size = 2;
  return v;
}

// Qwen2-VL's default vision tower (transformers Qwen2VLConfig): embed_dim 1280, 32 blocks, MLP
// ratio 4, merged into 3584. Counted by hand from models/qwen2_vl.py's modules; vLLM 0.34.0 built
// it with 1,351,518,208 bytes of bf16 parameters, 677,516,288 per rank at tp 2
// (tests/oracle/layouts/vllm-0.34.0.jsonl).
TEST(VisionEncoder, Qwen2VlCountsEveryModuleAndWhatTpReplicates) {
  VisionDims v = encoder("qwen2_vl", 32, 14, 3584);
  v.embed_dim = 1280;
  v.mlp_ratio = 4;
  auto p = vision_encoder_params(v);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->sharded + p->replicated, 1351518208.0 / 2);
  // Patch embedding 1,505,280; LayerNorms 163,840 + 2,560; row-parallel biases 85,504.
  EXPECT_DOUBLE_EQ(p->replicated, 1757184.0);
  EXPECT_DOUBLE_EQ(p->sharded / 2 + p->replicated, 677516288.0 / 2);
}

TEST(VisionEncoder, Qwen3VlAddsPositionEmbeddingsAndDeepstackMergers) {
  VisionDims v = encoder("qwen3_vl", 27, 16, 3584);
  v.hidden_size = 1152;
  v.intermediate_size = 4304;
  v.num_position_embeddings = 2304;
  v.deepstack_layers = 3;
  auto p = vision_encoder_params(v);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->sharded + p->replicated, 1133898208.0 / 2);
}

// GLM-4.1V's default vision tower (transformers Glm4vConfig), counted from models/glm4_1v.py:
// vLLM 0.34.0 built it with 1,784,996,864 bytes of bf16 parameters, 920,445,952 per rank at tp 2.
TEST(VisionEncoder, Glm4vCountsItsDownsampleMergerAndPositionEmbeddings) {
  VisionDims v = encoder("glm4v", 24, 14, 4096);
  v.hidden_size = 1536;
  v.intermediate_size = 13696;
  v.image_size = 336;
  auto p = vision_encoder_params(v);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->sharded + p->replicated, 1784996864.0 / 2);
  EXPECT_DOUBLE_EQ(p->sharded / 2 + p->replicated, 920445952.0 / 2);
}

TEST(VisionEncoder, AnUnknownEncoderOrADamagedDepthIsLeftToTheEstimate) {
  VisionDims pixtral = encoder("pixtral", 24, 14, 5120);
  pixtral.hidden_size = 1024;
  EXPECT_FALSE(vision_encoder_params(pixtral));
  VisionDims deep = encoder("qwen3_vl", 100000, 16, 3584);
  deep.hidden_size = 1152;
  EXPECT_FALSE(vision_encoder_params(deep));
}

}  // namespace
}  // namespace servescope
