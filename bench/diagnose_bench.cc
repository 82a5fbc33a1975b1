// diff: attribution of 16 changed flags; why: the whole candidate space with pairs, founding case.
#include <benchmark/benchmark.h>

#include "core/text.h"
#include "diagnose/diff.h"
#include "diagnose/scenario_builder.h"
#include "diagnose/why.h"

namespace servescope {
namespace {

BuiltScenario founding(const std::string& extra) {
  ScenarioOptions o;
  o.gpu = "rtx-pro-6000";
  o.gpus = 4;
  o.free_before_load_gib = 94.6;
  o.free_after_load_gib = 64.6;
  o.command = *split_command_line(
      "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
      "--speculative-algorithm NEXTN " +
      extra);
  return std::move(*build_scenario(o));
}

void BM_DiffSixteenChangedFlags(benchmark::State& state) {
  const BuiltScenario a = founding("");
  const BuiltScenario b = founding(
      "--trust-remote-code --enable-metrics --log-level debug --host 0.0.0.0 --port 31000 "
      "--enable-fused-moe-sum-all-reduce --enable-flashinfer-allreduce-fusion --api-key k "
      "--served-model-name qwen "
      "--random-seed 7 --tool-call-parser qwen --reasoning-parser qwen3 --watchdog-timeout 600 "
      "--download-dir /tmp/x "
      "--enable-cache-report --mamba-ssm-dtype bfloat16");
  for (auto _ : state) {
    auto d = diff_scenarios(*a.engine, a.scenario, b.scenario);
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_DiffSixteenChangedFlags)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

void BM_WhyFoundingCase(benchmark::State& state) {
  const BuiltScenario a = founding("");
  for (auto _ : state) {
    auto w =
        explain_observation(*a.engine, a.scenario, Observation{"max_running_requests", 26, 48});
    benchmark::DoNotOptimize(w);
  }
}
BENCHMARK(BM_WhyFoundingCase)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace servescope
