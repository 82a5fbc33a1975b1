// The twin's real-time scheduler on a fake clock: exact token times from the cost model,
// --speed, the running limit, cancellation, the scheduler-side faults, metrics and log lines.
#include "twin/serving_loop.h"

#include <gtest/gtest.h>

#include "tests/twin/twin_fixture.h"

namespace servescope {
namespace {

using testing::founding_case;
using testing::llama_case;
using testing::TwinCase;

struct Call {
  std::int64_t from;
  std::int32_t count;
  bool finished;
  double at;
};

class RecordingSink final : public TokenSink {
 public:
  explicit RecordingSink(const FakeClock& clock) : clock_(clock) {}
  void on_tokens(std::int64_t from, std::int32_t count, bool finished) override {
    calls.push_back({from, count, finished, clock_.now()});
  }
  std::int64_t tokens() const {
    std::int64_t n = 0;
    for (const Call& c : calls)
      n += c.count;
    return n;
  }
  bool finished() const { return !calls.empty() && calls.back().finished; }
  std::vector<Call> calls;

 private:
  const FakeClock& clock_;
};

class Lines final : public LogSink {
 public:
  void write(const std::string& line) override { lines.push_back(line); }
  std::vector<std::string> lines;
};

struct Harness {
  explicit Harness(std::unique_ptr<TwinCase> tc, ServingLoopOptions options = {})
      : c(std::move(tc)),
        loop(c->built.scenario, c->plan, *c->built.engine->twin_profile(), c->shape, *c->cost,
             clock, log, std::move(options)) {}

  std::shared_ptr<RecordingSink> submit(std::int64_t prompt, std::int64_t max_tokens) {
    auto sink = std::make_shared<RecordingSink>(clock);
    GenerationRequest g;
    g.prompt_tokens = prompt;
    g.max_tokens = max_tokens;
    tickets.push_back(loop.submit(g, sink));
    return sink;
  }
  // Advances the clock deadline by deadline until nothing is left (bounded).
  int run(int max_polls = 1000000) {
    int polls = 0;
    for (auto next = loop.poll(); next && polls < max_polls; next = loop.poll(), ++polls) {
      clock.set(*next);
      max_running = std::max(max_running, loop.status().scheduler.running);
    }
    return polls;
  }

