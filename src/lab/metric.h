// What `bisect` measures per configuration: whether the server starts, a capacity figure its
// log states (any output the engine computes: max_running_requests, max_total_num_tokens, ...,
// read through the engine's log grammar), or a bench figure measured against the ready server
// ("output_throughput@c=64": closed loop with 64 clients; "ttft_p99@rate=4": open loop at 4
// requests/s). Capacity and startup metrics are deterministic; bench figures are noisy and
// take repeats and a tolerance.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

struct MetricSpec {
  enum class Kind { kStartup, kCapacity, kBench };
  Kind kind = Kind::kStartup;
  std::string name;  // as typed: "startup", "max_running_requests", "output_throughput@c=64"
  std::string
      figure;        // kCapacity: the engine output; kBench: the bench figure ("output_throughput")
  std::string load;  // kBench: "c=64" or "rate=4"
  bool higher_is_better = true;  // kBench: throughputs up, latencies down

  bool noisy() const { return kind == Kind::kBench; }
};

/// The bench figures a metric may name (the load library's result fields).
const std::vector<std::string>& bench_figure_names();

/// Parses a metric name. `capacity_outputs` are the engine's output names (empty when the
/// template launches no modelled engine: capacity metrics are then an error). Unknown names
/// fail with one line listing the valid ones and the closest match.
Result<MetricSpec> parse_metric(std::string_view name,
                                const std::vector<std::string>& capacity_outputs);

}  // namespace servescope
