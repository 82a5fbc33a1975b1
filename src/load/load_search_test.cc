// The verdicts --find-max settles a load with: an order-statistic interval on a percentile and
// a Wilson interval on attainment; a failed request counts as unbounded latency.
#include "load/load_search.h"

#include <gtest/gtest.h>

#include "load/slo.h"

namespace servescope {
namespace {

std::vector<BenchRequestRow> rows_with_ttft(const std::vector<double>& ttft) {
  std::vector<BenchRequestRow> rows;
  for (double t : ttft) {
    BenchRequestRow r;
    r.ttft_ms = t;
    r.e2e_ms = t + 100;
    rows.push_back(r);
  }
  return rows;
}

TEST(LoadSearch, APercentileFarFromTheLimitIsSettledANearOneIsNot) {
  std::vector<double> ttft;
  for (int i = 0; i < 200; ++i)
    ttft.push_back(10 + i * 0.1);  // 10.0 … 29.9 ms
  const auto rows = rows_with_ttft(ttft);
  auto far = judge_objectives(rows, *parse_slo("ttft_p50:100ms"), 0.99);
  ASSERT_EQ(far.size(), 1u);
  EXPECT_TRUE(far[0].met);
  EXPECT_TRUE(far[0].settled);
  EXPECT_DOUBLE_EQ(far[0].estimate, 19.9);  // the 100th of 200
  // The p50's 95% interval spans ranks 100 ∓ 13.9: a limit inside it is not settled.
  auto near = judge_objectives(rows, *parse_slo("ttft_p50:20ms"), 0.99);
  EXPECT_TRUE(near[0].met);
  EXPECT_FALSE(near[0].settled);
  EXPECT_LT(near[0].low, 20);
  EXPECT_GT(near[0].high, 20);
  // A p99 of 200 samples has no upper bound inside the sample: a pass cannot be settled.
  auto tail = judge_objectives(rows, *parse_slo("ttft_p99:1000ms"), 0.99);
  EXPECT_TRUE(tail[0].met);
  EXPECT_FALSE(tail[0].settled);
}

TEST(LoadSearch, AttainmentUsesWilsonAndFailedRequestsMiss) {
  auto rows = rows_with_ttft(std::vector<double>(100, 10));
  for (int i = 0; i < 10; ++i)
    rows[static_cast<std::size_t>(i)].error = "timeout";
  auto v = judge_objectives(rows, *parse_slo("ttft:50ms"), 0.8);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_DOUBLE_EQ(v[0].estimate, 0.9);
  EXPECT_TRUE(v[0].met);
  EXPECT_TRUE(v[0].settled);  // Wilson 95% of 90/100 is 0.826–0.945, above 0.8
  EXPECT_NEAR(v[0].low, 0.826, 0.002);
  auto strict = judge_objectives(rows, *parse_slo("ttft:50ms"), 0.95);
  EXPECT_FALSE(strict[0].met);
  EXPECT_TRUE(strict[0].settled);  // 0.945 < 0.95
}

}  // namespace
}  // namespace servescope
