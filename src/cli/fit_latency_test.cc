// fit's latency target: configurations are simulated in rank order; those within the p99
// limits stay, those past them move to the misses with the figure that fails; the verdict is
// the same simulate would give for the configuration's own command.
#include "cli/fit_latency.h"

#include <gtest/gtest.h>

#include "catalog/gpu_catalog.h"
#include "core/text.h"
#include "diagnose/scenario_builder.h"

namespace servescope {
namespace {

TEST(FitLatency, KeepsWhatMeetsTheP99AndMovesTheRestToTheMisses) {
  ScenarioOptions o;
  o.gpu = "h100-sxm";
  o.command = *split_command_line("vllm serve Qwen/Qwen3-8B");
  auto b = build_scenario(o);
  ASSERT_TRUE(b) << b.message();
  FitTarget target;
  target.starts_only = true;
  FitSpace space;
  for (const char* g : {"h100-sxm", "l40s"})
    space.gpus.push_back(*GpuCatalog::builtin().find(g)->spec);
  space.max_gpus = 2;
  space.limit = 25;
  auto r = fit_configurations(*b->engine, b->scenario, target, space);
  ASSERT_TRUE(r) << r.message();
  const std::size_t capacity_rows = r->configurations.size();
  LatencyTarget t;
  t.rate = 8;
  t.tpot_p99_ms = 30;
  t.requests = 200;
  ASSERT_TRUE(apply_latency_target(*b->engine, *r, t, 10));
  ASSERT_FALSE(r->configurations.empty());
  std::size_t simulated_misses = 0;
  for (const FitConfiguration& c : r->configurations) {
    ASSERT_TRUE(c.simulated);
    EXPECT_LE(c.simulated->tpot_p99_ms, 30) << c.command;
  }
  for (const FitConfiguration& c : r->closest) {
    if (!c.simulated)
      continue;
    ++simulated_misses;
    EXPECT_GT(c.simulated->tpot_p99_ms, 30) << c.command;
    EXPECT_NE(c.why_not.find("p99 TPOT"), std::string::npos) << c.why_not;
  }
  // One L40S cannot keep an 8B model's p99 TPOT under 30 ms at 8 requests/s in the model.
  EXPECT_GE(simulated_misses, 1u);
  EXPECT_LE(r->configurations.size() + simulated_misses, capacity_rows);
  // Deterministic: the same configuration simulated again gives the same figure.
  FitResult again = *r;
  again.configurations.resize(1);
  again.configurations[0].simulated.reset();
  ASSERT_TRUE(apply_latency_target(*b->engine, again, t, 1));
  EXPECT_EQ(again.configurations[0].simulated->tpot_p99_ms,
            r->configurations[0].simulated->tpot_p99_ms);
}

TEST(FitLatency, DescribesTheTargetAsSimulated) {
  LatencyTarget t;
  t.rate = 4;
  t.ttft_p99_ms = 500;
  EXPECT_EQ(t.describe(), "4 requests/s with p99 TTFT ≤ 500 ms (1024 → 256 tokens, simulated)");
}

}  // namespace
}  // namespace servescope
