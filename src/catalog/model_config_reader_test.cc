#include "catalog/model_config_reader.h"

#include <gtest/gtest.h>

#include "catalog/model_catalog.h"
#include "catalog/weight_estimate.h"
#include "core/units.h"

namespace servescope {
namespace {

ModelShape load(const std::string& id) {
  auto m = load_model(id);
  EXPECT_TRUE(m) << m.message();
  return m ? *m : ModelShape{};
}

TEST(ModelConfig, EveryBundledConfigParses) {
  const auto ids = bundled_model_ids();
  EXPECT_GE(ids.size(), 22u);
  for (const std::string& id : ids) {
    auto m = load_model(id);
    EXPECT_TRUE(m) << id << ": " << m.message();
  }
}

TEST(ModelConfig, Qwen35IsHybridMultimodalWithNestedTextConfig) {
  ModelShape m = load("Qwen/Qwen3.5-122B-A10B-FP8");
  EXPECT_EQ(m.text_prefix, "text_config.");
  EXPECT_TRUE(m.multimodal);
  EXPECT_EQ(m.num_layers, 48);
  EXPECT_EQ(m.count_layers(LayerKind::kFullAttention), 12);
  EXPECT_EQ(m.count_layers(LayerKind::kLinearAttention), 36);
  EXPECT_EQ(m.full_attention_layer_ids().front(), 3);
  EXPECT_EQ(m.num_kv_heads, 2);
  EXPECT_EQ(m.head_dim, 256);
  ASSERT_TRUE(m.linear);
  EXPECT_EQ(m.linear->num_value_heads, 64);
  EXPECT_EQ(m.linear->ssm_dtype, "float32");
  ASSERT_TRUE(m.moe);
  EXPECT_EQ(m.moe->num_experts, 256);
  EXPECT_EQ(m.moe->experts_per_token, 8);
  EXPECT_FALSE(m.vision.num_hidden_layers.has_value()) << "Qwen3.5 vision_config says depth";
  EXPECT_EQ(m.vision.depth, 27);
  EXPECT_EQ(m.mtp_layers, 1);
  EXPECT_EQ(m.context_length, 262144);
  EXPECT_EQ(m.quant.method, QuantMethod::kFp8);
  EXPECT_EQ(m.quant.block_rows, 128);
  EXPECT_TRUE(m.quant.keeps_unquantized("layers.3.linear_attn.in_proj_a"));
  EXPECT_FALSE(m.quant.keeps_unquantized("layers.3.mlp.experts.0.down_proj"));
}

// transformers 5 saves a Qwen3-Next config with the layer_types list and no
// full_attention_interval (tests/real/models/hybrid-bf16-hd128 is such a save).
TEST(ModelConfig, Qwen3NextLayerTypesWithoutAnInterval) {
  const std::string base =
      R"({"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next",
    "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 128,
    "num_hidden_layers": 3, "vocab_size": 512, "intermediate_size": 128,
    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 1,
    "linear_num_value_heads": 2, "linear_value_head_dim": 128, "max_position_embeddings": 8192,
    "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, )";
  auto m = read_model_config(
      base + R"("layer_types": ["linear_attention", "full_attention", "linear_attention"]})",
      "test");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->count_layers(LayerKind::kLinearAttention), 2);
  EXPECT_EQ(m->full_attention_layer_ids().front(), 1);
  auto bad = read_model_config(
      base + R"("layer_types": ["linear_attention", "sliding_attention", "full_attention"]})",
      "test");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("layer_types"), std::string::npos) << bad.message();
}

TEST(ModelConfig, DeepSeekV3IsMla) {
  ModelShape m = load("deepseek-ai/DeepSeek-V3");
  ASSERT_TRUE(m.mla);
  EXPECT_EQ(m.mla->kv_lora_rank, 512);
  EXPECT_EQ(m.mla->qk_rope_head_dim, 64);
  EXPECT_EQ(m.count_layers(LayerKind::kMla), 61);
  EXPECT_EQ(m.context_length, 163840)
      << "yarn with original_max_position_embeddings keeps factor 1";
  EXPECT_EQ(m.moe->first_dense_layers, 3);
}

