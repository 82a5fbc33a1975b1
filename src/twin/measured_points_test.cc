// The points a calibration reads from a bench --json result: a load measured more than once
// becomes one point holding each figure's median, so one stalled run (a TTFT of 119 ms among
// runs of 7 ms, as a CPU vLLM on two shared cores gives now and then) cannot pull the fit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "twin/calibration.h"

namespace servescope {
namespace {

using nlohmann::json;

json point(double concurrency, double ttft, double tpot, double rps) {
  return {{"concurrency", concurrency},
          {"requests_completed", 48},
          {"input_tokens", {{"reported", {{"mean", 128}}}}},
          {"output_tokens", {{"reported", {{"mean", 64}}}}},
          {"ttft_ms", {{"p50", ttft}}},
          {"tpot_ms", {{"p50", tpot}}},
          {"requests_per_s", rps}};
}

TEST(MeasuredPoints, RunsOfOneLoadBecomeTheirMedians) {
  const json run = {{"points",
                     {point(1, 7.18, 1.94, 7.43), point(1, 119.29, 2.00, 6.92),
                      point(4, 9.0, 1.9, 28.0), point(1, 6.68, 1.84, 7.79)}}};
  auto points = measured_points(run);
  ASSERT_TRUE(points) << points.error().message;
  ASSERT_EQ(points->size(), 2u);
  const MeasuredPoint& one = (*points)[0];
  EXPECT_EQ(one.runs, 3);
  EXPECT_DOUBLE_EQ(one.ttft_p50_ms, 7.18);
  EXPECT_DOUBLE_EQ(one.tpot_p50_ms, 1.94);
  EXPECT_DOUBLE_EQ(one.requests_per_s, 7.43);
  EXPECT_EQ(one.label(), "concurrency 1 ×3");
  EXPECT_NE(one.spread.find("TTFT p50 ms 6.68–119"), std::string::npos) << one.spread;
  EXPECT_EQ((*points)[1].runs, 1);
  EXPECT_EQ((*points)[1].label(), "concurrency 4");
}

TEST(MeasuredPoints, TwoRunsTakeTheMeanOfTheMiddle) {
  const json run = {{"points", {point(2, 8, 2, 10), point(2, 10, 3, 14)}}};
  auto points = measured_points(run);
  ASSERT_TRUE(points) << points.error().message;
  ASSERT_EQ(points->size(), 1u);
  EXPECT_DOUBLE_EQ((*points)[0].ttft_p50_ms, 9);
  EXPECT_DOUBLE_EQ((*points)[0].requests_per_s, 12);
}

TEST(MeasuredPoints, OtherLengthsAreAnotherLoad) {
  json other = point(1, 7, 2, 7);
  other["output_tokens"]["reported"]["mean"] = 32;
  const json run = {{"points", {point(1, 7, 2, 7), other}}};
  auto points = measured_points(run);
  ASSERT_TRUE(points) << points.error().message;
  EXPECT_EQ(points->size(), 2u);
}

}  // namespace
}  // namespace servescope
