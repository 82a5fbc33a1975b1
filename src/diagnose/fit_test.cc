// fit: every configuration it prints, replanned, gives the figures it claimed and meets the
// target; the pruned search (cost bound, bisection on the fraction and the context) returns
// what planning every candidate returns; each target kind on both engines, on a hybrid, an MLA,
// a sliding-window model and across nodes.
#include "diagnose/fit.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/gpu_catalog.h"
#include "core/text.h"
#include "diagnose/scenario_builder.h"

namespace servescope {
namespace {

BuiltScenario base(const std::string& command, const std::string& gpu = "h100-sxm",
                   const std::string& engine = "") {
  ScenarioOptions o;
  o.gpu = gpu;
  o.engine = engine;
  o.command = *split_command_line(command);
  auto built = build_scenario(o);
  EXPECT_TRUE(built) << built.message();
  return std::move(*built);
}

FitSpace space_of(const std::vector<std::string>& gpus, int max_gpus = 8) {
  FitSpace s;
  for (const std::string& g : gpus)
    s.gpus.push_back(*GpuCatalog::builtin().find(g)->spec);
  s.max_gpus = max_gpus;
  return s;
}

FitResult fitted(const BuiltScenario& b, const FitTarget& t, const FitSpace& s) {
  auto r = fit_configurations(*b.engine, b.scenario, t, s);
  EXPECT_TRUE(r) << r.message();
  return std::move(*r);
}

double output(const Plan& p, const std::string& id) {
  return p.has_output(id) ? p.output(id).as_number() : 0;
}

// Honesty: each configuration, planned again from its own scenario, states what fit claimed,
// starts, and meets every part of the target.
void expect_replans_as_claimed(const Engine& engine, const FitResult& r, const FitTarget& t) {
  const FitKnobs& k = *engine.fit_knobs();
  ASSERT_FALSE(r.configurations.empty());
  for (const FitConfiguration& c : r.configurations) {
    SCOPED_TRACE(c.command);
    auto reparsed = engine.parse_command(*split_command_line(c.command));
    ASSERT_TRUE(reparsed) << reparsed.message();
    Scenario s = c.scenario;
    s.command = *reparsed;  // the printed command, not fit's internal one
    auto plan = engine.plan(s);
    ASSERT_TRUE(plan) << plan.message();
    EXPECT_TRUE(plan->starts) << plan->startup_error;
    const double tokens = output(*plan, k.kv_tokens_output);
    EXPECT_EQ(tokens, c.figures.kv_tokens);
    EXPECT_EQ(output(*plan, k.request_limit_output), c.figures.request_limit);
    EXPECT_EQ(output(*plan, k.context_output), c.figures.context);
    EXPECT_EQ(engine.gpus_needed(*reparsed) * c.nodes, c.gpus);
    if (t.kv_tokens) {
      EXPECT_GE(tokens, static_cast<double>(*t.kv_tokens));
    }
    if (t.max_running_requests) {
      EXPECT_GE(output(*plan, k.request_limit_output),
                static_cast<double>(*t.max_running_requests));
    }
    if (t.context) {
      EXPECT_GE(output(*plan, k.context_output), static_cast<double>(*t.context));
    }
    if (t.concurrency) {
      const double len = t.context ? static_cast<double>(*t.context) : c.figures.context;
      const double kv_requests =
          !k.concurrency_output.empty() && output(*plan, k.context_output) == len
              ? output(*plan, k.concurrency_output)
              : std::floor(tokens / len);
      EXPECT_GE(kv_requests, static_cast<double>(*t.concurrency));
      EXPECT_GE(output(*plan, k.request_limit_output), static_cast<double>(*t.concurrency));
    }
    EXPECT_TRUE(c.meets);
    EXPECT_GE(c.ratio, 1.0);
  }
}

// Pruned and unpruned searches agree row for row; pruning planned fewer candidates.
void expect_pruned_is_brute_force(const BuiltScenario& b, const FitTarget& t, FitSpace s,
                                  bool strictly_fewer = true) {
  s.prune = true;
  const FitResult pruned = fitted(b, t, s);
  s.prune = false;
  const FitResult brute = fitted(b, t, s);
  ASSERT_EQ(pruned.configurations.size(), brute.configurations.size());
  for (std::size_t i = 0; i < pruned.configurations.size(); ++i) {
    EXPECT_EQ(pruned.configurations[i].command, brute.configurations[i].command) << i;
    EXPECT_EQ(pruned.configurations[i].gpu, brute.configurations[i].gpu) << i;
    EXPECT_EQ(pruned.configurations[i].figures.kv_tokens, brute.configurations[i].figures.kv_tokens)
        << i;
  }
  if (strictly_fewer) {
    EXPECT_LT(pruned.plans, brute.plans);
  } else {
    EXPECT_LE(pruned.plans, brute.plans);
  }
}

TEST(Fit, VllmConcurrencyAtContextSetsTheContextAndReplansAsClaimed) {
  const BuiltScenario b = base("vllm serve Qwen/Qwen3-32B");
  FitTarget t;
  t.concurrency = 64;
  t.context = 32768;
  const FitResult r = fitted(b, t, space_of({"h100-sxm", "h200"}));
  expect_replans_as_claimed(*b.engine, r, t);
  // vLLM states its concurrency at --max-model-len: fit launches with the target's length.
  for (const FitConfiguration& c : r.configurations)
    EXPECT_NE(c.command.find("--max-model-len 32768"), std::string::npos) << c.command;
  // The cheapest first: nothing cheaper meets, and what is cheaper is listed as short.
  for (const FitConfiguration& m : r.closest) {
    EXPECT_LT(m.cost, r.configurations.front().cost);
    EXPECT_FALSE(m.meets);
  }
  for (std::size_t i = 1; i < r.configurations.size(); ++i)
    EXPECT_LE(r.configurations[i - 1].cost, r.configurations[i].cost);
}

TEST(Fit, SglangHybridRestoresTheRunningRequestLimitWithTheLeastChange) {
  // The founding case after a regression: the fusion flag cannot start on SM120 and a smaller
  // mamba share caps the running requests below 48. fit takes both out, and nothing else.
  const BuiltScenario b = base(
      "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
      "--speculative-algorithm NEXTN --enable-flashinfer-allreduce-fusion "
      "--mamba-full-memory-ratio 0.24",
      "rtx-pro-6000");
  FitTarget t;
  t.max_running_requests = 48;
  FitSpace s = space_of({"rtx-pro-6000"});
  s.gpu_count = 4;
  const FitResult r = fitted(*&b, t, s);
  expect_replans_as_claimed(*b.engine, r, t);
  const FitConfiguration& best = r.configurations.front();
  EXPECT_EQ(best.tensor_parallel, 4);
  EXPECT_EQ(best.changes.size(), 2u);
  EXPECT_EQ(best.command.find("--enable-flashinfer-allreduce-fusion"), std::string::npos);
  expect_pruned_is_brute_force(b, t, s);
}

TEST(Fit, SglangConcurrencyRaisesTheRunningRequestLimitWhenTheKvCacheHoldsIt) {
  const BuiltScenario b = base(
      "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
      "--speculative-algorithm NEXTN",
      "rtx-pro-6000");
  FitTarget t;
  t.concurrency = 64;
  t.context = 8192;
  FitSpace s = space_of({"rtx-pro-6000"});
  s.gpu_count = 4;
  const FitResult r = fitted(b, t, s);
  expect_replans_as_claimed(*b.engine, r, t);
  EXPECT_NE(r.configurations.front().command.find("--max-running-requests 64"), std::string::npos);
}

TEST(Fit, MlaModelAcrossTwoNodes) {
  const BuiltScenario b = base("vllm serve deepseek-ai/DeepSeek-V3");
  FitTarget t;
  t.kv_tokens = 500000;
  FitSpace s = space_of({"h100-sxm"});
  s.max_nodes = 2;
  s.max_gpus = 16;
  const FitResult r = fitted(b, t, s);
  expect_replans_as_claimed(*b.engine, r, t);
  // 671B parameters in FP8 need more than one node of 80 GB GPUs.
  EXPECT_EQ(r.configurations.front().nodes, 2);
  EXPECT_EQ(r.configurations.front().gpus, 16);
  EXPECT_NE(r.configurations.front().command.find("--nnodes 2"), std::string::npos);
  expect_pruned_is_brute_force(b, t, s);
}

TEST(Fit, SlidingWindowModelAndTheFractionBisection) {
  // vLLM 0.33 sizes the KV cache from gpu_memory_utilization (0.92 unset): a target just past
  // the default needs a higher fraction, found by bisection and equal to the brute-force scan.
  const BuiltScenario on33 = base("vllm serve openai/gpt-oss-20b", "l40s", "vllm@0.33.0");
  const BuiltScenario& b = on33;
  FitSpace s = space_of({"l40s"}, 1);
  s.vary_kv_dtype = false;
  auto plan = b.engine->plan(on33.scenario);
  ASSERT_TRUE(plan);
  FitTarget t;
  t.kv_tokens = static_cast<std::int64_t>(output(*plan, "gpu_kv_cache_size_tokens") * 1.015);
  const FitResult r = fitted(on33, t, s);
  expect_replans_as_claimed(*b.engine, r, t);
  EXPECT_NE(r.configurations.front().command.find("--gpu-memory-utilization 0.9"),
            std::string::npos);
  // Three grid points above 0.92: bisection saves nothing here, but must agree.
  expect_pruned_is_brute_force(on33, t, s, false);
}

TEST(Fit, LongestContextIsTheEdge) {
  const BuiltScenario b = base("vllm serve Qwen/Qwen3-8B");
  FitTarget t;
  t.longest_context = true;
  t.concurrency = 8;
  FitSpace s = space_of({"l4"}, 1);
  s.vary_kv_dtype = false;
  s.context_step = 512;
  const FitResult r = fitted(b, t, s);
  ASSERT_FALSE(r.configurations.empty());
  const FitConfiguration& c = r.configurations.front();
  FitTarget at = t;
  at.longest_context = false;
  at.context = static_cast<std::int64_t>(c.figures.at_context);
  expect_replans_as_claimed(*b.engine, r, at);
  // One step longer does not hold 8 requests.
  FitTarget longer = at;
  longer.context = *at.context + s.context_step;
  FitSpace one = s;
  one.vary_parallelism = false;
  const FitResult none = fitted(b, longer, one);
  EXPECT_TRUE(none.configurations.empty());
  expect_pruned_is_brute_force(b, t, s);
}

TEST(Fit, AnImpossibleTargetHasTheClosestAndNoConfiguration) {
  const BuiltScenario b = base("vllm serve Qwen/Qwen3-32B");
  FitTarget t;
  t.kv_tokens = 1'000'000'000;
  const FitResult r = fitted(b, t, space_of({"h100-sxm"}, 2));
  EXPECT_TRUE(r.configurations.empty());
  ASSERT_FALSE(r.closest.empty());
  EXPECT_TRUE(r.closest.front().starts);
  EXPECT_LT(r.closest.front().ratio, 0.01);
}

TEST(Fit, TheCostBoundStopsAtTheLimit) {
  const BuiltScenario b = base("vllm serve Qwen/Qwen3-8B");
  FitTarget t;
  t.kv_tokens = 100000;
  FitSpace s = space_of({"h100-sxm", "h200", "a100-80gb", "l40s"});
  s.limit = 3;
  const FitResult r = fitted(b, t, s);
  ASSERT_EQ(r.configurations.size(), 3u);
  for (const FitConfiguration& c : r.configurations)
    EXPECT_EQ(c.gpus, 1);
  expect_pruned_is_brute_force(b, t, s);
}

TEST(Fit, PricesRankByCost) {
  const BuiltScenario b = base("vllm serve Qwen/Qwen3-32B");
  FitTarget t;
  t.concurrency = 16;
  t.context = 8192;
  FitSpace s = space_of({"h100-sxm", "l40s"});
  s.price_per_gpu_hour = {{"h100-sxm", 2.5}, {"l40s", 0.8}};
  const FitResult r = fitted(b, t, s);
  ASSERT_FALSE(r.configurations.empty());
  EXPECT_EQ(r.cost_unit, "USD/h");
  for (std::size_t i = 1; i < r.configurations.size(); ++i)
    EXPECT_LE(r.configurations[i - 1].cost, r.configurations[i].cost);
  const FitConfiguration& c = r.configurations.front();
  EXPECT_DOUBLE_EQ(c.cost, c.gpus * (c.gpu == "l40s" ? 0.8 : 2.5));
}

TEST(Fit, SglangKvTokensRaiseTheFractionByBisection) {
  const BuiltScenario b = base("python -m sglang.launch_server --model-path Qwen/Qwen3-8B", "l40s");
  auto plan = b.engine->plan(b.scenario);
  ASSERT_TRUE(plan);
  FitTarget t;
  t.kv_tokens = static_cast<std::int64_t>(output(*plan, "max_total_num_tokens") * 1.05);
  FitSpace s = space_of({"l40s"}, 1);
  s.vary_kv_dtype = false;
  const FitResult r = fitted(b, t, s);
  expect_replans_as_claimed(*b.engine, r, t);
  const FitConfiguration& c = r.configurations.front();
  EXPECT_NE(c.command.find("--mem-fraction-static"), std::string::npos) << c.command;
  EXPECT_GT(c.figures.fraction, output(*plan, "mem_fraction_static"));
  // The next grid step down does not reach the target: the least fraction is the answer.
  Scenario lower = c.scenario;
  const FlagSetting* f = lower.command.find("--mem-fraction-static");
  ASSERT_NE(f, nullptr);
  const double below = std::round((c.figures.fraction - 0.01) * 1000) / 1000;
  if (below > output(*plan, "mem_fraction_static")) {
    set_flag_change("--mem-fraction-static", f->spelled, {fmt::format("{:g}", below)}, lower)
        .apply(lower);
    auto p = b.engine->plan(lower);
    ASSERT_TRUE(p);
    EXPECT_LT(output(*p, "max_total_num_tokens"), static_cast<double>(*t.kv_tokens));
  }
  expect_pruned_is_brute_force(b, t, s);
}

TEST(Fit, SglangLongestContextAndVllmRunningRequests) {
  const BuiltScenario sg =
      base("python -m sglang.launch_server --model-path Qwen/Qwen3-8B", "l40s");
  FitTarget longest;
  longest.longest_context = true;
  longest.concurrency = 16;
  FitSpace one = space_of({"l40s"}, 1);
  one.context_step = 1024;
  const FitResult r = fitted(sg, longest, one);
  ASSERT_FALSE(r.configurations.empty());
  // SGLang states no concurrency: the pool holds 16 requests of the length found, not of one
  // step more.
  for (const FitConfiguration& c : r.configurations) {
    EXPECT_GE(std::floor(c.figures.kv_tokens / c.figures.at_context), 16) << c.command;
    EXPECT_LT(std::floor(c.figures.kv_tokens / (c.figures.at_context + 1024)), 16) << c.command;
  }
  expect_pruned_is_brute_force(sg, longest, one);

  const BuiltScenario vl = base("vllm serve Qwen/Qwen3-8B", "l40s");
  FitTarget limit;
  limit.max_running_requests = 2048;
  const FitResult v = fitted(vl, limit, one);
  expect_replans_as_claimed(*vl.engine, v, limit);
  EXPECT_NE(v.configurations.front().command.find("--max-num-seqs 2048"), std::string::npos);
}

// --vary dp: replicas each plan as one engine; the target counts all of them, and each
// replica's own figures replan as claimed.
TEST(Fit, DataParallelReplicasShareTheTarget) {
  const BuiltScenario b = base("vllm serve Qwen/Qwen3-8B", "l40s");
  FitTarget t;
  t.concurrency = 24;
  t.context = 32768;
  FitSpace s = space_of({"l40s"}, 4);
  s.vary_data_parallel = true;
  s.limit = 20;
  const FitResult r = fitted(b, t, s);
  ASSERT_FALSE(r.configurations.empty());
  bool replicas = false;
  for (const FitConfiguration& c : r.configurations) {
    SCOPED_TRACE(c.command);
    auto plan = b.engine->plan(c.scenario);
    ASSERT_TRUE(plan);
    EXPECT_EQ(output(*plan, "gpu_kv_cache_size_tokens"), c.figures.kv_tokens);
    EXPECT_EQ(c.figures.replicas, c.data_parallel);
    EXPECT_EQ(c.tensor_parallel * c.pipeline_parallel * c.data_parallel, c.gpus);
    EXPECT_GE(c.data_parallel * output(*plan, "maximum_concurrency"), 24);
    if (c.data_parallel > 1) {
      replicas = true;
      EXPECT_NE(c.command.find("--data-parallel-size " + std::to_string(c.data_parallel)),
                std::string::npos);
    }
  }
  EXPECT_TRUE(replicas) << "no configuration used replicas";
  expect_pruned_is_brute_force(b, t, s);
}

// --context L alone: the engine must start and serve requests of L tokens (one at least); a
// length beyond the model's own is refused by the engine, and fit says which limit binds.
TEST(Fit, AContextAloneIsServedOrNamedShort) {
  const BuiltScenario b = base("vllm serve Qwen/Qwen3-8B", "l4");
  FitTarget t;
  t.context = 32768;
  FitSpace s = space_of({"l4"}, 2);
  s.vary_kv_dtype = false;
  const FitResult r = fitted(b, t, s);
  expect_replans_as_claimed(*b.engine, r, t);
  for (const FitConfiguration& c : r.configurations)
    EXPECT_GE(c.figures.kv_requests, 1) << c.command;
  FitTarget beyond;
  beyond.context = 10'000'000;
  const FitResult none = fitted(b, beyond, s);
  EXPECT_TRUE(none.configurations.empty());
  ASSERT_FALSE(none.closest.empty());
}

}  // namespace
}  // namespace servescope