TEST(ModelConfig, GptOssAlternatesSlidingAndFullLayers) {
  ModelShape m = load("openai/gpt-oss-120b");
  EXPECT_EQ(m.count_layers(LayerKind::kSlidingAttention), 18);
  EXPECT_EQ(m.sliding_window, 128);
  EXPECT_EQ(m.quant.method, QuantMethod::kMxfp4);
  EXPECT_TRUE(m.quant.keeps_unquantized("layers.0.self_attn.q_proj"));
}

TEST(ModelConfig, Llama4ChunkedAttentionEveryFourthLayerGlobal) {
  ModelShape m = load("meta-llama/Llama-4-Scout-17B-16E-Instruct");
  EXPECT_EQ(m.count_layers(LayerKind::kFullAttention), 12);
  EXPECT_EQ(m.sliding_window, 8192);
  EXPECT_EQ(m.moe->num_experts, 16);
}

TEST(ModelConfig, CompressedTensorsFp8) {
  ModelShape m = load("RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic");
  EXPECT_EQ(m.quant.method, QuantMethod::kCompressedTensors);
  EXPECT_EQ(m.quant.weight_bits, 8);
  EXPECT_TRUE(m.quant.keeps_unquantized("layers.7.self_attn.k_proj"));
}

TEST(ModelConfig, Gemma2AlternatesSlidingAndGlobalLayers) {
  // gemma-2 configs have no layer_types: even layers slide over 4096 tokens, odd ones are global.
  ModelShape m = load("google/gemma-2-9b-it");
  EXPECT_EQ(m.num_layers, 42);
  EXPECT_EQ(m.count_layers(LayerKind::kSlidingAttention), 21);
  EXPECT_EQ(m.count_layers(LayerKind::kFullAttention), 21);
  EXPECT_EQ(m.layer_kinds[0], LayerKind::kSlidingAttention);
  EXPECT_EQ(m.layer_kinds[1], LayerKind::kFullAttention);
  EXPECT_EQ(m.sliding_window, 4096);
  EXPECT_EQ(m.num_kv_heads, 8);
  EXPECT_EQ(m.head_dim, 256) << "head_dim is given, not hidden 3584 / 16 heads = 224";
  EXPECT_TRUE(m.tie_word_embeddings) << "Gemma2Config ties the LM head by default";
  EXPECT_EQ(m.context_length, 8192);
}

TEST(ModelConfig, GraniteIsALlamaShapedDenseModel) {
  ModelShape m = load("ibm-granite/granite-3.3-8b-instruct");
  EXPECT_EQ(m.count_layers(LayerKind::kFullAttention), 40);
  EXPECT_EQ(m.num_kv_heads, 8);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_TRUE(m.tie_word_embeddings);
  EXPECT_EQ(m.context_length, 131072);
}

TEST(ModelConfig, PhiIsMultiHeadWithAnUngatedMlp) {
  ModelShape m = load("microsoft/phi-2");
  EXPECT_EQ(m.count_layers(LayerKind::kFullAttention), 32);
  EXPECT_EQ(m.num_kv_heads, 32) << "MHA: one KV head per query head";
  EXPECT_EQ(m.head_dim, 80) << "2560 / 32; partial rotary does not change the cached size";
  EXPECT_FALSE(m.gated_mlp);
  EXPECT_TRUE(m.attention_bias);
  EXPECT_FALSE(m.tie_word_embeddings);
  EXPECT_EQ(m.dtype, "float16");
  EXPECT_EQ(m.context_length, 2048);
}

TEST(ModelConfig, Phi4HasFullLayersAndNoWindow) {
  ModelShape m = load("microsoft/phi-4");
  EXPECT_EQ(m.count_layers(LayerKind::kFullAttention), 40);
  EXPECT_EQ(m.num_kv_heads, 10);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_TRUE(m.gated_mlp);
  EXPECT_EQ(m.context_length, 16384);
  EXPECT_EQ(m.model_sliding_window, 0);
}

TEST(ModelConfig, ASlidingWindowWithoutLayerTypesWindowsEveryLayerForVllm) {
  // A Phi-3 config with sliding_window and no layer_types: its layers are full attention in the
  // shape, and the window is the model-level one vLLM gives every layer (CacheConfig.
  // sliding_window; vLLM 0.34.0 builds 40 SlidingWindowSpec layers from such a phi-4 config).
  auto m = read_model_config(
      R"({"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 5120,
          "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 10,
          "intermediate_size": 17920, "vocab_size": 100352, "max_position_embeddings": 16384,
          "sliding_window": 16384})",
      "phi-4 dims with a window");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->count_layers(LayerKind::kFullAttention), 40);
  EXPECT_EQ(m->model_sliding_window, 16384);
}

