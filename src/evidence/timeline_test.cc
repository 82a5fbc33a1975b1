#include "evidence/timeline.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

Fact decode(std::uint64_t line, int running, double usage, double tput, const char* time) {
  Fact f;
  f.kind = "decode_batch";
  f.line = line;
  f.timestamp = time;
  f.set("running_req", Value(running));
  f.set("queue_req", Value(running / 10));
  f.set("token_usage", Value(usage));
  f.set("gen_throughput_tok_per_s", Value(tput));
  return f;
}

TEST(Timeline, TimestampSeconds) {
  EXPECT_DOUBLE_EQ(timestamp_seconds("1970-01-02 00:00:01"), 86401.0);
  EXPECT_DOUBLE_EQ(
      timestamp_seconds("2025-03-08 12:29:21") - timestamp_seconds("2025-03-08 12:29:20"), 1.0);
  EXPECT_DOUBLE_EQ(
      timestamp_seconds("2025-03-01 00:00:00") - timestamp_seconds("2025-02-28 00:00:00"), 86400.0);
  EXPECT_NEAR(
      timestamp_seconds("2026-01-01 00:00:00.250") - timestamp_seconds("2026-01-01 00:00:00"), 0.25,
      1e-9);
  EXPECT_LT(timestamp_seconds("not a time"), 0);
}

TEST(Timeline, DownsamplesWithoutLosingPeaksOrSamples) {
  Timeline t("TP0", 16);
  for (int i = 0; i < 1000; ++i)
    t.add(decode(static_cast<std::uint64_t>(i + 1), i == 777 ? 5000 : i % 50, 0.5, 100.0,
                 "2026-01-01 00:00:00"));
  const auto points = t.points();
  EXPECT_LE(points.size(), 17u);
  std::uint64_t samples = 0;
  std::int64_t max_running = 0;
  for (const TimelinePoint& p : points) {
    samples += p.samples;
    max_running = std::max(max_running, p.running_req);
    EXPECT_NEAR(p.gen_throughput_tok_per_s, 100.0, 1e-9);
  }
  EXPECT_EQ(samples, 1000u);
  EXPECT_EQ(max_running, 5000);
  EXPECT_EQ(t.peak_running().value, 5000);
  EXPECT_EQ(t.peak_running().line, 778u);
  EXPECT_EQ(points.front().first_line, 1u);
  EXPECT_EQ(points.back().last_line, 1000u);
}

TEST(Timeline, MeanThroughputAndHybridUsage) {
  Timeline t("", 2);
  t.add(decode(1, 1, 0.1, 100, "2026-01-01 00:00:00"));
  t.add(decode(2, 1, 0.2, 300, "2026-01-01 00:00:10"));
  Fact hybrid;
  hybrid.kind = "prefill_batch";
  hybrid.line = 3;
  hybrid.timestamp = "2026-01-01 00:01:00";
  hybrid.set("running_req", Value(3));
  hybrid.set("full_token_usage", Value(0.9));
  hybrid.set("mamba_usage", Value(0.4));
  t.add(hybrid);
  EXPECT_EQ(t.decode_samples(), 2u);
  EXPECT_EQ(t.prefill_samples(), 1u);
  EXPECT_DOUBLE_EQ(t.span_s(), 60.0);
  EXPECT_DOUBLE_EQ(t.peak_token_usage().value, 0.9);
  const auto points = t.points();
  double tput_weighted = 0;
  std::uint32_t decodes = 0;
  double mamba = -1;
  for (const auto& p : points) {
    if (p.gen_throughput_tok_per_s >= 0) {
      tput_weighted += p.gen_throughput_tok_per_s * p.decode_samples;
      decodes += p.decode_samples;
    }
    mamba = std::max(mamba, p.mamba_usage);
  }
  EXPECT_DOUBLE_EQ(tput_weighted / decodes, 200.0);
  EXPECT_DOUBLE_EQ(mamba, 0.4);
}

}  // namespace
}  // namespace servescope
