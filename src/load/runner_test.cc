// The runner on a fake clock against a scripted server: exact figures, no waiting.
#include "load/runner.h"

#include <gtest/gtest.h>

#include "load/point_summary.h"
#include "load/slo.h"
#include "tests/load/fake_transport.h"

namespace servescope::testing {
namespace {

std::vector<PreparedRequest> pool_of(int n) {
  std::vector<PreparedRequest> pool;
  for (int i = 0; i < n; ++i)
    pool.push_back({"POST /v1/completions HTTP/1.1\r\n\r\n", 100, 10});
  return pool;
}

ApiSpec completions() {
  return *resolve_api("openai-completions");
}

PointPlan open_loop(double rate, int cap, std::int64_t requests) {
  PointPlan p;
  p.closed_loop = false;
  p.rate = rate;
  p.concurrency = cap;
  p.arrival = *ArrivalProcess::parse("constant");
  p.requests = requests;
  p.timeout_s = 60;
  return p;
}

TEST(LoadRunner, CoordinatedOmissionExampleFromVllm54101) {
  // 500 ms service time, 10 requests/s, at most 1 in flight: requests meant for 0.0, 0.1, ...
  // 0.7 s go at 0.0, 0.5, ... 3.5 s. From the send every request takes 0.5 s; from its
  // intended send request i takes 0.5 + 0.4·i s: mean 1.9 s, max 3.3 s.
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t, double) {
    ScriptedReply r;
    r.chunks.push_back({0.5, json_reply(100, 10)});
    return r;
  });
  const ApiSpec api = completions();
  const auto pool = pool_of(8);
  LoadRunner runner(loop, server, api, /*stream=*/false, pool);
  PointPlan plan = open_loop(10, 1, 8);
  PointData data = runner.run(plan);
  BenchPoint p = summarize_point(plan, data, true);
  EXPECT_EQ(p.requests_completed, 8u);
  EXPECT_NEAR(p.e2e_ms.mean, 500.0, 1e-6);
  EXPECT_NEAR(p.e2e_from_intended_ms.mean, 1900.0, 1e-6);
  EXPECT_NEAR(p.e2e_from_intended_ms.max, 3300.0, 1e-6);
  EXPECT_NEAR(p.queue_ms.mean, 1400.0, 1e-6);
  // The client was never late: every send went the moment its slot freed.
  EXPECT_NEAR(p.schedule_lag_ms.max, 0.0, 1e-6);
  EXPECT_EQ(p.late_sends, 0u);
  EXPECT_NEAR(p.scheduled_rate, 10.0, 1e-9);
  EXPECT_NEAR(p.achieved_rate, 2.0, 1e-9);  // one per 500 ms
  EXPECT_EQ(p.in_flight_max, 1);
}

TEST(LoadRunner, WithoutACapTheOpenLoopSendsOnScheduleAndLatencyIsTheServiceTime) {
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t, double) {
    ScriptedReply r;
    r.chunks.push_back({0.45, json_reply(100, 10)});
    return r;
  });
  const ApiSpec api = completions();
  const auto pool = pool_of(8);
  LoadRunner runner(loop, server, api, false, pool);
  PointPlan plan = open_loop(10, 0, 8);
  PointData data = runner.run(plan);
  BenchPoint p = summarize_point(plan, data, false);
  EXPECT_NEAR(p.e2e_from_intended_ms.mean, 450.0, 1e-6);
  EXPECT_NEAR(p.achieved_rate, 10.0, 1e-9);
  // 0.45 s of requests at 10/s (a service time off the 0.1 s grid: no tie between a send
  // and a completion).
  EXPECT_EQ(p.in_flight_max, 5);
}

TEST(LoadRunner, ClosedLoopKeepsConcurrencyInFlightAndSendsAsSlotsFree) {
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t i, double) {
    ScriptedReply r;
    r.chunks.push_back({i % 2 == 0 ? 1.0 : 2.0, json_reply(100, 10)});
    return r;
  });
  const ApiSpec api = completions();
  const auto pool = pool_of(4);
  LoadRunner runner(loop, server, api, false, pool);
  PointPlan plan;
  plan.closed_loop = true;
  plan.concurrency = 3;
  plan.requests = 12;
  PointData data = runner.run(plan);
  BenchPoint p = summarize_point(plan, data, false);
  EXPECT_EQ(server.sent(), 12u);
  EXPECT_EQ(p.requests_completed, 12u);
  EXPECT_EQ(p.in_flight_max, 3);
  EXPECT_NEAR(p.queue_ms.max, 0.0, 1e-9);  // closed loop: sent when due
  EXPECT_NEAR(p.e2e_ms.mean, p.e2e_from_intended_ms.mean, 1e-9);
  EXPECT_NEAR(p.e2e_ms.p50, 1500.0, 1e-6);  // half 1 s, half 2 s
}