TEST(ModelConfig, QwenSlidingWindowKeyWithoutUseSlidingWindowWindowsNothing) {
  // Qwen2.5 configs carry sliding_window 131072 with use_sliding_window false; transformers'
  // Qwen2Config drops the window then, so vLLM keeps every layer full.
  ModelShape m = load("Qwen/Qwen2.5-7B-Instruct");
  EXPECT_EQ(m.sliding_window, 131072);
  EXPECT_EQ(m.model_sliding_window, 0);
}

TEST(ModelConfig, Cohere2SlidingLayersSeeOneTokenMoreThanTheirWindow) {
  auto m = read_model_config(
      R"({"architectures": ["Cohere2ForCausalLM"], "model_type": "cohere2", "hidden_size": 8192,
          "num_hidden_layers": 4, "num_attention_heads": 64, "num_key_value_heads": 8,
          "head_dim": 128, "intermediate_size": 22528, "vocab_size": 256000,
          "sliding_window": 4096, "layer_types": ["sliding_attention", "sliding_attention",
          "sliding_attention", "full_attention"]})",
      "cohere2 dims");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->count_layers(LayerKind::kSlidingAttention), 3);
  EXPECT_EQ(m->sliding_window, 4097);
}

TEST(ModelConfig, ErnieMoeKeysAndListedSparseLayers) {
  auto m = read_model_config(
      R"({"architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe",
          "hidden_size": 2560, "num_hidden_layers": 4, "num_attention_heads": 20,
          "num_key_value_heads": 4, "intermediate_size": 12288, "vocab_size": 103424,
          "moe_num_experts": 64, "moe_k": 6, "moe_intermediate_size": 1536,
          "moe_num_shared_experts": 2, "moe_layer_start_index": 1,
          "mlp_layer_types": ["dense", "sparse", "dense", "sparse"]})",
      "ernie dims");
  ASSERT_TRUE(m) << m.message();
  ASSERT_TRUE(m->moe);
  EXPECT_EQ(m->moe->num_experts, 64);
  EXPECT_EQ(m->moe->experts_per_token, 6);
  EXPECT_EQ(m->moe->num_shared_experts, 2);
  EXPECT_EQ(m->moe->first_dense_layers, 1);
  // The listed layers win: layer 2 is dense although it is past the first dense layer.
  const WeightEstimate w = estimate_weights(*m, {1, true});
  const double dense_mlp = 3.0 * 2560 * 12288;
  const double experts = 3.0 * 2560 * 1536 * (64 + 2) + 2560.0 * 64;
  double mlp = 0;
  for (const WeightPart& p : w.parts) {
    if (p.name == "dense MLP" || p.name == "experts" || p.name == "shared experts" ||
        p.name == "router")
      mlp += p.params;
  }
  EXPECT_DOUBLE_EQ(mlp, 2 * dense_mlp + 2 * experts);
}

// Families without a bundled config: the inputs below carry only the dimensions the model cards
// and several independent copies agree on (not verbatim config.json files).
TEST(ModelConfig, Step3ListsItsMoeLayersAsCommaSeparatedText) {
  // vLLM models/step3_text.py: moe_layers_enum "4,5,..." (the layers with experts and the shared
  // expert), num_attention_groups KV heads, moe_top_k of moe_num_experts.
  const std::string base =
      R"({"architectures": ["Step3TextForCausalLM"], "model_type": "step3_text",
    "hidden_size": 256, "num_attention_heads": 4, "num_attention_groups": 1, "head_dim": 64,
    "share_q_dim": 128, "num_hidden_layers": 4, "vocab_size": 1000, "intermediate_size": 512,
    "moe_num_experts": 8, "moe_top_k": 3, "moe_intermediate_size": 64, "share_expert_dim": 64,
    "max_position_embeddings": 4096, )";
  auto m = read_model_config(base + R"("moe_layers_enum": "2,3"})", "test");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->num_kv_heads, 1);
  EXPECT_EQ(m->shared_q_dim, 128);
  ASSERT_TRUE(m->moe);
  EXPECT_EQ(m->moe->experts_per_token, 3);
  EXPECT_EQ(m->moe->shared_expert_intermediate, 64);
  EXPECT_EQ(m->moe->sparse_layers, (std::vector<bool>{false, false, true, true}));
  auto bad = read_model_config(base + R"("moe_layers_enum": "2,9"})", "test");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("moe_layers_enum lists '9', not a layer from 0 to 3"),
            std::string::npos)
      << bad.message();
}

