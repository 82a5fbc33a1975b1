#include "engines/log_fields.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

Fact scan(std::string_view text) {
  Fact f;
  FactBuilder b(f);
  b.begin("t", 1);
  LogFieldScanner s;
  s.scan(text, b);
  b.finish();
  return f;
}

TEST(LogFields, NamesCarryTheirUnits) {
  EXPECT_EQ(LogFieldScanner::field_name("avail mem", "GB"), "avail_mem_gb");
  EXPECT_EQ(LogFieldScanner::field_name("#running-req", ""), "running_req");
  EXPECT_EQ(LogFieldScanner::field_name("gen throughput (token/s)", ""),
            "gen_throughput_tok_per_s");
  EXPECT_EQ(LogFieldScanner::field_name("Time elapsed", "s"), "elapsed_s");
  EXPECT_EQ(LogFieldScanner::field_name("cache hit rate", "%"), "cache_hit_rate_pct");
  EXPECT_EQ(LogFieldScanner::field_name("available_gpu_mem", "GB"), "available_gpu_mem_gb");
  EXPECT_EQ(LogFieldScanner::field_name("K size", "GB"), "k_size_gb");
}

TEST(LogFields, ReadsEqualsAndColonPairsWithUnits) {
  Fact f =
      scan(". type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=6.09 GB, mem usage=15.54 GB.");
  EXPECT_EQ(f.text("type"), "Qwen2ForCausalLM");
  EXPECT_EQ(f.text("dtype"), "torch.bfloat16");
  EXPECT_DOUBLE_EQ(*f.number("avail_mem_gb"), 6.09);
  EXPECT_DOUBLE_EQ(*f.number("mem_usage_gb"), 15.54);
  EXPECT_EQ(f.fields.size(), 4u);
}

TEST(LogFields, SentencesAndUnitsGluedToNumbers) {
  Fact f = scan(". Time elapsed: 7.23 s. avail mem=0.53 GB. mem usage=0.93 GB.");
  EXPECT_DOUBLE_EQ(*f.number("elapsed_s"), 7.23);
  EXPECT_DOUBLE_EQ(*f.number("avail_mem_gb"), 0.53);
  EXPECT_DOUBLE_EQ(*f.number("mem_usage_gb"), 0.93);
  Fact m = scan(
      ". max_mamba_cache_size: 85292, conv_state size: 4.88GB, ssm_state size: 0.00GB "
      "intermediate_ssm_state_cache size: 1.25GB intermediate_conv_window_cache size: 0.10GB ");
  EXPECT_EQ(m.integer("max_mamba_cache_size"), 85292);
  EXPECT_DOUBLE_EQ(*m.number("conv_state_size_gb"), 4.88);
  EXPECT_DOUBLE_EQ(*m.number("ssm_state_size_gb"), 0.0);
  EXPECT_DOUBLE_EQ(*m.number("intermediate_ssm_state_cache_size_gb"), 1.25);
  EXPECT_DOUBLE_EQ(*m.number("intermediate_conv_window_cache_size_gb"), 0.10);
}

TEST(LogFields, ListsBoolsPercentAndFreeText) {
  Fact f = scan(
      ". This can take up to several minutes. backend=full, num_tokens_per_req=1, bs=[1, 2, 4], "
      "avail mem=73.10 GB");
  EXPECT_EQ(f.text("backend"), "full");
  EXPECT_EQ(f.integer("num_tokens_per_req"), 1);
  EXPECT_EQ(*f.int_list("bs"), (IntList{1, 2, 4}));
  EXPECT_DOUBLE_EQ(*f.number("avail_mem_gb"), 73.10);
  Fact b = scan(", #cached-token: 0, cache hit rate: 12.50%, cuda graph: True, #queue-req: 3, ");
  EXPECT_DOUBLE_EQ(*b.number("cache_hit_rate_pct"), 12.5);
  EXPECT_TRUE(b.find("cuda_graph")->as_bool());
  EXPECT_EQ(b.integer("queue_req"), 3);
  EXPECT_EQ(b.integer("cached_token"), 0);
}

TEST(LogFields, AnIdentifierEndsALabel) {
  Fact f = scan("Initialize Pool with max_num_reqs=256 swa_size=423424 c4_size=132352");
  EXPECT_EQ(f.integer("max_num_reqs"), 256);
  EXPECT_EQ(f.integer("swa_size"), 423424);
  EXPECT_EQ(f.integer("c4_size"), 132352);
}

// Found by the log_parser fuzzer: a 19-digit number overflowed the fast decimal path. Past 15
// digits the exact slow path reads it; past int64 an integer is not taken as a number.
TEST(LogFields, NumbersLongerThanTheFastPathStillParse) {
  Fact f = scan(". avail mem=2044564484404324244 GB, mem usage=0.5 GB.");
  ASSERT_TRUE(f.integer("avail_mem_gb").has_value());
  EXPECT_EQ(*f.integer("avail_mem_gb"), 2044564484404324244);
  EXPECT_DOUBLE_EQ(*f.number("mem_usage_gb"), 0.5);
  Fact g = scan(". avail mem=2044564484404324244123 GB, mem usage=0.5 GB.");
  EXPECT_FALSE(g.number("avail_mem_gb").has_value());
  EXPECT_DOUBLE_EQ(*g.number("mem_usage_gb"), 0.5);
}

TEST(LogFields, LongRunsOfSeparatorsStayLinear) {
  // Half a million pairs with no boundary between them: each label is read from at most a
  // short stretch before its separator, so this is fast (it was quadratic).
  std::string text;
  for (int i = 0; i < 500000; ++i)
    text += "ab=";
  Fact f;
  FactBuilder b(f);
  b.begin("t", 1);
  LogFieldScanner s;
  EXPECT_GT(s.scan(text, b), 0u);
}

TEST(LogFields, BuilderReusesStorageAndDropsLeftovers) {
  Fact f;
  FactBuilder b(f);
  b.begin("a", 1);
  b.add("x", Value(1));
  b.add("y", Value(2));
  b.finish();
  b.begin("b", 2);
  b.add("z", Value(3));
  b.finish();
  ASSERT_EQ(f.fields.size(), 1u);
  EXPECT_EQ(f.kind, "b");
  EXPECT_EQ(f.integer("z"), 3);
  EXPECT_FALSE(f.has("x"));
}

}  // namespace
}  // namespace servescope