TEST(LoadRunner, WarmupRequestsAreSentButLeftOut) {
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t i, double) {
    ScriptedReply r;
    r.chunks.push_back({i < 2 ? 5.0 : 1.0, json_reply(100, 10)});
    return r;
  });
  const ApiSpec api = completions();
  const auto pool = pool_of(4);
  LoadRunner runner(loop, server, api, false, pool);
  PointPlan plan;
  plan.concurrency = 1;
  plan.requests = 3;
  plan.warmup = 2;
  PointData data = runner.run(plan);
  BenchPoint p = summarize_point(plan, data, false);
  EXPECT_EQ(server.sent(), 5u);
  EXPECT_EQ(p.requests_sent, 3u);
  EXPECT_NEAR(p.e2e_ms.max, 1000.0, 1e-6);
}

TEST(LoadRunner, ErrorsAreCountedByKindAndTheRunCompletes) {
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t i, double) {
    ScriptedReply r;
    switch (i % 5) {
      case 0:
        r.refuse = true;
        break;
      case 1:
        r.chunks.push_back({0.1, json_reply(1, 1, 500)});
        break;
      case 2:
        r.chunks.push_back({0.1, "garbage that is not HTTP\r\n\r\n"});
        break;
      case 3:
        break;  // silence: a timeout
      case 4:
        r.chunks.push_back(
            {0.1, sse_head() + http_chunk("data: {\"choices\":[{\"text\":\"a\"}]}\n\n")});
        r.close_at = 0.2;
        break;
    }
    return r;
  });
  const ApiSpec api = completions();
  const auto pool = pool_of(5);
  LoadRunner runner(loop, server, api, true, pool);
  PointPlan plan;
  plan.concurrency = 5;
  plan.requests = 10;
  plan.timeout_s = 2;
  const double start = loop.now();
  PointData data = runner.run(plan);
  BenchPoint p = summarize_point(plan, data, false);
  EXPECT_EQ(p.requests_sent, 10u);
  EXPECT_EQ(p.requests_completed, 0u);
  EXPECT_EQ(p.errors.by_kind["connect"], 2u);
  EXPECT_EQ(p.errors.by_kind["http_status"], 2u);
  EXPECT_EQ(p.errors.by_status[500], 2u);
  EXPECT_EQ(p.errors.by_kind["malformed_http"], 2u);
  EXPECT_EQ(p.errors.by_kind["timeout"], 2u);
  EXPECT_EQ(p.errors.by_kind["closed_early"], 2u);
  EXPECT_EQ(server.aborted(), 2u);               // the timed-out exchanges were dropped
  EXPECT_LT(loop.now() - start, 2.0 * 2 + 1.0);  // bounded by the timeout
}

TEST(LoadRunner, StreamingTtftSkipsTheRoleChunkAndItlIsPerToken) {
  // Chat: a role-only chunk at 0.1 s, then content events with continuous usage: 1 token at
  // 0.3 s, 3 tokens at 0.6 s, 1 token at 0.7 s; usage-only event; [DONE].
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t, double) {
    auto ev = [](const std::string& json) { return http_chunk("data: " + json + "\n\n"); };
    ScriptedReply r;
    r.chunks.push_back(
        {0.1, sse_head() +
                  ev(R"({"choices":[{"delta":{"role":"assistant","content":""}}],"usage":null})")});
    r.chunks.push_back(
        {0.3,
         ev(R"({"choices":[{"delta":{"content":" a"}}],"usage":{"prompt_tokens":7,"completion_tokens":1}})")});
    r.chunks.push_back(
        {0.6,
         ev(R"({"choices":[{"delta":{"content":" b c d"}}],"usage":{"prompt_tokens":7,"completion_tokens":4}})")});
    r.chunks.push_back(
        {0.7,
         ev(R"({"choices":[{"delta":{"content":" e"},"finish_reason":"length"}],"usage":{"prompt_tokens":7,"completion_tokens":5}})")});
    r.chunks.push_back(
        {0.7, ev(R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5}})") +
                  ev("[DONE]") + "0\r\n\r\n"});
    return r;
  });
  const ApiSpec api = *resolve_api("openai-chat");
  const auto pool = pool_of(1);
  LoadRunner runner(loop, server, api, true, pool);
  PointPlan plan;
  plan.concurrency = 1;
  plan.requests = 1;
  PointData data = runner.run(plan);
  BenchPoint p = summarize_point(plan, data, false);
  ASSERT_EQ(p.requests_completed, 1u) << p.errors.example.begin()->second;
  EXPECT_NEAR(p.ttft_ms.p50, 300.0, 1e-3);
  // Per token: 0.3 s over 3 tokens (100 ms each), then 100 ms: four samples of 100 ms.
  EXPECT_EQ(p.itl_ms.count, 4u);
  EXPECT_NEAR(p.itl_ms.max, 100.0, 1e-3);
  EXPECT_NEAR(p.itl_ms.mean, 100.0, 1e-3);
  // Per event: 300 ms and 100 ms.
  EXPECT_EQ(p.itl_per_event_ms.count, 2u);
  EXPECT_NEAR(p.itl_per_event_ms.max, 300.0, 1e-3);
  EXPECT_NEAR(p.tpot_ms.p50, 100.0, 1e-3);  // (0.7 − 0.3) / 4
  EXPECT_EQ(p.output_tokens.max, 5.0);
  EXPECT_EQ(p.input_tokens_reported.max, 7.0);
  EXPECT_NEAR(p.sse_events_per_s * p.duration_s, 6.0, 1e-9);
}