TEST(ModelConfig, GemmaTiesEmbeddingsAndKeepsItsHeadDim) {
  auto m = read_model_config(
      R"({"architectures": ["GemmaForCausalLM"], "model_type": "gemma", "hidden_size": 3072,
          "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 16,
          "head_dim": 256, "intermediate_size": 24576, "vocab_size": 256000,
          "max_position_embeddings": 8192})",
      "gemma-7b dims");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->head_dim, 256) << "not 3072 / 16 = 192";
  EXPECT_TRUE(m->tie_word_embeddings) << "GemmaConfig's default";
  EXPECT_EQ(m->count_layers(LayerKind::kFullAttention), 28);
  // google/gemma-7b: 8.54B parameters.
  EXPECT_NEAR(estimate_weights(*m, {1, true}).total_params / 1e9, 8.54, 0.02);
}

TEST(ModelConfig, Qwen2MoeHasOneSharedExpertOfItsOwnWidth) {
  auto m = read_model_config(
      R"({"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe",
          "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
          "num_key_value_heads": 16, "intermediate_size": 5632, "moe_intermediate_size": 1408,
          "shared_expert_intermediate_size": 5632, "num_experts": 60, "num_experts_per_tok": 4,
          "decoder_sparse_step": 1, "vocab_size": 151936, "tie_word_embeddings": false,
          "max_position_embeddings": 8192})",
      "Qwen1.5-MoE-A2.7B dims");
  ASSERT_TRUE(m) << m.message();
  ASSERT_TRUE(m->moe);
  EXPECT_EQ(m->moe->num_experts, 60);
  EXPECT_EQ(m->moe->shared_expert_intermediate, 5632);
  EXPECT_EQ(m->moe->num_shared_experts, 0);
  EXPECT_TRUE(m->attention_bias);
  EXPECT_EQ(m->num_kv_heads, 16);
  // Qwen/Qwen1.5-MoE-A2.7B: 14.3B parameters.
  EXPECT_NEAR(estimate_weights(*m, {1, true}).total_params / 1e9, 14.3, 0.1);
}

TEST(ModelConfig, KimiVlReadsMlaFromItsTextConfig) {
  auto m = read_model_config(
      R"({"architectures": ["KimiVLForConditionalGeneration"], "model_type": "kimi_vl",
          "text_config": {"model_type": "deepseek_v3", "hidden_size": 2048,
            "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16,
            "intermediate_size": 11264, "moe_intermediate_size": 1408, "kv_lora_rank": 512,
            "q_lora_rank": null, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
            "v_head_dim": 128, "n_routed_experts": 64, "n_shared_experts": 2,
            "num_experts_per_tok": 6, "first_k_dense_replace": 1, "vocab_size": 163840}})",
      "Kimi-VL-A3B dims");
  ASSERT_TRUE(m) << m.message();
  EXPECT_TRUE(m->multimodal);
  EXPECT_EQ(m->text_prefix, "text_config.");
  EXPECT_EQ(m->count_layers(LayerKind::kMla), 27);
  ASSERT_TRUE(m->mla);
  EXPECT_EQ(m->mla->kv_lora_rank + m->mla->qk_rope_head_dim, 576);
  EXPECT_EQ(m->mla->q_lora_rank, 0);
  EXPECT_EQ(m->moe->first_dense_layers, 1);
}

TEST(ModelConfig, Mistral3ReadsItsTextConfig) {
  auto m = read_model_config(
      R"({"architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3",
          "text_config": {"model_type": "mistral", "hidden_size": 5120, "num_hidden_layers": 40,
            "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
            "intermediate_size": 32768, "vocab_size": 131072, "max_position_embeddings": 131072},
          "vision_config": {"model_type": "pixtral", "hidden_size": 1024, "num_hidden_layers": 24,
            "intermediate_size": 4096}})",
      "Mistral-Small-3.1-24B dims");
  ASSERT_TRUE(m) << m.message();
  EXPECT_TRUE(m->multimodal);
  EXPECT_EQ(m->head_dim, 128) << "given; 5120 / 32 would be 160";
  EXPECT_EQ(m->num_kv_heads, 8);
  EXPECT_FALSE(m->tie_word_embeddings);
  EXPECT_EQ(m->context_length, 131072);
  // Mistral-Small-3.1-24B: 24B parameters with the Pixtral encoder.
  EXPECT_NEAR(estimate_weights(*m, {1, true}).total_params / 1e9, 24.0, 0.2);
}

