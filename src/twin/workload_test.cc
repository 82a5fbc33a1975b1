#include "twin/workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "twin/stats.h"

namespace servescope {
namespace {

TEST(LengthSpecTest, ParsesEachForm) {
  Random r(1);
  auto fixed = LengthSpec::parse("512", "--input-len");
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->sample(r), 512);
  auto uniform = LengthSpec::parse("uniform:10:20", "--input-len");
  ASSERT_TRUE(uniform);
  for (int i = 0; i < 1000; ++i) {
    const auto v = uniform->sample(r);
    EXPECT_GE(v, 10);
    EXPECT_LE(v, 20);
  }
  auto normal = LengthSpec::parse("normal:5:100", "--input-len");
  ASSERT_TRUE(normal);
  for (int i = 0; i < 1000; ++i)
    EXPECT_GE(normal->sample(r), 1) << "lengths are clamped to at least 1";
  EXPECT_EQ(normal->describe(), "normal:5:100");
}

TEST(LengthSpecTest, RejectsNonsenseNamingTheOption) {
  for (const char* bad : {"0", "-3", "uniform:5", "uniform:9:2", "normal:0:1", "triangle:1:2",
                          "no-such-file.jsonl"}) {
    auto s = LengthSpec::parse(bad, "--output-len");
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.message().find("--output-len"), std::string::npos) << s.message();
  }
}

TEST(LengthSpecTest, ReadsAJsonlFileInOrderAndNamesABadLine) {
  const auto path = std::filesystem::temp_directory_path() / "servescope-workload-test.jsonl";
  {
    std::ofstream f(path);
    f << "{\"input\": 5, \"output\": 6}\n[7, 8]\n";
  }
  auto spec = LengthSpec::parse(path.string(), "--input-len");
  ASSERT_TRUE(spec) << spec.message();
  Random r(1);
  EXPECT_EQ(spec->sample(r), 5);
  EXPECT_EQ(spec->sample(r, true), 6);
  EXPECT_EQ(spec->sample(r), 7);
  EXPECT_EQ(spec->sample(r, true), 8);
  EXPECT_EQ(spec->sample(r), 5) << "the rows repeat";
  {
    std::ofstream f(path);
    f << "[1, 2]\n{\"input\": \"x\"}\n";
  }
  auto bad = read_length_rows(path.string());
  std::filesystem::remove(path);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find(":2:"), std::string::npos) << bad.message();
}

// The arrival processes deliver the rate asked for (200,000 gaps, a fixed seed) and differ in
// burstiness as their shape says: the coefficient of variation is 1/sqrt(K) for gamma:K.
TEST(ArrivalProcessTest, MeanGapIsOneOverTheRateAndGammaShapeSetsTheSpread) {
  struct Case {
    const char* spec;
    double cv;
  };
  for (const Case& c : {Case{"poisson", 1.0}, Case{"constant", 0.0}, Case{"gamma:4", 0.5},
                        Case{"gamma:0.25", 2.0}}) {
    auto a = ArrivalProcess::parse(c.spec);
    ASSERT_TRUE(a) << c.spec;
    Random r(42);
    const int n = 200000;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < n; ++i) {
      const double g = a->next_gap(r, 5.0);
      sum += g;
      sum2 += g * g;
    }
    const double mean = sum / n;
    const double sd = std::sqrt(std::max(0.0, sum2 / n - mean * mean));
    EXPECT_NEAR(mean, 0.2, 0.2 * 0.01) << c.spec;
    EXPECT_NEAR(sd / mean, c.cv, 0.03 + 0.03 * c.cv) << c.spec;
  }
  EXPECT_FALSE(ArrivalProcess::parse("gamma:0"));
  EXPECT_FALSE(ArrivalProcess::parse("weibull"));
}

TEST(NumberListTest, ParsesSweepsAndRejectsBadValues) {
  auto v = parse_number_list("8, 16,32", "--concurrency");
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, (std::vector<double>{8, 16, 32}));
  EXPECT_FALSE(parse_number_list("8,,16", "--concurrency"));
  EXPECT_FALSE(parse_number_list("0", "--rate"));
  EXPECT_FALSE(parse_number_list("inf", "--rate"));
}

TEST(StatsTest, PercentilesInterpolateBetweenOrderStatistics) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i)
    v.push_back(i);
  const Percentiles p = percentiles(v);
  EXPECT_EQ(p.count, 100u);
  EXPECT_DOUBLE_EQ(p.mean, 50.5);
  EXPECT_DOUBLE_EQ(p.p50, 50.5);
  EXPECT_DOUBLE_EQ(p.p90, 90.1);
  EXPECT_DOUBLE_EQ(p.p99, 99.01);
  EXPECT_DOUBLE_EQ(p.max, 100);
}

TEST(StatsTest, LogHistogramStaysWithinHalfAPercent) {
  LogHistogram h;
  std::vector<double> exact;
  Random r(3);
  for (int i = 0; i < 100000; ++i) {
    const double x = r.exponential(0.02);
    h.add(x);
    exact.push_back(x);
  }
  const Percentiles a = h.summary();
  const Percentiles b = percentiles(exact);
  EXPECT_NEAR(a.p50, b.p50, 0.006 * b.p50);
  EXPECT_NEAR(a.p90, b.p90, 0.006 * b.p90);
  EXPECT_NEAR(a.p99, b.p99, 0.006 * b.p99);
  EXPECT_DOUBLE_EQ(a.max, b.max);
  EXPECT_NEAR(a.mean, b.mean, 1e-12);
  LogHistogram weighted;
  weighted.add(0.01, 3);
  weighted.add(0.05, 1);
  EXPECT_EQ(weighted.summary().count, 4u);
  EXPECT_NEAR(weighted.summary().p50, 0.01, 0.0001);
}

TEST(RandomTest, TheSameSeedGivesTheSameSequence) {
  Random a(9), b(9), c(10);
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
  }
}

}  // namespace
}  // namespace servescope