TEST(LoadRunner, DurationBoundStopsSendingAndWaitsOnlyUpToTheTimeout) {
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t, double) { return ScriptedReply{}; });  // silent
  const ApiSpec api = completions();
  const auto pool = pool_of(1);
  LoadRunner runner(loop, server, api, false, pool);
  PointPlan plan = open_loop(4, 0, 0);
  plan.duration_s = 2;
  plan.timeout_s = 1;
  const double start = loop.now();
  PointData data = runner.run(plan);
  BenchPoint p = summarize_point(plan, data, false);
  EXPECT_EQ(p.requests_sent, 8u);  // at 0, 0.25, ... 1.75 s
  EXPECT_EQ(p.errors.by_kind["timeout"], 8u);
  EXPECT_LE(loop.now() - start, 2 + 1 + 0.1);
}

TEST(LoadRunner, LateSendsAreCountedAgainstTheTimeTheyCouldGo) {
  // A loop that runs each callback 5 ms late is faked by a script that delays nothing; instead
  // the arrival times are checked: with the fake clock the lag is zero and nothing is late.
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t, double) {
    ScriptedReply r;
    r.chunks.push_back({0.01, json_reply(1, 1)});
    return r;
  });
  const ApiSpec api = completions();
  const auto pool = pool_of(1);
  LoadRunner runner(loop, server, api, false, pool);
  PointPlan plan = open_loop(100, 0, 50);
  plan.arrival = *ArrivalProcess::parse("poisson");
  PointData data = runner.run(plan);
  BenchPoint p = summarize_point(plan, data, false);
  EXPECT_EQ(p.late_sends, 0u);
  EXPECT_NEAR(p.achieved_rate, p.scheduled_rate, 1e-9);
}

}  // namespace
}  // namespace servescope::testing

namespace servescope::testing {
namespace {

TEST(LoadRunner, EachPointGoesOnThroughThePromptsSoASweepRepeatsNone) {
  // A prefix-caching server would serve a prompt it saw at an earlier point from its cache.
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t, double) {
    ScriptedReply r;
    r.chunks.push_back({0.01, json_reply(100, 10)});
    return r;
  });
  std::vector<PreparedRequest> pool;
  for (int i = 0; i < 10; ++i)
    pool.push_back(
        {"POST /v1/completions HTTP/1.1\r\nX-Prompt: " + std::to_string(i) + "\r\n\r\n", 100, 10});
  const ApiSpec api = completions();
  LoadRunner runner(loop, server, api, false, pool);
  PointPlan plan = open_loop(100, 1, 4);
  runner.run(plan);
  runner.run(plan);
  runner.run(plan);  // 12 requests from a pool of 10: the last two prompts come round again
  std::vector<std::string> sent;
  for (const std::string& r : server.requests())
    sent.push_back(
        r.substr(r.find("X-Prompt: ") + 10, r.find("\r\n\r\n") - r.find("X-Prompt: ") - 10));
  EXPECT_EQ(sent,
            (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "1"}));
}

std::vector<std::string> prompts_sent(const FakeTransport& server) {
  std::vector<std::string> sent;
  for (const std::string& r : server.requests())
    sent.push_back(
        r.substr(r.find("X-Prompt: ") + 10, r.find("\r\n\r\n") - r.find("X-Prompt: ") - 10));
  return sent;
}

// Conversations of three turns: "c0t0 c0t1 c0t2 c1t0 ...", the later turns marked.
std::vector<PreparedRequest> conversations(int n) {
  std::vector<PreparedRequest> pool;
  for (int c = 0; c < n; ++c) {
    for (int t = 0; t < 3; ++t) {
      PreparedRequest r{"POST /v1/completions HTTP/1.1\r\nX-Prompt: c" + std::to_string(c) + "t" +
                            std::to_string(t) + "\r\n\r\n",
                        100, 10};
      r.continues = t > 0;
      pool.push_back(r);
    }
  }
  return pool;
}