TEST(ModelConfig, LocalPathsResolveToBundledConfigsByName) {
  EXPECT_EQ(resolve_bundled_id("/path/to/Qwen3-235B-A22B-FP8"), "Qwen/Qwen3-235B-A22B-FP8");
  EXPECT_EQ(resolve_bundled_id("qwen/qwen3-8b"), "Qwen/Qwen3-8B");
  EXPECT_EQ(resolve_bundled_id("/models/unknown-model"), "");
}

TEST(ModelConfig, MalformedJsonNamesTheFileAndByte) {
  auto m = read_model_config("{\"model_type\": \"llama\", ", "cfg.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("cfg.json"), std::string::npos);
  EXPECT_NE(m.message().find("not valid JSON"), std::string::npos) << m.message();
}

// A GLM-4-0414-shaped config (its published config.json keys, written here for the test) with an
// AutoRound quantization_config as Intel publishes them.
constexpr char kGlm4AutoRound[] = R"({
  "architectures": ["Glm4ForCausalLM"], "model_type": "glm4", "hidden_size": 4096,
  "intermediate_size": 13696, "num_hidden_layers": 40, "num_attention_heads": 32,
  "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 151552,
  "max_position_embeddings": 32768, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "attention_bias": true,
  "quantization_config": {"quant_method": "auto-round", "bits": 4, "group_size": 128,
                          "sym": true, "packing_format": "auto_round:auto_gptq"}})";

TEST(ModelConfig, GlmDenseWithAutoRoundIsAGptqShapedModel) {
  auto m = read_model_config(kGlm4AutoRound, "glm4.json");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->num_layers, 40);
  EXPECT_EQ(m->num_kv_heads, 2);
  EXPECT_EQ(m->quant.method, QuantMethod::kGptq);
  EXPECT_EQ(m->quant.weight_bits, 4);
  // By hand: 2 × 151552 × 4096 embedding/head + 40 × (q, k, v, o: 4096·(4096 + 2·256 + 4096)
  // + 3 · 4096 · 13696) = 9.40 B parameters.
  WeightEstimate w = estimate_weights(*m, {1, true});
  EXPECT_NEAR(w.total_params / 1e9, 9.40, 0.02);
  // int4 linear layers plus group scales: far below the bf16 18.8 GB.
  EXPECT_LT(w.bytes_per_gpu / kGiB, 7.0);
}

TEST(ModelConfig, UnknownArchitectureNamesTheField) {
  auto m = read_model_config(R"({"model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"]})",
                             "cfg.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("model_type 'zamba2'"), std::string::npos) << m.message();
  // What the engine's own code builds it with (data/layer-kinds.tsv) and the nearest kind.
  EXPECT_NE(m.message().find("vLLM builds it with 54 mamba + 9 full layers"), std::string::npos)
      << m.message();
  EXPECT_NE(m.message().find("nearest modelled kind: mamba_hybrid"), std::string::npos)
      << m.message();
}

TEST(ModelConfig, AZeroSlidingWindowPatternIsAnErrorNotADivisionByZero) {
  // Found by model_config_fuzz (a Cohere 2 MoE config mutated to "sliding_window_pattern": 0).
  auto m = read_model_config(
      R"({"architectures": ["Cohere2ForCausalLM"], "model_type": "cohere2", "hidden_size": 64,
          "num_hidden_layers": 4, "num_attention_heads": 4, "vocab_size": 100,
          "sliding_window": 16, "sliding_window_pattern": 0})",
      "cfg.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("sliding_window_pattern must be positive"), std::string::npos)
      << m.message();
}

TEST(ModelConfig, MissingFieldIsNamed) {
  auto m = read_model_config(
      R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64})", "cfg.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("num_attention_heads"), std::string::npos) << m.message();
}

TEST(ModelConfig, MistypedFieldIsAnErrorNotACrash) {
  auto m = read_model_config(
      R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 8,
          "vocab_size": 10, "tie_word_embeddings": "yes"})",
      "cfg.json");
  EXPECT_FALSE(m);
}

