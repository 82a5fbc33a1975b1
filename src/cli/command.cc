#include "cli/command.h"

#include <iostream>

namespace servescope {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {"plan", "predict what the engine decides at startup, every number with its derivation",
       run_plan},
      {"explain", "show the derivation tree of an output down to its inputs", run_explain},
      {"lint", "criticise a launch command for this GPU, model and engine version", run_lint},
      {"diff", "attribute every output that differs between two scenarios to its causes", run_diff},
      {"check", "rebuild a log's scenario, predict, and compare every logged figure", run_check},
      {"why", "search the changes that reproduce an observed value, and plan the experiments",
       run_why},
      {"fit", "search GPUs, parallelism and flags for the configurations that meet a target",
       run_fit},
      {"logs", "read a server log: capacity facts, engine version, batch timeline", run_logs},
      {"gpus", "list the GPU catalog", run_gpus},
      {"models", "list the bundled model configs", run_models},
      {"simulate", "simulate serving under the plan's limits with a roofline cost model",
       run_simulate},
      {"twin", "serve the engine's HTTP API from the plan: its log, limits, queueing and metrics",
       run_twin},
      {"bench", "drive a server with load: latency from the intended send, real concurrency",
       run_bench},
      {"bisect", "launch the server per configuration and isolate the flags that change a metric",
       run_bisect},
      {"report", "render a --json result (plan, check, diff, bench, bisect) as HTML or Markdown",
       run_report},
  };
  return kCommands;
}

ExitStatus usage_error(std::string_view message) {
  std::cerr << "servescope: error: " << message << "\n";
  return ExitStatus::kUsage;
}

}  // namespace servescope
