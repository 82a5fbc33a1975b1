// check reads a vLLM 0.34 startup log of the extensible KV cache (V2.9): the capacity line, the
// 0.34 memory summary, 'Memory after warmup' (every input of the measurement), 'Extended KV
// cache to' and the one 'GPU KV cache size' line after warmup. The lines are written from 0.34.0's
// own format strings: v1/worker/gpu_worker.py:796 and :1153, v1/worker/extensible_kv_cache.py:693
// and :536, v1/core/kv_cache_utils.py:1157; the figures are those the engine's formula gives for
// one H100 start (F0 78.68, weights 14.99, non-torch 0.25, graphs 0.71 GiB; block 64).
#include <gtest/gtest.h>

#include "tests/check_fixture.h"

namespace servescope {
namespace {

constexpr char kLog034[] =
    "(APIServer pid=1) INFO 11-20 10:00:00 [api_server.py:1990] vLLM API server version 0.34.0\n"
    "(APIServer pid=1) INFO 11-20 10:00:00 [utils.py:326] non-default args: {'model_tag': "
    "'meta-llama/Llama-3.1-8B-Instruct', 'model': 'meta-llama/Llama-3.1-8B-Instruct'}\n"
    "(EngineCore pid=2) INFO 11-20 10:00:40 [model_runner.py:760] Model loading took 14.99 GiB "
    "and 5.10 seconds\n"
    "(EngineCore pid=2) INFO 11-20 10:00:52 [gpu_worker.py:796] Available KV cache memory: "
    "62.06 GiB\n"
    "(EngineCore pid=2) INFO 11-20 10:01:30 [gpu_worker.py:1175] Free memory on device "
    "(78.68/79.19 GiB) on startup. Desired GPU memory utilization is (1.0, 79.19 GiB). Actual "
    "usage is 15.24 GiB for consumed memory (weights + non-torch), 1.89 GiB for peak activation, "
    "and 0.71 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with "
    "`--kv-cache-memory=66635040768` (62.06 GiB) to fit into requested memory, or "
    "`--kv-cache-memory=66635040768` (62.06 GiB) to fully utilize gpu memory. Current kv cache "
    "memory in use is 62.06 GiB.\n"
    "(EngineCore pid=2) INFO 11-20 10:01:31 [extensible_kv_cache.py:693] Memory after warmup: "
    "62.6 GiB free, 0.08 GiB committed to the KV cache, 1.89 GiB kept for transient activations "
    "(1.89 GiB allocated at peak, 1.6 GiB of torch reservation growth); 7592 KV cache blocks "
    "(59.31 GiB) fit within the requested 79.19 GiB. Torch may reserve up to 20.0 GiB.\n"
    "(EngineCore pid=2) INFO 11-20 10:01:31 [extensible_kv_cache.py:536] Extended KV cache to "
    "7592 blocks (59.31 GiB).\n"
    "(EngineCore pid=2) INFO 11-20 10:01:31 [kv_cache_utils.py:1175] GPU KV cache size: 485,888 "
    "tokens, Maximum concurrency for 131,072 tokens per request: 3.71x\n";

CheckResult checked(const std::string& text) {
  CheckOptions o;
  o.gpu = "h100-sxm";
  return testing::check_text(text, o);
}

const Comparison* find(const CheckResult& r, const std::string& field) {
  return testing::comparison_of(r, field);
}

TEST(CheckExtensibleKv, TheMeasuredBlocksAndTheSizeAfterWarmupMatch) {
  const CheckResult r = checked(kLog034);
  for (const char* field : {"num_gpu_blocks", "gpu_kv_cache_size_tokens", "maximum_concurrency"}) {
    const Comparison* c = find(r, field);
    ASSERT_NE(c, nullptr) << field;
    EXPECT_TRUE(c->checked) << field << ": " << c->needs;
    EXPECT_TRUE(c->match) << field << ": logged " << c->logged.to_string() << ", predicted "
                          << c->predicted.to_string();
  }
}

TEST(CheckExtensibleKv, OneMoreGibibyteOfTransientsIsSeenAsAMismatch) {
  // The same log with a peak 1 GiB larger than the engine's: the blocks no longer agree.
  std::string text = kLog034;
  const std::string from = "(1.89 GiB allocated at peak";
  text.replace(text.find(from), from.size(), "(2.89 GiB allocated at peak");
  const std::string kept = "1.89 GiB kept";
  text.replace(text.find(kept), kept.size(), "2.89 GiB kept");
  const CheckResult r = checked(text);
  const Comparison* c = find(r, "num_gpu_blocks");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->match);
}

TEST(CheckExtensibleKv, TheRunTimeFallbackSizesTheCacheFromTheProfileAgain) {
  std::string text = kLog034;
  // vLLM 0.34.0 v1/executor/abstract.py: the WARNING that turns the cache off on WSL2.
  text.insert(text.find("(EngineCore pid=2) INFO 11-20 10:00:40"),
              "(EngineCore pid=2) WARNING 11-20 10:00:30 [abstract.py:170] Disabling the "
              "extensible KV cache: CUDA virtual memory management is unavailable (WSL2). The KV "
              "cache will be sized from profiling estimates instead of measured memory.\n");
  auto facts = read_log_text(text, "fallback.log");
  ASSERT_TRUE(facts);
  CheckOptions o;
  o.gpu = "h100-sxm";
  auto r = check_log(*facts, o);
  ASSERT_TRUE(r) << r.message();
  const Node* on = r->plan.graph.find("extensible_kv_cache");
  ASSERT_NE(on, nullptr);
  EXPECT_FALSE(on->value.as_bool());
}

}  // namespace
}  // namespace servescope