// Found by the model_config fuzzer: a context length no integer holds was converted anyway.
TEST(ModelConfig, AnImpossibleContextLengthIsAnError) {
  auto m = read_model_config(
      R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 8,
          "num_key_value_heads": 8, "intermediate_size": 128, "vocab_size": 10,
          "max_position_embeddings": 4e40})",
      "cfg.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("cfg.json: max_position_embeddings"), std::string::npos)
      << m.message();
  EXPECT_NE(m.message().find("is not a context length"), std::string::npos) << m.message();
}

// Found by the model_config fuzzer: nlohmann reports a number beyond any double as
// out_of_range, not as a parse error, and it escaped as an exception.
TEST(ModelConfig, ANumberNoDoubleHoldsIsAnError) {
  auto m =
      read_model_config(R"({"model_type": "llama", "num_hidden_layers": 1e51936})", "cfg.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("cfg.json: not valid JSON"), std::string::npos) << m.message();
}

TEST(WeightEstimate, Llama8bHas8BillionParameters) {
  WeightEstimate w = estimate_weights(load("meta-llama/Llama-3.1-8B-Instruct"), {1, true});
  EXPECT_NEAR(w.total_params / 1e9, 8.03, 0.05);
  EXPECT_NEAR(w.bytes_per_gpu / kGiB, 14.96, 0.05);
}

// Published parameter counts (model cards): gemma-2-9b 9.24B, granite-3.3-8b 8.17B, phi-2 2.78B,
// phi-4 14.7B.
TEST(WeightEstimate, Gemma2_9bHas9Point24BillionParameters) {
  WeightEstimate w = estimate_weights(load("google/gemma-2-9b-it"), {1, true});
  EXPECT_NEAR(w.total_params / 1e9, 9.24, 0.03);
}

TEST(WeightEstimate, Granite33_8bHas8Point17BillionParameters) {
  WeightEstimate w = estimate_weights(load("ibm-granite/granite-3.3-8b-instruct"), {1, true});
  EXPECT_NEAR(w.total_params / 1e9, 8.17, 0.03);
}

TEST(WeightEstimate, Phi2Has2Point78BillionParameters) {
  // A gated MLP would make it 3.6B.
  WeightEstimate w = estimate_weights(load("microsoft/phi-2"), {1, true});
  EXPECT_NEAR(w.total_params / 1e9, 2.78, 0.02);
  // fp16 weights; the v0.19 sweep log says "Model loading took 5.19 GiB".
  EXPECT_NEAR(w.bytes_per_gpu / kGiB, 5.19, 0.05);
}

TEST(WeightEstimate, Phi4Has14Point7BillionParameters) {
  WeightEstimate w = estimate_weights(load("microsoft/phi-4"), {1, true});
  EXPECT_NEAR(w.total_params / 1e9, 14.7, 0.1);
}

TEST(WeightEstimate, DeepSeekV3Has671BillionParameters) {
  WeightEstimate w = estimate_weights(load("deepseek-ai/DeepSeek-V3"), {8, true});
  EXPECT_NEAR(w.total_params / 1e9, 671, 5);
  // fp8 blocks: about one byte per parameter, split over 8 GPUs.
  EXPECT_NEAR(w.bytes_per_gpu / 1e9, 671.0 / 8 * 1.0, 6);
}

TEST(WeightEstimate, Qwen35Fp8At4GpusIsAbout31Gb) {
  // docs/research/sglang-capacity.md §12.4: about 116 B fp8 expert parameters + 6 B others ≈ 31–32
  // GB per rank.
  WeightEstimate w = estimate_weights(load("Qwen/Qwen3.5-122B-A10B-FP8"), {4, true});
  EXPECT_NEAR(w.total_params / 1e9, 122, 4);
  EXPECT_NEAR(w.bytes_per_gpu / 1e9, 31.5, 2);
  EXPECT_GT(w.draft_bytes_per_gpu, 0);
}

}  // namespace
}  // namespace servescope

