// fit's search against the naive loop of full plans on the same space (issue 32): 4 GPU kinds ×
// every tensor/pipeline split up to 8 GPUs × 5 varied flags (memory fraction, KV-cache dtype,
// the context and running-request limit the target sets, --max-num-batched-tokens and
// --enforce-eager), target 64 requests of 32,768 tokens of Qwen3-32B on vLLM 0.33.0. The
// counters are the plans each computed; the answers are the same (diagnose/fit_test.cc).
#include <benchmark/benchmark.h>

#include "catalog/gpu_catalog.h"
#include "core/text.h"
#include "diagnose/fit.h"
#include "diagnose/scenario_builder.h"

namespace servescope {
namespace {

struct Search {
  BuiltScenario base;
  FitTarget target;
  FitSpace space;
};

Search search_space() {
  ScenarioOptions o;
  o.engine = "vllm@0.33.0";
  o.gpu = "h100-sxm";
  o.command = *split_command_line("vllm serve Qwen/Qwen3-32B");
  Search s{*build_scenario(o), {}, {}};
  s.target.concurrency = 64;
  s.target.context = 32768;
  for (const char* g : {"h100-sxm", "h200", "a100-80gb", "l40s"})
    s.space.gpus.push_back(*GpuCatalog::builtin().find(g)->spec);
  s.space.extra = {{"--max-num-batched-tokens", "--max-num-batched-tokens", {"4096", "8192"}},
                   {"--enforce-eager", "--enforce-eager", {""}}};
  return s;
}

void run(benchmark::State& state, bool prune) {
  Search s = search_space();
  s.space.prune = prune;
  std::size_t plans = 0, found = 0;
  for (auto _ : state) {
    auto r = fit_configurations(*s.base.engine, s.base.scenario, s.target, s.space);
    plans = r->plans;
    found = r->configurations.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["plans"] = static_cast<double>(plans);
  state.counters["configurations"] = static_cast<double>(found);
}

void BM_FitPruned(benchmark::State& state) {
  run(state, true);
}
void BM_FitNaiveLoop(benchmark::State& state) {
  run(state, false);
}
BENCHMARK(BM_FitPruned)->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_FitNaiveLoop)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace servescope
