// A metric's samples: exact below the fold threshold, exact to the microsecond above it, and in
// memory that stops growing with the number of samples.
#include "load/sample_set.h"

#include <gtest/gtest.h>

#include <random>

#include "load/exact_stats.h"

namespace servescope {
namespace {

void expect_within_a_microsecond(const LatencySummary& got, const LatencySummary& exact) {
  EXPECT_EQ(got.count, exact.count);
  EXPECT_NEAR(got.mean, exact.mean, 1e-9 * std::max(1.0, exact.mean));
  EXPECT_DOUBLE_EQ(got.max, exact.max);
  EXPECT_NEAR(got.p50, exact.p50, 5e-4);  // ms: half a microsecond of rounding
  EXPECT_NEAR(got.p90, exact.p90, 5e-4);
  EXPECT_NEAR(got.p95, exact.p95, 5e-4);
  EXPECT_NEAR(got.p99, exact.p99, 5e-4);
  EXPECT_NEAR(got.p999, exact.p999, 5e-4);
}

TEST(SampleSet, BelowTheThresholdEveryValueIsKeptAndTheSummaryIsExact) {
  SampleSet<double> s(100);
  std::vector<double> all;
  for (int i = 0; i < 99; ++i) {
    const double v = 1.0 + 0.0001234 * i * i;  // finer than a microsecond
    s.add(v);
    all.push_back(v);
  }
  EXPECT_FALSE(s.folded());
  const LatencySummary exact = summarize_samples(all);
  const LatencySummary got = s.summarize();
  EXPECT_DOUBLE_EQ(got.p99, exact.p99);
  EXPECT_DOUBLE_EQ(got.p50, exact.p50);
  EXPECT_DOUBLE_EQ(got.mean, exact.mean);
}

TEST(SampleSet, FoldedItIsExactToTheMicrosecond) {
  SampleSet<double> s(64);
  std::vector<double> all;
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> latency(3.0, 0.8);  // ms, a long right tail
  for (int i = 0; i < 5000; ++i) {
    const double v = latency(rng);
    s.add(v);
    all.push_back(v);
  }
  EXPECT_TRUE(s.folded());
  expect_within_a_microsecond(s.summarize(), summarize_samples(all));
}

TEST(SampleSet, RunsMergedFoldedOrNotAreTheirPooledSamples) {
  SampleSet<float> a(32), b(1000);
  std::vector<float> all;
  for (int i = 0; i < 300; ++i) {
    const float x = 0.25F + 0.013F * static_cast<float>(i % 41);
    (i % 3 == 0 ? b : a).add(x);
    all.push_back(x);
  }
  EXPECT_TRUE(a.folded());
  EXPECT_FALSE(b.folded());
  a.merge(b);
  expect_within_a_microsecond(a.summarize(), summarize_samples(all));
}

// A million samples over 20,000 distinct microseconds: held entries stop at the threshold plus
// the distinct keys, however many samples come.
TEST(SampleSet, MemoryFollowsDistinctMicrosecondsNotSamples) {
  SampleSet<double> s(4096);
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> us(10000, 29999);
  std::size_t most = 0;
  for (int i = 0; i < 1000000; ++i) {
    s.add(us(rng) / 1000.0);
    most = std::max(most, s.held());
  }
  EXPECT_EQ(s.count(), 1000000u);
  EXPECT_LE(most, 4096u + 20000u);
  const LatencySummary sum = s.summarize();
  EXPECT_NEAR(sum.p50, 20.0, 0.05);
  EXPECT_NEAR(sum.mean, 20.0, 0.05);
}

}  // namespace
}  // namespace servescope
