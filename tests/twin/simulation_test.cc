// Self-consistency of the serving simulation (issue 5's acceptance): Little's law, queueing
// at and above the running limit, the bandwidth term, the founding case, determinism.
#include "twin/simulation.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/twin/twin_fixture.h"

namespace servescope {
namespace {

using testing::founding_case;
using testing::llama_case;
using testing::TwinCase;

SimulationResult run_closed(const TwinCase& c, double concurrency, std::int64_t requests,
                            std::int64_t input, std::int64_t output, std::uint64_t seed = 1) {
  SimulationInput in;
  in.shape = c.shape;
  in.cost = &*c.cost;
  in.load.closed_loop = true;
  in.load.concurrency = concurrency;
  in.requests = requests;
  in.input = LengthSpec::fixed(input);
  in.output = LengthSpec::fixed(output);
  in.seed = seed;
  in.timeline_points = 200;
  return simulate(in);
}

SimulationResult run_open(const TwinCase& c, double rate, std::int64_t requests, std::uint64_t seed,
                          const std::string& arrival = "poisson") {
  SimulationInput in;
  in.shape = c.shape;
  in.cost = &*c.cost;
  in.load.closed_loop = false;
  in.load.rate = rate;
  in.load.arrival = *ArrivalProcess::parse(arrival);
  in.requests = requests;
  in.input = *LengthSpec::parse("uniform:200:1000", "--input-len");
  in.output = *LengthSpec::parse("uniform:50:300", "--output-len");
  in.seed = seed;
  return simulate(in);
}

// Share of the timeline samples in the middle of the run (the steady state) whose queue holds
// exactly `queued`.
double steady_share(const SimulationResult& r, std::int64_t queued) {
  const auto& tl = r.timeline;
  std::size_t n = 0, hits = 0;
  for (std::size_t i = tl.size() / 10; i < tl.size() * 9 / 10; ++i) {
    ++n;
    hits += tl[i].queued == queued ? 1 : 0;
  }
  return n == 0 ? 0 : static_cast<double>(hits) / static_cast<double>(n);
}

TEST(SimulationTest, LittlesLawHoldsOnALongRun) {
  auto c = llama_case();
  ASSERT_TRUE(c);
  const double rate = 6.0;
  const SimulationResult r = run_open(*c, rate, 20000, 7);
  ASSERT_EQ(r.completed, 20000);
  const double lambda = static_cast<double>(r.completed) / r.duration_s;
  const double w = r.e2e_ms.mean / 1e3;
  // L = λW: the time-average number in the system against arrival rate × mean time in it.
  EXPECT_NEAR(r.mean_in_system, lambda * w, 0.02 * r.mean_in_system);
  // The arrival process delivers the rate asked for, within 2% over 20,000 requests.
  EXPECT_NEAR(lambda, rate, 0.02 * rate);
  // The queue obeys it too: mean queue length = λ × mean queue time.
  EXPECT_NEAR(r.mean_queued, lambda * r.queue_ms.mean / 1e3, 0.02 * r.mean_in_system);
}

// Prompts of 128 or 256 tokens keep each wave of arrivals within one 8,192-token prefill
// batch, so any waiting comes from the running limit alone (longer prompts also wait for the
// prefill budget, as in the engine).
TEST(SimulationTest, ClosedLoopAtOrBelowTheLimitDoesNotQueue) {
  auto c = founding_case();
  ASSERT_TRUE(c);
  ASSERT_EQ(c->shape.max_running_requests, 48);
  for (double concurrency : {16.0, 48.0}) {
    const SimulationResult r = run_closed(*c, concurrency, 1500, 128, 200);
    EXPECT_EQ(r.completed, 1500);
    EXPECT_EQ(r.max_queued, 0) << "concurrency " << concurrency;
    EXPECT_EQ(r.queue_ms.max, 0) << "concurrency " << concurrency;
    EXPECT_EQ(r.max_running, concurrency);
  }
}

TEST(SimulationTest, FoundingCaseQueuesEverythingBeyond48) {
  auto c = founding_case();
  ASSERT_TRUE(c);
  for (double concurrency : {64.0, 128.0}) {
    const SimulationResult r = run_closed(*c, concurrency, 3000, 128, 200);
    const auto excess = static_cast<std::int64_t>(concurrency) - 48;
    EXPECT_EQ(r.completed, 3000);
    EXPECT_EQ(r.max_running, 48) << "concurrency " << concurrency;
    EXPECT_GT(steady_share(r, excess), 0.9) << "concurrency " << concurrency;
    EXPECT_NEAR(r.mean_queued, static_cast<double>(excess), 0.05 * static_cast<double>(excess));
    EXPECT_GT(r.queue_ms.p90, 0) << "the requests beyond 48 wait";
  }
}

TEST(SimulationTest, DoublingBandwidthRaisesDecodeBoundThroughput) {
  auto base = llama_case();
  ASSERT_TRUE(base);
  auto fast = llama_case();
  ASSERT_TRUE(fast);
  fast->built.scenario.hardware.gpu.mem_bw_tbps *= 2;
  fast->cost = *CostModel::build(fast->built.scenario, fast->shape, Efficiency{});
  // 32 requests decoding 512 tokens after 128-token prompts: the steps read weights and KV.
  const SimulationResult a = run_closed(*base, 32, 400, 128, 512);
  const SimulationResult b = run_closed(*fast, 32, 400, 128, 512);
  EXPECT_GT(b.output_tokens_per_s, 1.3 * a.output_tokens_per_s);
  EXPECT_LT(b.itl_ms.p50, a.itl_ms.p50);
}

TEST(SimulationTest, TheSameSeedGivesTheSameRunAndAnotherSeedAnother) {
  auto c = llama_case();
  ASSERT_TRUE(c);
  const SimulationResult a = run_open(*c, 8, 2000, 11);
  const SimulationResult b = run_open(*c, 8, 2000, 11);
  const SimulationResult d = run_open(*c, 8, 2000, 12);
  EXPECT_EQ(a.duration_s, b.duration_s);
  EXPECT_EQ(a.e2e_ms.p99, b.e2e_ms.p99);
  EXPECT_EQ(a.output_tokens_per_s, b.output_tokens_per_s);
  EXPECT_NE(a.duration_s, d.duration_s);
}

TEST(SimulationTest, PromptsLongerThanTheContextAreRejected) {
  auto c = llama_case();
  ASSERT_TRUE(c);
  const SimulationResult r = run_closed(*c, 4, 10, c->shape.context_len, 10);
  EXPECT_EQ(r.rejected, 10);
  EXPECT_EQ(r.completed, 0);
}

TEST(SimulationTest, ALongPromptIsPrefilledInChunksBeforeItsFirstToken) {
  auto c = llama_case();
  ASSERT_TRUE(c);
  const SimulationResult r = run_closed(*c, 1, 1, 20000, 2);
  EXPECT_EQ(r.prefill_steps, 3);  // 8192 + 8192 + 3616
  EXPECT_EQ(r.decode_steps, 1);
}

TEST(SimulationTest, SpeculativeDecodingDeliversSeveralTokensPerStep) {
  EXPECT_DOUBLE_EQ(founding_case()->cost->accept_length(), 2.8);  // 1 + 0.6 · 3 steps
  Efficiency eff;
  ASSERT_TRUE(eff.apply({"accept_length=2.5"}));
  auto c = founding_case(eff);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->shape.speculative_draft_tokens, 4);
  const SimulationResult r = run_closed(*c, 1, 1, 100, 281);
  // 280 tokens after the prefill's first, 2.5 per verify step.
  EXPECT_EQ(r.decode_steps, 112);
}

TEST(SimulationTest, ARequestsOverheadBeforeTheSchedulerIsInEveryTtft) {
  Efficiency slow_api;
  ASSERT_TRUE(slow_api.apply({"request_overhead_us=25000"}));
  auto base = llama_case();
  auto c = llama_case(slow_api);
  ASSERT_TRUE(base && c);
  // One client: each request waits 25 ms before its prefill, then runs exactly as before.
  const SimulationResult a = run_closed(*base, 1, 20, 256, 32);
  const SimulationResult b = run_closed(*c, 1, 20, 256, 32);
  EXPECT_NEAR(b.ttft_ms.p50 - a.ttft_ms.p50, 25.0, 1e-6);
  EXPECT_NEAR(b.tpot_ms.p50, a.tpot_ms.p50, 1e-9);
  EXPECT_NEAR(b.duration_s - a.duration_s, 20 * 0.025, 1e-6);
  // The steps' time by term is kept and adds up to the time the engine was busy.
  EXPECT_NEAR(b.step_time.total(), a.step_time.total(), 1e-9);
  EXPECT_NEAR(a.step_time.total(), a.duration_s, 1e-9);
}

}  // namespace
}  // namespace servescope
