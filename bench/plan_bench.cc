// One complete plan, with its derivation graph, for the founding scenario (make demo).
#include <benchmark/benchmark.h>

#include "core/text.h"
#include "diagnose/scenario_builder.h"

namespace servescope {
namespace {

ScenarioOptions founding_case() {
  ScenarioOptions o;
  o.gpu = "rtx-pro-6000";
  o.gpus = 4;
  o.free_before_load_gib = 94.6;
  o.free_after_load_gib = 64.6;
  o.command = *split_command_line(
      "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
      "--speculative-algorithm NEXTN");
  return o;
}

// The rules alone: scenario already built (config read, GPU found, command parsed).
void BM_PlanFoundingCase(benchmark::State& state) {
  auto built = build_scenario(founding_case());
  for (auto _ : state) {
    auto plan = built->engine->plan(built->scenario);
    benchmark::DoNotOptimize(plan);
  }
}
BENCHMARK(BM_PlanFoundingCase)
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

// Everything a `servescope plan` invocation does after start-up: parse the command, read the
// bundled config.json, look up the GPU, plan.
void BM_ScenarioAndPlanFoundingCase(benchmark::State& state) {
  const ScenarioOptions options = founding_case();
  for (auto _ : state) {
    auto built = build_scenario(options);
    auto plan = built->engine->plan(built->scenario);
    benchmark::DoNotOptimize(plan);
  }
}
BENCHMARK(BM_ScenarioAndPlanFoundingCase)
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace servescope