namespace servescope {
namespace {

TEST(ModelConfig, AModelTypesOwnKeySpellingsAreReadThroughTransformersAliases) {
  // GPT-2 saves n_embd, n_head, n_layer, n_positions (GPT2Config.attribute_map,
  // data/config-key-aliases.tsv) and leaves n_inner null for 4 × hidden.
  auto m = read_model_config(
      R"({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 768,
          "n_head": 12, "n_layer": 12, "n_positions": 1024, "n_inner": null,
          "vocab_size": 50257})",
      "gpt2.json");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->hidden_size, 768);
  EXPECT_EQ(m->num_layers, 12);
  EXPECT_EQ(m->num_attention_heads, 12);
  EXPECT_EQ(m->intermediate_size, 4 * 768);
  EXPECT_FALSE(m->gated_mlp);
  EXPECT_EQ(m->position_table, 1024);
  // 124 M parameters: embeddings, positions, 12 × (4h² attention + 8h² MLP).
  const WeightEstimate w = estimate_weights(*m, {1, true});
  EXPECT_NEAR(w.total_params / 1e6, 124.0, 1.0);
}

TEST(ModelConfig, FalconsMultiQueryKeepsOneKvHead) {
  const char* base =
      R"({"architectures": ["FalconForCausalLM"], "model_type": "falcon", "hidden_size": 4544,
          "num_attention_heads": 71, "num_hidden_layers": 32, "vocab_size": 65024, )";
  auto mq = read_model_config(std::string(base) + R"("multi_query": true})", "f.json");
  ASSERT_TRUE(mq) << mq.message();
  EXPECT_EQ(mq->num_kv_heads, 1);
  auto grouped = read_model_config(
      std::string(base) + R"("multi_query": true, "new_decoder_architecture": true,
                             "num_kv_heads": 8})",
      "f40.json");
  ASSERT_TRUE(grouped) << grouped.message();
  EXPECT_EQ(grouped->num_kv_heads, 8);
}

}  // namespace
}  // namespace servescope

namespace servescope {
namespace {

// A vision_config that leaves fields out (save_pretrained writes only what differs from the class
// defaults) reads them from transformers' vision config class: gemma4_vision's 768 wide, 16 deep;
// a field the file states wins.
TEST(ModelConfig, AVisionConfigsLeftOutFieldsAreItsClassDefaults) {
  const char* config = R"({"architectures": ["Gemma4ForConditionalGeneration"],
    "model_type": "gemma4", "vision_config": {"model_type": "gemma4_vision", "patch_size": 14},
    "text_config": {"model_type": "gemma4_text", "hidden_size": 1024, "num_hidden_layers": 4,
      "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 128,
      "intermediate_size": 4096, "vocab_size": 1000, "sliding_window": 512,
      "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention",
                      "full_attention"]}})";
  auto shape = read_model_config(config, "gemma4.json");
  ASSERT_TRUE(shape) << shape.message();
  EXPECT_EQ(shape->vision.hidden_size.value_or(0), 768);
  EXPECT_EQ(shape->vision.depth, 16);
  EXPECT_EQ(shape->vision.intermediate_size, 3072);
  EXPECT_EQ(shape->vision.patch_size, 14);  // stated: not the class's 16
}

// A Whisper-style audio_config (data/audio-encoders.tsv) is read for the encoder's weights; an
// encoder type the table does not name is left uncounted, not guessed.
TEST(ModelConfig, AWhisperStyleAudioEncoderIsReadAndAnUnknownOneIsNot) {
  std::string config = R"({"architectures": ["Qwen2AudioForConditionalGeneration"],
    "model_type": "qwen2_audio", "audio_config": {"model_type": "qwen2_audio_encoder",
      "d_model": 1280, "encoder_layers": 32, "encoder_ffn_dim": 5120, "num_mel_bins": 128,
      "max_source_positions": 1500},
    "text_config": {"model_type": "qwen2", "hidden_size": 4096, "num_hidden_layers": 2,
      "num_attention_heads": 32, "num_key_value_heads": 32, "intermediate_size": 11008,
      "vocab_size": 1000}})";
  auto shape = read_model_config(config, "qwen2-audio.json");
  ASSERT_TRUE(shape) << shape.message();
  EXPECT_TRUE(shape->audio.present);
  EXPECT_EQ(shape->audio.num_layers, 32);
  EXPECT_EQ(shape->audio.max_source_positions, 1500);
  EXPECT_EQ(shape->audio.projector, "linear");
  const std::string unknown = "qwen2_audio_encoder\"";
  config.replace(config.find(unknown), unknown.size(), "some_conformer\"");
  shape = read_model_config(config, "other-audio.json");
  ASSERT_TRUE(shape) << shape.message();
  EXPECT_FALSE(shape->audio.present);
}

}  // namespace
}  // namespace servescope
