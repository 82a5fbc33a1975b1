// `fit`: from a target to the configurations that meet it. Searches GPU kinds, GPU counts and
// the parallelism that spreads a model over them, then per hardware point the least change to
// the user's flags (memory fraction, KV-cache dtype, any --vary'd flag) that meets the target,
// planning every candidate with the engine's own rules. Each configuration it returns carries
// the scenario it was planned from, so its figures can be replanned and checked.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine.h"

namespace servescope {

/// What the configuration must do; any combination.
struct FitTarget {
  std::optional<std::int64_t> concurrency;  // this many requests resident at once...
  std::optional<std::int64_t> context;      // ...of this many tokens each (or served at all)
  bool longest_context = false;             // --context max: the longest context that meets
                                            // the rest (concurrency 1 unless given)
  std::optional<std::int64_t> kv_tokens;
  std::optional<std::int64_t> max_running_requests;
  // Only that the engine starts: a latency target (cli/fit_latency.h) judges the rest.
  bool starts_only = false;
  bool any() const {
    return concurrency || context || longest_context || kv_tokens || max_running_requests ||
           starts_only;
  }
  std::string describe() const;
};

/// A flag fit may set to each of `values` besides leaving it as the command has it.
struct FitVariation {
  std::string flag;  // canonical
  std::string spelled;
  std::vector<std::string> values;  // {""} for a store-true flag
};

struct FitSpace {
  std::vector<GpuSpec> gpus;     // the GPU kinds to try
  std::optional<int> gpu_count;  // --gpus: exactly this many GPUs (per node × nodes)
  int max_gpus = 8;
  int gpus_per_node = 8;
  int max_nodes = 1;
  bool vary_parallelism = true;
  // Data-parallel replicas (--vary dp): each replica plans as one engine; fit counts the
  // requests, running slots and KV tokens of all of them.
  bool vary_data_parallel = false;
  bool vary_fraction = true;
  bool vary_kv_dtype = true;
  bool vary_request_limit = true;
  bool vary_context = true;
  std::optional<double> fraction_low, fraction_high;  // --vary fraction=A..B
  std::vector<FitVariation> extra;                    // --vary FLAG=V1,V2
  // Flags of the user's command fit may take out (back to the engine's default): those a
  // capacity rule reads, besides the ones fit sets itself; at most this many, in typed order.
  bool vary_typed_flags = true;
  std::size_t max_typed_removals = 4;
  std::vector<std::string> kept_flags;               // --keep FLAG: never taken out
  std::map<std::string, double> price_per_gpu_hour;  // by GPU key
  std::size_t limit = 10;
  std::int64_t context_step = 256;  // the grid the longest context is searched on
  // Skip candidates that cannot rank (cost bound) or that a monotone figure decides (bisection
  // on the fraction and the context). Off: every candidate is planned (for tests and bench).
  bool prune = true;
};

/// The figures that decide a configuration, as its plan states them.
struct FitFigures {
  double kv_tokens = 0;
  double request_limit = 0;  // 0: the engine's plan states none
  double at_context = 0;     // the request length the two figures below count in
  double kv_requests = 0;    // requests of that length the KV cache holds
  double concurrency = 0;    // of those, resident at once under the running-request limit
  double context = 0;
  double fraction = 0;
  int replicas = 1;        // data-parallel replicas: the figures above are one replica's
  bool estimated = false;  // some plan input is an estimate: the figures are "~"
};

struct FitConfiguration {
  std::string gpu;  // catalog key
  int gpus = 0;     // in all
  int nodes = 1;
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  int data_parallel = 1;
  Scenario scenario;                 // what was planned: replanning it gives `figures`
  std::vector<std::string> changes;  // flag changes against the user's command, as labels
  std::string command;               // the launch command, shell-quoted
  FitFigures figures;
  bool meets = false;
  bool starts = true;
  double ratio = 0;     // the worst of achieved / needed over the targets
  std::string binding;  // the limit that binds ("KV cache: 52 requests of 32768 tokens")
  std::string why_not;  // for a miss: the engine's startup error or the figure short
  double cost = 0;      // GPUs, or USD per hour with --price
  // A latency target's verdict, from `simulate`'s model (never exact): its figures and factors.
  struct Simulated {
    double rate = 0;  // requests per second offered
    double ttft_p99_ms = 0, tpot_p99_ms = 0, requests_per_s = 0;
    std::string factors;  // "bandwidth=0.80 compute=0.50 ..."
  };
  std::optional<Simulated> simulated;
};

struct FitResult {
  std::string engine;
  std::string version;
  std::string model;
  FitTarget target;
  std::vector<FitConfiguration> configurations;  // meeting the target, best first
  std::vector<FitConfiguration> closest;         // the best that miss, closest first
  std::size_t hardware_points = 0;               // GPU kind × count × parallelism considered
  std::size_t plans = 0;                         // plans computed
  std::string cost_unit;                         // "GPUs" or "USD/h"
  std::string multi_node_note;
};

/// Searches `space` around `base` (the user's command, or the bare model) for configurations
/// meeting `target`. Fails for an engine without fit knobs or an empty space.
Result<FitResult> fit_configurations(const Engine& engine, const Scenario& base,
                                     const FitTarget& target, const FitSpace& space);

}  // namespace servescope
