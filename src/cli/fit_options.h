// `fit`'s options as typed, and what they build: the engine, the scenario the search starts
// from (the user's command, or the bare model), the target and the search space. Bad input is
// one line naming the option and the fix.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/fit_latency.h"
#include "core/result.h"
#include "diagnose/fit.h"
#include "diagnose/scenario_builder.h"

namespace servescope {

struct FitOptions {
  std::string engine, model, from;
  std::vector<std::string> env;
  std::vector<std::string> gpu;  // --gpu K,K (several allowed)
  std::optional<int> gpus, max_gpus, gpus_per_node, max_nodes;
  std::optional<std::int64_t> concurrency, kv_tokens, max_running_requests, context_step;
  std::string context;             // a number, or "max"
  std::vector<std::string> vary;   // NAME[=SPEC]
  std::vector<std::string> keep;   // NAME
  std::vector<std::string> price;  // GPU=USD_PER_HOUR
  std::size_t limit = 10;
  bool exhaustive = false;
  std::string emit;  // shell, systemd, compose, k8s
  // Calibration of the GPU and parallelism the command names (scenario options); fit applies it
  // to the candidates on that GPU with that split only.
  ScenarioOptions calibration;
  // A latency target through simulate's model.
  std::optional<double> rate;
  std::string ttft_p99, tpot_p99;  // durations: 500ms, 0.5s
  std::string input_len = "1024", output_len = "256";
  std::int64_t requests = 400;
};

void add_fit_options(CLI::App& app, FitOptions& options);

struct FitRequest {
  const Engine* engine = nullptr;
  Scenario base;
  FitTarget target;
  FitSpace space;
  std::optional<LatencyTarget> latency;
  std::size_t limit = 10;  // rows shown (the space's limit is wider under a latency target)
};

Result<FitRequest> build_fit_request(const FitOptions& options,
                                     const std::vector<std::string>& launch_command);

/// The best configuration as a deployable file: a shell script, a systemd unit, a compose
/// file or a Kubernetes manifest (what `--from` reads back).
Result<std::string> emit_configuration(const std::string& form, const FitConfiguration& c,
                                       const Engine& engine);

}  // namespace servescope
