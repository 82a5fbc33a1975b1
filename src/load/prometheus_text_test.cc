#include "load/prometheus_text.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

constexpr char kText[] = R"(# HELP eng:running The number of running requests.
# TYPE eng:running gauge
eng:running{dp="0",model="a}b"} 20.0
eng:running{dp="1",model="m"} 6
eng:running_total 999
eng:queue_seconds_bucket{dp="0",le="0.5"} 2.0
eng:queue_seconds_bucket{dp="0",le="1.0"} 6.0
eng:queue_seconds_bucket{dp="0",le="+Inf"} 8.0
eng:queue_seconds_count{dp="0"} 8.0
eng:queue_seconds_sum{dp="0"} 6.0
)";

TEST(PrometheusText, SumsAGaugeOverItsSeries) {
  EXPECT_EQ(prometheus_sum(kText, "eng:running"), 26.0);
  EXPECT_FALSE(prometheus_sum(kText, "eng:waiting").has_value());
}

TEST(PrometheusText, HistogramDeltaMedianInterpolatesWithinTheBucket) {
  const PromHistogram after = prometheus_histogram(kText, "eng:queue_seconds");
  ASSERT_TRUE(after.found);
  EXPECT_EQ(after.count, 8.0);
  EXPECT_EQ(after.sum, 6.0);
  PromHistogram before;
  before.found = true;
  // 8 observations: 2 ≤ 0.5 s, 4 in (0.5, 1], 2 above: the 4th lies 2/4 into (0.5, 1].
  EXPECT_NEAR(*histogram_delta_median(before, after), 0.75, 1e-12);
  EXPECT_FALSE(histogram_delta_median(after, after).has_value());
}

}  // namespace
}  // namespace servescope
