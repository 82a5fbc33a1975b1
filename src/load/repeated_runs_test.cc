// bench --repeat: runs pooled onto the first run's clock, and the observer seen once per series.
#include "load/repeated_runs.h"

#include <gtest/gtest.h>

#include <functional>

#include "load/point_summary.h"
#include "tests/load/fake_transport.h"

namespace servescope::testing {
namespace {

// A run of `requests` evenly spread requests of 0.5 s each; `tweak` may change one before it is
// recorded (and tallied, as the runner does).
PointData one_run(double start, double length, int requests,
                  const std::function<void(RequestRecord&)>& tweak = {}) {
  PointData d;
  d.start = start;
  d.end = start + length;
  for (int i = 0; i < requests; ++i) {
    RequestRecord r;
    r.index = static_cast<std::uint32_t>(i);
    r.intended = r.ready = r.sent = length * i / requests;
    r.first_token = r.sent + 0.1;
    r.last_token = r.done = r.sent + 0.5;
    r.output_tokens = 10;
    if (tweak)
      tweak(r);
    d.tally.add(r);
    d.records.push_back(r);
    for (int k = 0; k < 9 && r.ok(); ++k)
      d.tally.itl_token.add(40.0F);
  }
  for (int k = 0; k * 0.1 < length; ++k)
    d.in_flight.push_back({k * 0.1, 2, 1.5});
  d.in_flight_max = 2;
  return d;
}

TEST(RepeatedRuns, ARunsFiguresAreSummarizePointsOwn) {
  PointData run = one_run(100.0, 2.0, 4, [](RequestRecord& r) {
    r.warmup = r.index == 0;
    r.error = r.index == 2 ? ErrorKind::kTimeout : ErrorKind::kNone;
  });
  const RunFigures f = run_figures(run);
  PointPlan plan;
  const BenchPoint p = summarize_point(plan, run, false);
  EXPECT_EQ(f.requests_completed, p.requests_completed);
  EXPECT_EQ(f.requests_completed, 2u);
  EXPECT_DOUBLE_EQ(f.duration_s, p.duration_s);
  EXPECT_DOUBLE_EQ(f.requests_per_s, p.requests_per_s);
  EXPECT_DOUBLE_EQ(f.output_tokens_per_s, p.output_tokens_per_s);
}

TEST(RepeatedRuns, ALaterRunFollowsTheFirstOnItsClock) {
  PointData pooled = one_run(100.0, 2.0, 4);
  // Began 0.5 s after the first ended; its second request never went (a refused connection).
  PointData second = one_run(102.5, 2.0, 4, [](RequestRecord& r) {
    if (r.index == 1) {
      r.sent = -1;
      r.first_token = r.last_token = -1;
      r.error = ErrorKind::kConnect;
    }
  });
  second.in_flight_max = 3;
  pool_run(pooled, std::move(second));
  ASSERT_EQ(pooled.records.size(), 8u);
  EXPECT_DOUBLE_EQ(pooled.records[4].intended, 2.5);
  EXPECT_DOUBLE_EQ(pooled.records[4].done, 3.0);
  EXPECT_DOUBLE_EQ(pooled.records[5].sent, -1);
  EXPECT_DOUBLE_EQ(pooled.records[5].first_token, -1);
  EXPECT_DOUBLE_EQ(pooled.records[7].first_token, 2.5 + 1.5 + 0.1);
  EXPECT_EQ(pooled.tally.itl_token.count(), 63u);  // 9 gaps of each request that ended well
  EXPECT_EQ(pooled.tally.sent, 8u);
  EXPECT_EQ(pooled.tally.failed, 1u);
  EXPECT_DOUBLE_EQ(pooled.tally.last_end, 2.5 + 1.5 + 0.5);
  EXPECT_DOUBLE_EQ(pooled.tally.intended_max, 2.5 + 1.5);
  EXPECT_EQ(pooled.in_flight_max, 3);
  EXPECT_DOUBLE_EQ(pooled.end, 104.5);
  // 20 buckets of the first run, 5 empty over the gap, 20 of the second: one 100 ms grid.
  ASSERT_EQ(pooled.in_flight.size(), 45u);
  EXPECT_EQ(pooled.in_flight[22].max, 0);
  EXPECT_EQ(pooled.in_flight[25].max, 2);
  EXPECT_NEAR(pooled.in_flight[44].t_s, 4.4, 1e-9);
}

// A scripted server: every completion request answers in 0.5 s.
TEST(RepeatedRuns, TheObserverSeesOneBaselineOneStartAndOneFinishOverTheSeries) {
  struct Counting final : PointObserver {
    int baselines = 0, starts = 0, finishes = 0;
    void baseline(std::function<void()> ready) override {
      ++baselines;
      ready();
    }
    void start(double, std::function<int()>) override { ++starts; }
    void finish(std::function<void()> then) override {
      ++finishes;
      then();
    }
  } counting;
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t, double) {
    ScriptedReply r;
    r.chunks.push_back({0.5, json_reply(100, 10)});
    return r;
  });
  const ApiSpec api = *resolve_api("openai-completions");
  const std::vector<PreparedRequest> pool(8, {"POST /v1/completions HTTP/1.1\r\n\r\n", 100, 10});
  LoadRunner runner(loop, server, api, /*stream=*/false, pool);
  PointPlan plan;
  plan.concurrency = 2;
  plan.requests = 4;
  plan.timeout_s = 60;
  PointData pooled;
  for (int run = 1; run <= 3; ++run) {
    RepeatObserver observer(counting, run, 3);
    PointData one = runner.run(plan, &observer);
    if (run == 1)
      pooled = std::move(one);
    else
      pool_run(pooled, std::move(one));
  }
  EXPECT_EQ(counting.baselines, 1);
  EXPECT_FALSE(pooled.in_flight.empty());
  EXPECT_EQ(counting.starts, 1);
  EXPECT_EQ(counting.finishes, 1);
  const BenchPoint p = summarize_point(plan, pooled, false);
  EXPECT_EQ(p.requests_completed, 12u);
  // Three runs of two rounds of 0.5 s back to back: 12 requests in 3 s.
  EXPECT_NEAR(p.requests_per_s, 4.0, 1e-6);
  EXPECT_NEAR(p.e2e_ms.p99, 500.0, 1e-6);
}

}  // namespace
}  // namespace servescope::testing
