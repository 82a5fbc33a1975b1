// Traces as bench --trace reads them: Mooncake's JSONL and Azure's CSV, the prompts their block
// ids share, and the points a replay makes.
#include "load/trace.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

TEST(Trace, ReadsMooncakeRowsRelativeToTheFirst) {
  const auto t = parse_trace(
      "{\"timestamp\": 27482, \"input_length\": 6955, \"output_length\": 52, \"hash_ids\": [46, "
      "47, 48]}\n\n"
      "{\"timestamp\": 30535, \"input_length\": 6472, \"output_length\": 26}\n",
      "t.jsonl");
  ASSERT_TRUE(t) << t.message();
  EXPECT_EQ(t->format, "Mooncake JSONL");
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_DOUBLE_EQ(t->rows[0].at_s, 0);
  EXPECT_DOUBLE_EQ(t->rows[1].at_s, 3.053);
  EXPECT_EQ(t->rows[0].input_tokens, 6955);
  EXPECT_EQ(t->rows[0].output_tokens, 52);
  EXPECT_EQ(t->rows[0].block_ids, (std::vector<std::uint64_t>{46, 47, 48}));
  EXPECT_TRUE(t->rows[1].block_ids.empty());
}

TEST(Trace, ReadsAzureCsvTimestamps) {
  const auto t = parse_trace(
      "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
      "2023-11-16 18:15:46.6805900,374,44\r\n"
      "2023-11-16 18:15:50.9951690,396,109\r\n"
      "2023-11-17 00:00:00,10,1\r\n",
      "azure.csv");
  ASSERT_TRUE(t) << t.message();
  EXPECT_EQ(t->format, "Azure CSV");
  ASSERT_EQ(t->rows.size(), 3u);
  EXPECT_NEAR(t->rows[1].at_s, 4.314579, 1e-6);
  // Across midnight: 5 h 44 min 13.31941 s after the first.
  EXPECT_NEAR(t->rows[2].at_s, 5 * 3600 + 44 * 60 + 13.31941, 1e-6);
  EXPECT_EQ(t->rows[1].input_tokens, 396);
  EXPECT_EQ(t->rows[1].output_tokens, 109);
}

TEST(Trace, BadRowsAreNamedByLine) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"{\"timestamp\": 0, \"input_length\": 5}\n", "t:1: \"output_length\" is missing"},
      {"{\"timestamp\": 5, \"input_length\": 5, \"output_length\": 1}\n"
       "{\"timestamp\": 4, \"input_length\": 5, \"output_length\": 1}\n",
       "t:2: the timestamp goes back"},
      {"{\"timestamp\": 0, \"input_length\": 0, \"output_length\": 1}\n", "t:1: input and output"},
      {"{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [-1]}\n",
       "t:1: \"hash_ids\" holds"},
      {"{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1}\nnot json\n",
       "t:2: not a JSON object"},
      {"time,in,out\n1,2,3\n", "t:1: a CSV trace needs the columns"},
      {"TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,1,1\n", "t:2: TIMESTAMP \"yesterday\""},
      {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1.5,1\n",
       "t:2: ContextTokens and GeneratedTokens"},
      {"TIMESTAMP,ContextTokens,GeneratedTokens\n", "t: the file holds no requests"},
      {"  \n", "t: the file holds no requests"},
  };
  for (const Case& c : cases) {
    const auto t = parse_trace(c.text, "t");
    ASSERT_FALSE(t) << c.text;
    EXPECT_NE(t.message().find(std::string("--trace ") + c.says), std::string::npos) << t.message();
  }
}

TEST(Trace, RowsNamingABlockShareItsTokensWithinAReplayOnly) {
  const auto t = parse_trace(
      "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 4, \"hash_ids\": [1, 2]}\n"
      "{\"timestamp\": 10, \"input_length\": 700, \"output_length\": 4, \"hash_ids\": [1, 3]}\n"
      "{\"timestamp\": 20, \"input_length\": 100, \"output_length\": 4}\n",
      "t");
  ASSERT_TRUE(t) << t.message();
  const auto first = trace_prompts(*t, 3, 0, 7, true);
  ASSERT_EQ(first.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(static_cast<std::int64_t>(first[i].token_ids.size()), t->rows[i].input_tokens);
  const auto block = [](const PromptItem& p, std::size_t from, std::size_t to) {
    return std::vector<std::int32_t>(p.token_ids.begin() + static_cast<std::ptrdiff_t>(from),
                                     p.token_ids.begin() + static_cast<std::ptrdiff_t>(to));
  };
  EXPECT_EQ(block(first[0], 0, 512), block(first[1], 0, 512));      // block 1
  EXPECT_NE(block(first[0], 512, 600), block(first[1], 512, 600));  // blocks 2 and 3
  // Another replay (the next point) gives block 1 other tokens.
  const auto second = trace_prompts(*t, 3, 1, 7, true);
  EXPECT_NE(block(first[0], 0, 512), block(second[0], 0, 512));
  EXPECT_EQ(block(second[0], 0, 512), block(second[1], 0, 512));
  EXPECT_EQ(first[1].output_tokens, 4);
}

TEST(Trace, PointsReplayTheRowsAtEachSpeed) {
  const auto t = parse_trace(
      "{\"timestamp\": 1000, \"input_length\": 5, \"output_length\": 1}\n"
      "{\"timestamp\": 2000, \"input_length\": 5, \"output_length\": 1}\n"
      "{\"timestamp\": 5000, \"input_length\": 5, \"output_length\": 1}\n",
      "t");
  ASSERT_TRUE(t) << t.message();
  PointPlan base;
  base.concurrency = 4;
  base.warmup = 3;
  const auto points = trace_points(*t, {1, 2}, 3, base);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_FALSE(points[0].closed_loop);
  EXPECT_EQ(points[0].concurrency, 4);  // a cap, kept
  EXPECT_EQ(points[0].warmup, 0);
  EXPECT_EQ(points[1].arrivals_s, (std::vector<double>{0, 0.5, 2}));
  EXPECT_DOUBLE_EQ(points[0].rate, 0.5);  // 2 gaps over 4 s
  EXPECT_DOUBLE_EQ(points[1].rate, 1.0);
  EXPECT_EQ(points[1].arrival_label, "trace ×2");
  EXPECT_EQ(trace_points(*t, {1}, 2, base)[0].arrivals_s, (std::vector<double>{0, 1}));
}

}  // namespace
}  // namespace servescope
