// --slo parsing: per-request and percentile objectives, normalized; bad items named.
#include "load/slo.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

TEST(Slo, ParsesPerRequestAndPercentileObjectives) {
  auto s = parse_slo("ttft:500ms,tpot:0.05s,e2e:30s,ttft_p99:500ms,tpot_p999:80ms");
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(s->size(), 5u);
  EXPECT_EQ((*s)[0].text, "ttft:500ms");
  EXPECT_EQ((*s)[1].limit_ms, 50);
  EXPECT_EQ((*s)[1].text, "tpot:50ms");
  EXPECT_EQ((*s)[2].limit_ms, 30000);
  EXPECT_EQ((*s)[3].percentile, 99);
  EXPECT_EQ((*s)[3].metric, "ttft");
  EXPECT_EQ((*s)[4].percentile, 999);
}

TEST(Slo, BadItemsAreNamed) {
  for (const char* bad :
       {"ttft", "ttft:500", "ttft:-1ms", "itl:5ms", "ttft_p42:5ms", "ttft:fast"}) {
    auto s = parse_slo(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.message().find("--slo"), std::string::npos) << s.message();
  }
}

TEST(Slo, AFailedRequestMeetsNothingAndOneTokenHasNoTpot) {
  auto objectives = parse_slo("ttft:100ms,tpot:10ms");
  ASSERT_TRUE(objectives);
  std::vector<RequestRecord> records(3);
  // Met: TTFT 50 ms, 11 tokens over 90 ms (9 ms per token).
  records[0].sent = 0;
  records[0].first_token = 0.05;
  records[0].last_token = 0.14;
  records[0].done = 0.14;
  records[0].output_tokens = 11;
  // One output token: no TPOT, judged on TTFT alone (met).
  records[1].sent = 0;
  records[1].first_token = 0.02;
  records[1].last_token = 0.02;
  records[1].done = 0.02;
  records[1].output_tokens = 1;
  // Failed.
  records[2].sent = 0;
  records[2].done = 0.5;
  records[2].error = ErrorKind::kTimeout;
  BenchPoint point;
  point.duration_s = 2;
  PointTally tally(*objectives);
  for (const RequestRecord& rec : records)
    tally.add(rec);
  const SloResult r = judge_slo(*objectives, tally, point);
  EXPECT_EQ(r.requests, 3u);
  EXPECT_EQ(r.met, 2u);
  EXPECT_DOUBLE_EQ(r.goodput_rps, 1.0);
  EXPECT_DOUBLE_EQ(r.goodput_tokens_per_s, 6.0);
}

}  // namespace
}  // namespace servescope
