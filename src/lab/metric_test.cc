#include "lab/metric.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

const std::vector<std::string> kOutputs = {"max_total_num_tokens", "max_running_requests"};

TEST(MetricTest, KnowsStartupCapacityOutputsAndBenchFigures) {
  auto s = parse_metric("startup", kOutputs);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, MetricSpec::Kind::kStartup);
  auto c = parse_metric("max_running_requests", kOutputs);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, MetricSpec::Kind::kCapacity);
  EXPECT_FALSE(c->noisy());
  auto b = parse_metric("output_throughput@c=64", kOutputs);
  ASSERT_TRUE(b) << b.message();
  EXPECT_EQ(b->kind, MetricSpec::Kind::kBench);
  EXPECT_EQ(b->load, "c=64");
  EXPECT_TRUE(b->higher_is_better);
  EXPECT_TRUE(b->noisy());
  auto l = parse_metric("ttft_p99@rate=4", kOutputs);
  ASSERT_TRUE(l) << l.message();
  EXPECT_FALSE(l->higher_is_better);
}

TEST(MetricTest, UnknownNamesFailWithTheClosestMatch) {
  auto m = parse_metric("max_running_request", kOutputs);
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("did you mean max_running_requests"), std::string::npos)
      << m.message();
  auto b = parse_metric("output_throughput@q=3", kOutputs);
  ASSERT_FALSE(b);
  EXPECT_NE(b.message().find("c=N"), std::string::npos);
  auto f = parse_metric("throughput@c=3", kOutputs);
  ASSERT_FALSE(f);
  auto none = parse_metric("max_running_requests", {});
  ASSERT_FALSE(none);
  EXPECT_NE(none.message().find("no modelled engine"), std::string::npos);
}

}  // namespace
}  // namespace servescope
