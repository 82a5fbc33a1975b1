#include "load/cross_check.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

BenchPoint point_with(double running, double queued, std::optional<double> limit) {
  BenchPoint p;
  p.closed_loop = true;
  p.concurrency = 64;
  p.server.available = true;
  p.server.samples.push_back({});
  p.server.max_running = running;
  p.server.max_queued = queued;
  p.server.effective_running_limit = limit;
  p.server.queue_median_ms = 3100;
  return p;
}

TEST(CrossCheck, TheFoundingCaseSentence) {
  BenchPoint p = point_with(26, 38, 26);
  cross_check_point(p, {"the log server.log", 26});
  EXPECT_EQ(p.cross_check,
            "the log server.log says max_running_requests=26; at concurrency 64 the server ran "
            "at most 26, 38 waited, median queue 3.1 s — the limit holds");
  EXPECT_TRUE(p.cross_check_agrees);
}

TEST(CrossCheck, RunningMoreThanExpectedOrALowerEnforcedLimitDisagrees) {
  BenchPoint more = point_with(48, 16, 48);
  cross_check_point(more, {"the plan", 26});
  EXPECT_FALSE(more.cross_check_agrees);
  BenchPoint lower = point_with(20, 44, 20);
  cross_check_point(lower, {"the plan", 26});
  EXPECT_FALSE(lower.cross_check_agrees);
  BenchPoint idle = point_with(10, 0, std::nullopt);
  cross_check_point(idle, {"the plan", 26});
  EXPECT_TRUE(idle.cross_check_agrees);
  EXPECT_NE(idle.cross_check.find("never reached the limit"), std::string::npos);
}

TEST(CrossCheck, SamplesThatMissedEveryRequestTestNothing) {
  BenchPoint p = point_with(0, 0, std::nullopt);
  p.requests_completed = 192;
  p.duration_s = 0.19;
  cross_check_point(p, {"the plan", 48});
  EXPECT_TRUE(p.cross_check_agrees);
  EXPECT_NE(p.cross_check.find("192 requests completed but none of the server's 1 samples saw "
                               "one running: the run (0.19 s) was too short"),
            std::string::npos)
      << p.cross_check;
}

}  // namespace
}  // namespace servescope