  std::unique_ptr<TwinCase> c;
  FakeClock clock;
  Lines log;
  ServingLoop loop;
  std::vector<ServingLoop::Ticket> tickets;
  std::int64_t max_running = 0;
};

// The work of one request's whole prompt in one prefill step.
StepWork one_prefill(std::int64_t tokens) {
  StepWork w;
  w.prefill_tokens = tokens;
  w.prefill_attention = static_cast<double>(tokens) * (static_cast<double>(tokens + 1) / 2.0);
  w.prefill_requests = 1;
  return w;
}

TEST(ServingLoopTest, TokensArriveWhenTheCostModelSaysTheStepsEnd) {
  Harness h(llama_case());
  const double t0 = h.clock.now();
  auto sink = h.submit(100, 3);
  const auto first = h.loop.poll();
  ASSERT_TRUE(first);
  const StepWork prefill = one_prefill(100);
  EXPECT_DOUBLE_EQ(*first, t0 + h.c->cost->step_seconds(prefill));
  h.clock.set(*first);
  const auto second = h.loop.poll();
  ASSERT_EQ(sink->calls.size(), 1u);
  EXPECT_EQ(sink->calls[0].from, 0);
  EXPECT_EQ(sink->calls[0].count, 1);
  EXPECT_FALSE(sink->calls[0].finished);
  StepWork decode;
  decode.decode_requests = 1;
  decode.decode_context = 101;
  ASSERT_TRUE(second);
  EXPECT_DOUBLE_EQ(*second, *first + h.c->cost->step_seconds(decode));
  h.run();
  EXPECT_EQ(sink->tokens(), 3);
  EXPECT_TRUE(sink->finished());
  EXPECT_EQ(sink->calls.size(), 3u);
}

TEST(ServingLoopTest, ARequestReachesTheSchedulerItsOverheadAfterItCame) {
  Efficiency slow_api;
  ASSERT_TRUE(slow_api.apply({"request_overhead_us=20000"}));
  Harness h(llama_case(slow_api));
  const double t0 = h.clock.now();
  auto sink = h.submit(100, 2);
  auto gone = h.submit(100, 2);
  h.loop.cancel(h.tickets[1]);  // cancelled on its way: never scheduled
  const auto wake = h.loop.poll();
  ASSERT_TRUE(wake);
  EXPECT_DOUBLE_EQ(*wake, t0 + 0.020);  // nothing runs before the overhead has passed
  EXPECT_EQ(h.loop.status().scheduler.running + h.loop.status().scheduler.queued, 0);
  h.clock.set(*wake);
  const auto first = h.loop.poll();
  ASSERT_TRUE(first);
  const StepWork prefill = one_prefill(100);
  EXPECT_DOUBLE_EQ(*first, t0 + 0.020 + h.c->cost->step_seconds(prefill));
  h.run();
  EXPECT_EQ(sink->tokens(), 2);
  EXPECT_TRUE(gone->calls.empty());
}

TEST(ServingLoopTest, SpeedDividesEveryStep) {
  ServingLoopOptions fast;
  fast.speed = 10;
  Harness a(llama_case());
  Harness b(llama_case(), fast);
  a.submit(500, 20);
  b.submit(500, 20);
  const double a0 = a.clock.now(), b0 = b.clock.now();
  a.run();
  b.run();
  EXPECT_NEAR((b.clock.now() - b0) * 10, a.clock.now() - a0, 1e-9);
}

// --jitter: the same seed replays the same step times; another seed or none gives others; the
// factor has mean 1, so a long run stays near the exact one.
TEST(ServingLoopTest, JitterSpreadsStepTimesReproduciblyFromTheSeed) {
  auto duration = [](double jitter, std::uint64_t seed) {
    ServingLoopOptions o;
    o.jitter = jitter;
    o.seed = seed;
    Harness h(llama_case(), o);
    h.submit(500, 400);  // 400 steps: a dozen jitter windows
    const double t0 = h.clock.now();
    h.run();
    EXPECT_EQ(h.tickets.size(), 1u);
    return h.clock.now() - t0;
  };
  const double exact = duration(0, 1);
  const double a = duration(0.2, 1);
  EXPECT_DOUBLE_EQ(duration(0.2, 1), a);
  EXPECT_NE(duration(0.2, 2), a);
  EXPECT_NE(a, exact);
  EXPECT_NEAR(a / exact, 1.0, 0.3);
  EXPECT_DOUBLE_EQ(duration(0, 2), exact) << "no jitter: the seed does not matter";
}

TEST(ServingLoopTest, NeverRunsMoreThanTheLimitAndFinishesEveryRequest) {
  Harness h(founding_case());
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  for (int i = 0; i < 100; ++i)
    sinks.push_back(h.submit(64, 30));
  ASSERT_TRUE(h.loop.poll());
  EXPECT_EQ(h.loop.status().scheduler.running, 48);
  EXPECT_EQ(h.loop.status().scheduler.queued, 52);
  h.run();
  EXPECT_EQ(h.max_running, 48);
  for (const auto& s : sinks) {
    EXPECT_EQ(s->tokens(), 30);
    EXPECT_TRUE(s->finished());
  }
  const ServingStatus st = h.loop.status();
  EXPECT_EQ(st.requests_total, 100u);
  EXPECT_EQ(st.generation_tokens_total, 3000u);
  EXPECT_EQ(st.prompt_tokens_total, 6400u);
  EXPECT_EQ(st.ttft->count, 100u);
  EXPECT_EQ(st.e2e->count, 100u);
  EXPECT_EQ(st.queue_time->count, 100u);
  EXPECT_EQ(st.itl->count, 2900u);  // every token after each request's first
  EXPECT_EQ(st.scheduler.running, 0);
  EXPECT_EQ(st.scheduler.used_tokens, 0);
}

TEST(ServingLoopTest, ACancelledRequestGetsNothingMore) {
  Harness h(llama_case());
  auto kept = h.submit(100, 10);
  auto dropped = h.submit(100, 10);
  h.clock.set(*h.loop.poll());
  h.loop.poll();  // the prefill ends: both have their first token
  ASSERT_EQ(dropped->tokens(), 1);
  h.loop.cancel(h.tickets[1]);
  h.run();
  EXPECT_EQ(dropped->tokens(), 1);
  EXPECT_EQ(kept->tokens(), 10);
  EXPECT_EQ(h.loop.status().scheduler.used_tokens, 0);
}

TEST(ServingLoopTest, TheStallFaultFreezesTheSchedulerOnceAfterTheFirstToken) {
  ServingLoopOptions stall;
  ASSERT_TRUE(stall.faults.apply({"stall=500"}));
  Harness plain(llama_case());
  Harness stalled(llama_case(), stall);
  auto a = plain.submit(100, 4);
  auto b = stalled.submit(100, 4);
  plain.run();
  stalled.run();
  ASSERT_EQ(a->calls.size(), 4u);
  ASSERT_EQ(b->calls.size(), 4u);
  EXPECT_DOUBLE_EQ(b->calls[0].at, a->calls[0].at);
  EXPECT_NEAR(b->calls[1].at - b->calls[0].at, a->calls[1].at - a->calls[0].at + 0.5, 1e-9);
  EXPECT_NEAR(b->calls[3].at - b->calls[2].at, a->calls[3].at - a->calls[2].at, 1e-9);
}

TEST(ServingLoopTest, TheCrashFaultFiresAfterNRequestsFinish) {
  ServingLoopOptions crash;
  ASSERT_TRUE(crash.faults.apply({"crash-after=2"}));
  Harness h(llama_case(), crash);
  h.submit(10, 2);
  h.submit(10, 2);
  auto late = h.submit(10, 50);
  h.loop.poll();
  EXPECT_FALSE(h.loop.crashed());
  h.run();
  EXPECT_TRUE(h.loop.crashed());
  EXPECT_FALSE(late->finished());
  EXPECT_FALSE(h.loop.poll());  // no step runs after the crash
}

TEST(ServingLoopTest, PrintsTheEnginesBatchLines) {
  Harness h(founding_case());
  h.submit(1000, 200);
  h.run();
  std::size_t prefill = 0, decode = 0;
  for (const std::string& line : h.log.lines) {
    if (line.find(
            "Prefill batch, #new-seq: 1, #new-token: 1000, #cached-token: 0, full token usage:") !=
        std::string::npos)
      ++prefill;
    if (line.find("Decode batch, #running-req: 1, #full token: ") != std::string::npos) {
      ++decode;
      EXPECT_NE(line.find("mamba num: 3, mamba usage: 0.01, accept len: 2.80"), std::string::npos)
          << line;
      EXPECT_NE(line.find("cuda graph: True, gen throughput (token/s): "), std::string::npos)
          << line;
      EXPECT_NE(line.find("#queue-req: 0"), std::string::npos) << line;
    }
    EXPECT_NE(line.find(" TP0] "), std::string::npos) << line;
  }
  EXPECT_EQ(prefill, 1u);
  // 199 tokens after the first at 2.8 per step: 72 decode steps, a line every 40.
  EXPECT_EQ(decode, 1u);
}

TEST(ServingLoopTest, RefusesAPromptThatDoesNotFitTheContext) {
  Harness h(llama_case());
  GenerationRequest g;
  g.prompt_tokens = h.c->shape.context_len;
  g.max_tokens = 1;
  EXPECT_NE(h.loop.check(g).find("is longer than the model's context length"), std::string::npos);
  g.prompt_tokens = h.c->shape.context_len - 10;
  g.max_tokens = 20;
  EXPECT_NE(h.loop.check(g).find("exceeds the model's maximum context length"), std::string::npos);
  g.max_tokens = 10;
  EXPECT_EQ(h.loop.check(g), "");
}

TEST(TwinFaultsTest, ParsesEachFaultAndRejectsNonsense) {
  TwinFaults f;
  ASSERT_TRUE(f.apply({"crash-after=3", "stall=250,drop-stream-after=7", "error-rate=0.25"}));
  EXPECT_EQ(f.crash_after, 3);
  EXPECT_EQ(f.stall_ms, 250);
  EXPECT_EQ(f.drop_stream_after, 7);
  EXPECT_EQ(f.error_rate, 0.25);
  EXPECT_FALSE(f.apply({"error-rate=2"}));
  EXPECT_FALSE(f.apply({"crash-after=0"}));
  EXPECT_FALSE(f.apply({"explode=1"}));
  EXPECT_FALSE(f.apply({"stall"}));
}

}  // namespace
}  // namespace servescope
