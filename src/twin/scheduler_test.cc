#include "twin/scheduler.h"

#include <gtest/gtest.h>

#include <map>

namespace servescope {
namespace {

ServingShape small_shape() {
  ServingShape s;
  s.max_running_requests = 4;
  s.token_pool = 100000;
  s.chunk_tokens = 4096;
  s.max_prefill_tokens = 16384;
  s.context_len = 32768;
  s.init_new_token_ratio = 0.7;
  s.min_new_token_ratio = 0.098;
  s.new_token_ratio_decay = (0.7 - 0.098) / 600;
  return s;
}

// Runs steps until idle (bounded), returning tokens received per tag.
std::map<std::uint64_t, std::int64_t> drain(Scheduler& s, int max_steps = 100000) {
  std::map<std::uint64_t, std::int64_t> got;
  Step step;
  for (int i = 0; i < max_steps && s.begin_step(step); ++i) {
    s.end_step(step);
    for (const TokenEvent& e : step.events)
      got[e.tag] += e.tokens;
  }
  return got;
}

TEST(SchedulerTest, AdmitsNoMoreThanTheRunningLimitAndQueuesTheRest) {
  Scheduler s(small_shape());
  for (std::uint64_t i = 0; i < 10; ++i)
    s.submit(i, 100, 50);
  Step step;
  ASSERT_TRUE(s.begin_step(step));
  EXPECT_TRUE(step.work.is_prefill());
  EXPECT_EQ(step.new_seqs, 4);
  EXPECT_EQ(s.running(), 4);
  EXPECT_EQ(s.queued(), 6);
  s.end_step(step);
  // Every admitted request got its first token from the prefill.
  ASSERT_EQ(step.events.size(), 4u);
  for (const TokenEvent& e : step.events) {
    EXPECT_TRUE(e.first);
    EXPECT_EQ(e.tokens, 1);
  }
  // No slot is free, so the next step decodes instead of admitting.
  ASSERT_TRUE(s.begin_step(step));
  EXPECT_FALSE(step.work.is_prefill());
  EXPECT_EQ(step.work.decode_requests, 4);
  EXPECT_EQ(step.work.decode_context, 4 * 101);
  s.end_step(step);
}

TEST(SchedulerTest, EveryRequestReceivesExactlyItsOutputLength) {
  Scheduler s(small_shape());
  for (std::uint64_t i = 0; i < 9; ++i)
    s.submit(i, 50 + static_cast<std::int64_t>(i) * 10, 1 + static_cast<std::int64_t>(i) * 7);
  const auto got = drain(s);
  ASSERT_EQ(got.size(), 9u);
  for (std::uint64_t i = 0; i < 9; ++i)
    EXPECT_EQ(got.at(i), 1 + static_cast<std::int64_t>(i) * 7) << "request " << i;
  EXPECT_TRUE(s.idle());
  EXPECT_EQ(s.used_tokens(), 0);
}

TEST(SchedulerTest, SplitsALongPromptIntoChunks) {
  Scheduler s(small_shape());
  s.submit(7, 10000, 3);
  Step step;
  std::vector<std::int64_t> chunks;
  std::vector<std::int64_t> pending;
  while (s.begin_step(step) && step.work.is_prefill()) {
    chunks.push_back(step.work.prefill_tokens);
    pending.push_back(step.pending_tokens);
    s.end_step(step);
    if (!step.events.empty()) {
      EXPECT_TRUE(step.events[0].first);
      break;
    }
  }
  EXPECT_EQ(chunks, (std::vector<std::int64_t>{4096, 4096, 1808}));
  EXPECT_EQ(pending, (std::vector<std::int64_t>{5904, 1808, 0}));
}

TEST(SchedulerTest, PrefillOfANewRequestPausesDecoding) {
  Scheduler s(small_shape());
  s.submit(1, 100, 100);
  Step step;
  ASSERT_TRUE(s.begin_step(step));
  s.end_step(step);
  ASSERT_TRUE(s.begin_step(step));  // decode
  EXPECT_FALSE(step.work.is_prefill());
  s.end_step(step);
  s.submit(2, 100, 100);
  ASSERT_TRUE(s.begin_step(step));
  EXPECT_TRUE(step.work.is_prefill());
  EXPECT_EQ(step.work.decode_requests, 0);
  s.end_step(step);
  ASSERT_EQ(step.events.size(), 1u);
  EXPECT_EQ(step.events[0].tag, 2u);
}

TEST(SchedulerTest, ReservesFutureTokensOfRunningRequestsBeforeAdmitting) {
  ServingShape shape = small_shape();
  shape.token_pool = 2500;
  shape.max_running_requests = 100;
  Scheduler s(shape);
  // Each new request needs 500 prompt + 1000 output tokens. The first fits; the second does
  // not fit beside it in the same batch (1000 left), nor in the next one beside the first's
  // 501 tokens in use and its 999 · 0.7 reserved (1300 left).
  s.submit(1, 500, 1000);
  s.submit(2, 500, 1000);
  Step step;
  ASSERT_TRUE(s.begin_step(step));
  EXPECT_EQ(step.new_seqs, 1);
  s.end_step(step);
  ASSERT_TRUE(s.begin_step(step));
  EXPECT_FALSE(step.work.is_prefill());
  EXPECT_EQ(s.queued(), 1);
}

TEST(SchedulerTest, RetractsWhenThePoolRunsOutAndStillFinishesEverything) {
  ServingShape shape = small_shape();
  shape.token_pool = 2000;
  shape.max_running_requests = 16;
  shape.init_new_token_ratio = 0.05;  // optimistic admission, as a long decode run reaches
  shape.min_new_token_ratio = 0.05;
  Scheduler s(shape);
  for (std::uint64_t i = 0; i < 8; ++i)
    s.submit(i, 100, 400);
  std::map<std::uint64_t, std::int64_t> got;
  Step step;
  std::int64_t max_used = 0;
  for (int i = 0; i < 100000 && s.begin_step(step); ++i) {
    max_used = std::max(max_used, s.used_tokens());
    s.end_step(step);
    max_used = std::max(max_used, s.used_tokens());
    for (const TokenEvent& e : step.events)
      got[e.tag] += e.tokens;
  }
  EXPECT_GT(s.retractions(), 0);
  EXPECT_LE(max_used, shape.token_pool);
  ASSERT_EQ(got.size(), 8u);
  for (const auto& [tag, tokens] : got)
    EXPECT_EQ(tokens, 400) << "request " << tag;
  EXPECT_EQ(s.used_tokens(), 0);
}

TEST(SchedulerTest, StateSlotsBoundAdmission) {
  ServingShape shape = small_shape();
  shape.max_running_requests = 10;
  shape.state_slots = 9;
  shape.state_slots_per_request = 3;
  Scheduler s(shape);
  for (std::uint64_t i = 0; i < 5; ++i)
    s.submit(i, 10, 10);
  Step step;
  ASSERT_TRUE(s.begin_step(step));
  EXPECT_EQ(step.new_seqs, 3);
  EXPECT_EQ(s.used_state_slots(), 9);
  s.end_step(step);
  drain(s);
  EXPECT_EQ(s.used_state_slots(), 0);
}

TEST(SchedulerTest, AbortFreesTheRequestsTokensAtOnce) {
  Scheduler s(small_shape());
  const auto a = s.submit(1, 1000, 100);
  s.submit(2, 1000, 100);
  Step step;
  ASSERT_TRUE(s.begin_step(step));
  s.end_step(step);
  const std::int64_t before = s.used_tokens();
  s.abort(a, 1);
  EXPECT_EQ(s.used_tokens(), before - 1001);
  EXPECT_EQ(s.running(), 1);
  const auto got = drain(s);
  EXPECT_EQ(got.count(1), 0u);
  EXPECT_EQ(got.at(2), 99);
  // A stale abort of a reused slot is ignored.
  s.abort(a, 1);
  EXPECT_EQ(s.used_tokens(), 0);
}

TEST(SchedulerTest, AbortDuringAStepDropsTheRequestsTokens) {
  Scheduler s(small_shape());
  const auto a = s.submit(1, 100, 100);
  Step step;
  ASSERT_TRUE(s.begin_step(step));
  s.abort(a, 1);
  s.end_step(step);
  EXPECT_TRUE(step.events.empty());
  EXPECT_TRUE(s.idle());
  EXPECT_EQ(s.used_tokens(), 0);
}

TEST(SchedulerTest, SpeculativeDecodingDeliversTheAcceptLengthPerStep) {
  ServingShape shape = small_shape();
  shape.speculative_steps = 3;
  shape.speculative_draft_tokens = 4;
  Scheduler s(shape, 2.5);
  s.submit(1, 10, 1001);
  Step step;
  int decode_steps = 0;
  std::int64_t tokens = 0;
  while (s.begin_step(step)) {
    const bool decode = !step.work.is_prefill();
    s.end_step(step);
    for (const TokenEvent& e : step.events)
      tokens += e.tokens;
    decode_steps += decode ? 1 : 0;
  }
  EXPECT_EQ(tokens, 1001);
  EXPECT_EQ(decode_steps, 400);  // 1000 tokens after the prefill's one, 2.5 per step
}

TEST(SchedulerTest, ARequestStopsAtTheContextLength) {
  ServingShape shape = small_shape();
  shape.context_len = 120;
  Scheduler s(shape);
  s.submit(1, 100, 1000);
  const auto got = drain(s);
  EXPECT_EQ(got.at(1), 20);
}

}  // namespace
}  // namespace servescope
