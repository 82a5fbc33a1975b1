// R2.10–R2.11: the attention backend and page size SGLang resolves, per release. Each case is a
// launch recorded by the engine oracle (tests/oracle/sglang-RELEASE.jsonl, case number cited).
#include <gtest/gtest.h>

#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

struct Resolved {
  std::string backend;
  double page = 0;
};

Resolved resolve(const std::string& release, const std::string& gpu, const std::string& args) {
  PlanRequest r;
  r.engine = "sglang@" + release;
  r.gpu = gpu;
  r.command = "python -m sglang.launch_server " + args;
  const Plan p = plan_of(r);
  return {text(p, "attention_backend.resolved"), num(p, "page_size.resolved")};
}

// overrides.py::_qwen3_5_hybrid_overrides (0.5.16) vs ServerArgs._handle_mamba_radix_cache
// (0.5.9, sm100_default_attention_backend="triton").
TEST(AttentionBackend, HybridModelOnSm100DependsOnTheRelease) {
  const std::string args =
      "--model-path Qwen/Qwen3.5-35B-A3B --tp-size 2 --page-size 32 --kv-cache-dtype fp8_e4m3 "
      "--disable-radix-cache";
  Resolved old = resolve("0.5.9", "b200", args);  // 0.5.9 case 929
  EXPECT_EQ(old.backend, "triton");
  EXPECT_EQ(old.page, 32) << "0.5.9 leaves a typed page size alone";
  // 0.5.16 case 1738: the declared page size 64 wins over the typed one.
  Resolved now =
      resolve("0.5.16", "b200",
              "--model-path Qwen/Qwen3.5-9B --tp-size 8 --max-prefill-tokens 16384 --page-size 16 "
              "--disable-radix-cache");
  EXPECT_EQ(now.backend, "trtllm_mha");
  EXPECT_EQ(now.page, 64);
}

// ServerArgs._get_default_attn_backend + utils/common.py::is_no_spec_infer_or_topk_one: the
// typed topk and page size decide, before the speculative hook fills its defaults.
TEST(AttentionBackend, SpeculativeDecodingReadsTheTypedTopkAndPage) {
  // 0.5.16 case 1716: Hopper, topk 1 with page 16 → not fa3.
  Resolved hopper =
      resolve("0.5.16", "h200",
              "--model-path Qwen/Qwen3-Next-80B-A3B-Thinking --tp-size 8 --page-size 16 "
              "--speculative-algorithm NEXTN --speculative-num-steps 4 --speculative-eagle-topk 1 "
              "--speculative-num-draft-tokens 5");
  EXPECT_EQ(hopper.backend, "flashinfer");
  EXPECT_EQ(hopper.page, 16);
  // 0.5.9 case 1611: SM100 with EAGLE but no typed topk → not trtllm_mha.
  Resolved sm100 =
      resolve("0.5.9", "b200",
              "--model-path meta-llama/Llama-3.1-8B-Instruct --tp-size 1 --chunked-prefill-size "
              "16384 --page-size 64 --speculative-algorithm EAGLE --speculative-draft-model-path "
              "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(sm100.backend, "flashinfer");
  EXPECT_EQ(sm100.page, 64);
}

// overrides.py::_deepseek_family_overrides, _gpt_oss_overrides, _mla_backend_page_constraints.
TEST(AttentionBackend, ModelOverridesAndTheirPageSizes) {
  Resolved v3 = resolve("0.5.16", "b200",
                        "--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --chunked-prefill-size "
                        "4096 --context-length 131072 --disable-radix-cache");  // case 1107
  EXPECT_EQ(v3.backend, "trtllm_mla");
  EXPECT_EQ(v3.page, 64);
  Resolved v2 = resolve("0.5.16", "b200", "--model-path deepseek-ai/DeepSeek-V2-Lite --tp-size 1");
  EXPECT_EQ(v2.backend, "flashinfer") << "case 1443: MLA outside the V3 family";
  EXPECT_EQ(v2.page, 1);
  Resolved oss = resolve("0.5.16", "b200",
                         "--model-path openai/gpt-oss-20b --tp-size 8 --max-running-requests 256");
  EXPECT_EQ(oss.backend, "trtllm_mha");  // case 485
  EXPECT_EQ(oss.page, 64);
  Resolved oss_a100 = resolve("0.5.16", "a100-80gb",
                              "--model-path openai/gpt-oss-20b --tp-size 4 --dp-size 2 "
                              "--chunked-prefill-size 16384 --max-running-requests 512");
  EXPECT_EQ(oss_a100.backend, "triton") << "attention sinks: no flashinfer";
  EXPECT_EQ(oss_a100.page, 1);
  // 0.5.16 case 1758: a typed trtllm_mha keeps a supported page size.
  Resolved typed = resolve("0.5.16", "b300",
                           "--model-path mistralai/Mistral-7B-Instruct-v0.3 --tp-size 8 "
                           "--page-size 32 --disable-radix-cache --attention-backend trtllm_mha");
  EXPECT_EQ(typed.backend, "trtllm_mha");
  EXPECT_EQ(typed.page, 32);
}

}  // namespace
}  // namespace servescope::testing
