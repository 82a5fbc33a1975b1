// The roofline cost model's terms, each moved alone.
#include "twin/cost_model.h"

#include <gtest/gtest.h>

#include "tests/twin/twin_fixture.h"

namespace servescope {
namespace {

using testing::founding_case;
using testing::llama_case;

StepWork decode(std::int64_t requests, std::int64_t context) {
  StepWork w;
  w.decode_requests = requests;
  w.decode_context = context;
  return w;
}

StepWork prefill(std::int64_t tokens) {
  StepWork w;
  w.prefill_tokens = tokens;
  w.prefill_attention = static_cast<double>(tokens) * static_cast<double>(tokens + 1) / 2.0;
  w.prefill_requests = 1;
  return w;
}

TEST(CostModelTest, ALoneDecodeStepIsTheWeightReadPlusTheOverhead) {
  auto c = llama_case();
  ASSERT_TRUE(c);
  const CostModel& m = *c->cost;
  const CostInputs& in = m.inputs();
  // Llama-3.1-8B in bf16 on one H100: ~15 GiB of weights at 80% of 3.35 TB/s.
  EXPECT_NEAR(in.dense_weight_bytes / 1e9, 16.06, 0.3);
  const double expected =
      400e-6 + (in.dense_weight_bytes + 100 * in.kv_bytes_per_token) / (3.35e12 * 0.8);
  EXPECT_NEAR(m.step_seconds(decode(1, 100)), expected, 1e-9);
}

TEST(CostModelTest, MoreContextAndMoreRequestsTakeLonger) {
  auto c = llama_case();
  ASSERT_TRUE(c);
  const CostModel& m = *c->cost;
  EXPECT_LT(m.step_seconds(decode(8, 8 * 1000)), m.step_seconds(decode(8, 8 * 8000)));
  EXPECT_LT(m.step_seconds(decode(8, 8000)), m.step_seconds(decode(256, 8000)));
  // A long prefill is compute-bound: doubling its tokens nearly doubles its time.
  const double a = m.step_seconds(prefill(4096)), b = m.step_seconds(prefill(8192));
  EXPECT_GT(b / a, 1.8);
}

TEST(CostModelTest, MoeStepsReadOnlyTheExpertsTheBatchRoutesTo) {
  auto c = founding_case();
  ASSERT_TRUE(c);
  const CostInputs& in = c->cost->inputs();
  EXPECT_EQ(in.experts, 256);
  EXPECT_EQ(in.experts_per_token, 8);
  EXPECT_GT(in.expert_weight_bytes, 3 * in.dense_weight_bytes);
  // Active parameters per GPU: the ten billion active of 122B, over 4 GPUs.
  EXPECT_NEAR(in.active_params / 1e9, 10.0 / 4, 0.6);
  // Calibrated: the weights the cost model reads add up to the measured 30 GiB per GPU.
  const double total = in.dense_weight_bytes + in.expert_weight_bytes + in.draft_weight_bytes;
  EXPECT_LT(total, 30.0 * 1024 * 1024 * 1024);
  EXPECT_GT(total, 0.85 * 30.0 * 1024 * 1024 * 1024);
  // One request's verify pass (4 tokens) touches few experts; 48 requests' touch nearly all.
  const double one = c->cost->step_seconds(decode(1, 1000));
  const double many = c->cost->step_seconds(decode(48, 48 * 1000));
  EXPECT_GT(many, 2 * one);
}

TEST(CostModelTest, TensorParallelStepsPayForTheirAllReduces) {
  auto c = founding_case();
  ASSERT_TRUE(c);
  Efficiency slow_links;
  ASSERT_TRUE(slow_links.apply({"interconnect=0.1,allreduce_latency_us=100"}));
  auto slow = founding_case(slow_links);
  ASSERT_TRUE(slow);
  EXPECT_EQ(c->cost->inputs().allreduces_per_pass, 2 * 48);
  EXPECT_GT(slow->cost->step_seconds(decode(16, 16000)),
            c->cost->step_seconds(decode(16, 16000)) + 0.009);
}

TEST(CostModelTest, EfficiencyFactorsAreNamedCheckedAndPrinted) {
  Efficiency e;
  ASSERT_TRUE(e.apply({"bandwidth=0.5", "compute=0.25,step_overhead_us=0"}));
  EXPECT_EQ(e.bandwidth, 0.5);
  EXPECT_EQ(e.compute, 0.25);
  EXPECT_EQ(e.step_overhead_us, 0);
  EXPECT_EQ(e.describe(),
            "bandwidth=0.5 compute=0.25 interconnect=0.7 allreduce_latency_us=10 "
            "step_overhead_us=0 per_sequence_us=0 layer_overhead_us=0 request_overhead_us=0 "
            "accept_length=0");
  auto bad = e.apply({"speed=2"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("bandwidth, compute"), std::string::npos) << bad.message();
  EXPECT_FALSE(e.apply({"bandwidth=0"}));
  EXPECT_FALSE(e.apply({"compute=abc"}));
  EXPECT_FALSE(e.apply({"bandwidth"}));
}

TEST(CostModelTest, HalvingBandwidthEfficiencyDoublesAMemoryBoundStep) {
  Efficiency half;
  ASSERT_TRUE(half.apply({"bandwidth=0.4,step_overhead_us=0"}));
  Efficiency full;
  ASSERT_TRUE(full.apply({"step_overhead_us=0"}));
  auto a = llama_case(full);
  auto b = llama_case(half);
  ASSERT_TRUE(a && b);
  EXPECT_NEAR(b->cost->step_seconds(decode(4, 4000)), 2 * a->cost->step_seconds(decode(4, 4000)),
              1e-12);
}

TEST(CostModelTest, EverySequenceInAStepAddsItsOwnCost) {
  Efficiency base, per_sequence;
  ASSERT_TRUE(per_sequence.apply({"per_sequence_us=50"}));
  auto a = llama_case(base);
  auto b = llama_case(per_sequence);
  ASSERT_TRUE(a && b);
  for (std::int64_t n : {1, 8, 64}) {
    const StepCost cost = b->cost->step_cost(decode(n, n * 1000));
    EXPECT_NEAR(cost.per_sequence, 50e-6 * static_cast<double>(n), 1e-12);
    EXPECT_NEAR(cost.total() - a->cost->step_seconds(decode(n, n * 1000)),
                50e-6 * static_cast<double>(n), 1e-12);
  }
}

TEST(CostModelTest, TheTermsAddUpAndAMemoryBoundDecodeIsItsReads) {
  auto c = llama_case();
  ASSERT_TRUE(c);
  const CostInputs& in = c->cost->inputs();
  const StepCost cost = c->cost->step_cost(decode(4, 4000));
  double sum = 0;
  for (const auto& [name, seconds] : cost.terms())
    sum += seconds;
  EXPECT_NEAR(sum, cost.total(), 1e-15);
  EXPECT_NEAR(cost.weights, in.dense_weight_bytes / in.memory_bytes_per_s, 1e-12);
  EXPECT_NEAR(cost.cache, 4000 * in.kv_bytes_per_token / in.memory_bytes_per_s, 1e-12);
  EXPECT_EQ(cost.matmul, 0);  // the compute side does not bind
  EXPECT_NEAR(cost.overhead, 400e-6, 1e-15);
  // A long prefill binds on compute: its linear layers take the time, not the weights.
  const StepCost long_prefill = c->cost->step_cost(prefill(8192));
  EXPECT_GT(long_prefill.matmul, 0);
  EXPECT_EQ(long_prefill.weights, 0);
}

TEST(CostModelTest, ADecodeBatchComputesItsCapturedGraphsPaddedSize) {
  // Compute so slow that decode binds on it: the padded rows cost their FLOPs.
  Efficiency slow;
  ASSERT_TRUE(slow.apply({"compute=0.0001,step_overhead_us=0"}));
  auto c = llama_case(slow);
  ASSERT_TRUE(c);
  const std::vector<std::int64_t>& sizes = c->shape.graph_batch_sizes;
  ASSERT_FALSE(sizes.empty());
  // The first batch size between two captured sizes, and the captured size above it.
  std::int64_t between = 0, captured = 0;
  for (std::size_t i = 1; i < sizes.size() && between == 0; ++i) {
    if (sizes[i] - sizes[i - 1] > 1) {
      between = sizes[i - 1] + 1;
      captured = sizes[i];
    }
  }
  ASSERT_GT(between, 0);
  const StepCost odd = c->cost->step_cost(decode(between, between * 100));
  const StepCost full = c->cost->step_cost(decode(captured, between * 100));
  EXPECT_GT(odd.graph_padding, 0);
  // The padded batch computes what the captured size computes (same context, same KV reads).
  EXPECT_NEAR(odd.total(), full.total() - full.per_sequence + odd.per_sequence, 1e-9);
  // Past the largest captured size the batch runs eagerly, unpadded.
  const std::int64_t eager = sizes.back() + 1;
  EXPECT_EQ(c->cost->step_cost(decode(eager, eager * 100)).graph_padding, 0);
}

}  // namespace
}  // namespace servescope