TEST(LoadRunner, AConversationsNextTurnGoesWhenItsTurnHasEnded) {
  FakeEventLoop loop;
  std::vector<double> starts, ends;  // of each send
  FakeTransport server(loop, [&](std::uint64_t, double now) {
    ScriptedReply r;
    const double took = 0.01 * static_cast<double>(1 + starts.size() % 2);  // two speeds in turn
    r.chunks.push_back({took, json_reply(100, 10)});
    starts.push_back(now);
    ends.push_back(now + took);
    return r;
  });
  const auto pool = conversations(4);
  const ApiSpec api = completions();
  LoadRunner runner(loop, server, api, false, pool);
  PointPlan plan;
  plan.concurrency = 2;
  plan.requests = 6;
  runner.run(plan);
  // Two users (replies of 10 and 20 ms in turn): each goes on with its own conversation the
  // moment a turn ends; a new one starts only when c0 is over (at 30 ms, c1t1 still out).
  EXPECT_EQ(prompts_sent(server),
            (std::vector<std::string>{"c0t0", "c1t0", "c0t1", "c1t1", "c0t2", "c2t0"}));
  // Each later turn went the moment the turn before it ended.
  for (const auto& [turn, before] : {std::pair{2, 0}, std::pair{3, 1}, std::pair{4, 2}})
    EXPECT_DOUBLE_EQ(starts[turn], ends[before]) << turn;
  // The next point drops the unfinished conversations and starts new ones where the last left
  // off (c3, then round the pool to c0).
  runner.run(plan);
  const auto sent = prompts_sent(server);
  EXPECT_EQ(sent[6], "c3t0");
  EXPECT_EQ(sent[7], "c0t0");
}

TEST(LoadRunner, AFailedTurnEndsItsConversation) {
  FakeEventLoop loop;
  FakeTransport server(loop, [](std::uint64_t index, double) {
    ScriptedReply r;
    if (index == 2)  // c0t1
      r.chunks.push_back(
          {0.005, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"});
    else
      r.chunks.push_back({0.01 * static_cast<double>(1 + index % 2), json_reply(100, 10)});
    return r;
  });
  const auto pool = conversations(3);
  const ApiSpec api = completions();
  LoadRunner runner(loop, server, api, false, pool);
  PointPlan plan;
  plan.concurrency = 2;
  plan.requests = 6;
  runner.run(plan);
  const auto sent = prompts_sent(server);
  EXPECT_EQ(std::count(sent.begin(), sent.end(), "c0t2"), 0) << ::testing::PrintToString(sent);
  EXPECT_EQ(std::count(sent.begin(), sent.end(), "c2t0"), 1) << ::testing::PrintToString(sent);
}

// Without --details the runner keeps no records, only the tally: the same figures, and no
// memory per request beyond the tally's samples.
TEST(LoadRunner, WithoutRecordsTheTallyGivesTheSameFigures) {
  auto run = [](bool keep) {
    FakeEventLoop loop;
    FakeTransport server(loop, [](std::uint64_t i, double) {
      ScriptedReply r;
      r.chunks.push_back({0.1 + 0.01 * static_cast<double>(i % 7), json_reply(100, 10)});
      return r;
    });
    const ApiSpec api = completions();
    const auto pool = pool_of(8);
    LoadRunner runner(loop, server, api, false, pool);
    PointPlan plan = open_loop(20, 4, 40);
    plan.keep_records = keep;
    plan.slo = *parse_slo("e2e:130ms");
    PointData data = runner.run(plan);
    EXPECT_EQ(data.records.size(), keep ? 40u : 0u);
    BenchPoint p = summarize_point(plan, data, false);
    p.slo = judge_slo(plan.slo, data.tally, p);
    return p;
  };
  const BenchPoint kept = run(true), tallied = run(false);
  EXPECT_EQ(tallied.requests_completed, 40u);
  EXPECT_DOUBLE_EQ(tallied.e2e_ms.p90, kept.e2e_ms.p90);
  EXPECT_DOUBLE_EQ(tallied.requests_per_s, kept.requests_per_s);
  ASSERT_TRUE(tallied.slo.has_value());
  // Replies take 100–160 ms by request index mod 7: indices 0–3 of each 7 are within 130 ms.
  std::uint64_t within = 0;
  for (int i = 0; i < 40; ++i)
    within += (i % 7) <= 3 ? 1 : 0;
  EXPECT_EQ(tallied.slo->met, within);
  EXPECT_EQ(kept.slo->met, within);
}

}  // namespace
}  // namespace servescope::testing
