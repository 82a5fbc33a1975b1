// DeepSeek Sparse Attention on vLLM 0.34.0: the indexer's key cache beside each MLA layer, the
// sparse backend per GPU and the KV format it serves (rules V3.2b, V3.2c, V8.2; sources in
// attention.cc and kv_spec.cc).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

// DeepSeek-V3.2-Exp's published shape (tools/engine-sync/layout_configs.json's patches), with
// the layer count cut to 4 so a plan's weights fit one GPU.
std::string sparse_config(const std::string& model_type, const std::string& architecture) {
  const auto path = std::filesystem::temp_directory_path() /
                    // One file per test: ctest runs the tests of this file in parallel.
                    ("servescope-sparse-mla-" + model_type + "-" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json");
  std::ofstream(path) << R"({"architectures": [")" << architecture << R"("], "model_type": ")"
                      << model_type << R"(",
    "hidden_size": 7168, "num_hidden_layers": 4, "num_attention_heads": 128,
    "num_key_value_heads": 128, "vocab_size": 129280, "intermediate_size": 18432,
    "moe_intermediate_size": 2048, "n_routed_experts": 8, "n_shared_experts": 1,
    "num_experts_per_tok": 2, "first_k_dense_replace": 1, "kv_lora_rank": 512,
    "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
    "index_topk": 2048, "index_n_heads": 64, "index_head_dim": 128,
    "max_position_embeddings": 8192, "torch_dtype": "bfloat16"})";
  return path.string();
}

Plan plan_on(const std::string& gpu, const std::string& flags,
             const std::string& model_type = "deepseek_v32",
             const std::string& arch = "DeepseekV32ForCausalLM") {
  VllmRun r;
  r.engine = "vllm@0.34.0";
  r.gpu = gpu;
  r.model = sparse_config(model_type, arch);
  r.command = "vllm serve " + r.model + " --max-model-len 8192 " + flags;
  r.kv_memory = 10;
  return vllm_plan(r);
}

TEST(VllmSparseMla, EachLayerKeepsAnIndexerKeyCacheBesideItsLatent) {
  const Plan p = plan_on("h100-sxm", "");
  EXPECT_EQ(text_of(p, "attention_backend"), "FLASH_ATTN_MLA_SPARSE");
  EXPECT_EQ(text_of(p, "kv_cache_dtype"), "bfloat16");
  EXPECT_EQ(text_of(p, "kv_layers"), "4 mla + 4 mla_indexer");
  EXPECT_EQ(value_of(p, "kv_bytes_per_token.mla"), 576 * 2);
  // 128 fp8 elements and one float32 scale per 128 (DeepseekV32IndexerCache).
  EXPECT_EQ(value_of(p, "kv_bytes_per_token.mla_indexer"), 132);
  // One group whose page is the sum of both kinds' pages (UniformTypeKVCacheSpecs).
  EXPECT_EQ(value_of(p, "kv_bytes_per_token"), 4 * (1152 + 132));
}

TEST(VllmSparseMla, AnFp8CacheTakesThePackedDeepSeekRowsOnFlashMlaSparse) {
  const Plan hopper = plan_on("h100-sxm", "--kv-cache-dtype fp8");
  EXPECT_EQ(text_of(hopper, "attention_backend"), "FLASHMLA_SPARSE");
  EXPECT_EQ(text_of(hopper, "kv_cache_dtype"), "fp8_ds_mla");
  EXPECT_EQ(value_of(hopper, "kv_bytes_per_token.mla"), 656);
  // On SM 10.x FlashInfer's sparse backend is preferred for fp8 and keeps plain e4m3 rows.
  const Plan blackwell = plan_on("b200", "--kv-cache-dtype fp8");
  EXPECT_EQ(text_of(blackwell, "attention_backend"), "FLASHINFER_MLA_SPARSE");
  EXPECT_EQ(text_of(blackwell, "kv_cache_dtype"), "fp8_e4m3");
  EXPECT_EQ(value_of(blackwell, "kv_bytes_per_token.mla"), 576);
}

TEST(VllmSparseMla, Sm120ServesEvenAnAutoCacheAsPackedFp8) {
  const Plan p = plan_on("rtx-pro-6000", "");
  EXPECT_EQ(text_of(p, "attention_backend"), "FLASHINFER_MLA_SPARSE_SM120");
  EXPECT_EQ(text_of(p, "kv_cache_dtype"), "fp8_ds_mla");
  EXPECT_EQ(value_of(p, "kv_bytes_per_token.mla"), 656);
}

TEST(VllmSparseMla, Glm5TakesAnFp8CacheOnSm10OnlyWhenAuto) {
  const Plan b200 = plan_on("b200", "", "glm_moe_dsa", "GlmMoeDsaForCausalLM");
  EXPECT_EQ(text_of(b200, "kv_cache_dtype"), "fp8_e4m3");
  EXPECT_EQ(value_of(b200, "kv_bytes_per_token.mla"), 576);
  const Plan typed =
      plan_on("b200", "--kv-cache-dtype bfloat16", "glm_moe_dsa", "GlmMoeDsaForCausalLM");
  EXPECT_EQ(text_of(typed, "kv_cache_dtype"), "bfloat16");
  const Plan h100 = plan_on("h100-sxm", "", "glm_moe_dsa", "GlmMoeDsaForCausalLM");
  EXPECT_EQ(text_of(h100, "kv_cache_dtype"), "bfloat16");
}

TEST(VllmSparseMla, MtpDrafterLayersCarryTheirOwnIndexer) {
  const Plan p = plan_on("h100-sxm", R"(--speculative-config '{"method": "deepseek_mtp", )"
                                     R"("num_speculative_tokens": 1}')");
  EXPECT_EQ(text_of(p, "kv_layers"), "5 mla + 5 mla_indexer");
}

TEST(VllmSparseMla, TheIndexerWeighsOnEveryRank) {
  const Plan tp1 = plan_on("h100-sxm", "");
  const Plan tp2 = plan_on("h100-sxm", "--tensor-parallel-size 2");
  // Replicated: the indexer's wq_b alone is 1536 × 64 × 128 × 2 bytes per layer on each rank.
  const double replicated = 4 * (1536.0 * 64 * 128 + 7168.0 * (128 + 64)) * 2;
  EXPECT_GT(value_of(tp2, "weights_gib") * 1024 * 1024 * 1024, replicated);
  EXPECT_GT(value_of(tp1, "weights_gib"), value_of(tp2, "weights_gib"));
}

}  // namespace
}  // namespace servescope::testing
