// What reading a command from a file and resolving a cached model add to `plan`: the same
// founding-case plan from -- CMD with a bundled model (the baseline, BM_ScenarioAndPlan*), from
// a systemd unit, and from a Hugging Face cache snapshot (the config copied out of the bundle
// into a cache layout in a temporary directory). The difference between the rows is the cost.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "catalog/embedded_data.h"
#include "diagnose/scenario_builder.h"

namespace servescope {
namespace {
namespace fs = std::filesystem;

// A unit and a cache holding Qwen3.5-122B-A10B-FP8 under another organisation (so the bundled
// config does not answer first).
struct Files {
  fs::path dir;
  Files() {
    dir = fs::temp_directory_path() / "servescope-intake-bench";
    fs::remove_all(dir);
    const fs::path snap = dir / "hub" / "models--bench--Qwen3.5-122B-A10B-FP8" / "snapshots" /
                          "0000000000000000000000000000000000000001";
    fs::create_directories(snap);
    fs::create_directories(dir / "hub" / "models--bench--Qwen3.5-122B-A10B-FP8" / "refs");
    std::ofstream(dir / "hub" / "models--bench--Qwen3.5-122B-A10B-FP8" / "refs" / "main")
        << "0000000000000000000000000000000000000001";
    std::ofstream(snap / "config.json")
        << *find_embedded_file("models/Qwen--Qwen3.5-122B-A10B-FP8.json");
    std::ofstream(dir / "sglang.service")
        << "[Unit]\nDescription=SGLang\n\n[Service]\n"
           "Environment=\"CUDA_VISIBLE_DEVICES=0,1,2,3\" SGLANG_ENABLE_SPEC_V2=1\n"
           "ExecStart=/opt/venv/bin/python -m sglang.launch_server \\\n"
           "  --model-path bench/Qwen3.5-122B-A10B-FP8 --tp 4 \\\n"
           "  --speculative-algorithm NEXTN --port 30000\nRestart=always\n";
    setenv("HF_HUB_CACHE", (dir / "hub").c_str(), 1);
    setenv("HF_HUB_OFFLINE", "1", 1);
  }
};

ScenarioOptions calibrated() {
  ScenarioOptions o;
  o.gpu = "rtx-pro-6000";
  o.gpus = 4;
  o.free_before_load_gib = 94.6;
  o.free_after_load_gib = 64.6;
  return o;
}

void run(benchmark::State& state, const ScenarioOptions& options) {
  for (auto _ : state) {
    auto built = build_scenario(options);
    if (!built) {
      state.SkipWithError(built.message().c_str());
      return;
    }
    auto plan = built->engine->plan(built->scenario);
    benchmark::DoNotOptimize(plan);
  }
}

void BM_PlanFromCommandLineBundledModel(benchmark::State& state) {
  static Files files;
  ScenarioOptions o = calibrated();
  o.command = {
      "python", "-m", "sglang.launch_server",    "--model-path", "Qwen/Qwen3.5-122B-A10B-FP8",
      "--tp",   "4",  "--speculative-algorithm", "NEXTN"};
  run(state, o);
}
void BM_PlanFromSystemdUnitCachedModel(benchmark::State& state) {
  static Files files;
  ScenarioOptions o = calibrated();
  o.from = (files.dir / "sglang.service").string();
  run(state, o);
}
BENCHMARK(BM_PlanFromCommandLineBundledModel)
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_PlanFromSystemdUnitCachedModel)
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace servescope
