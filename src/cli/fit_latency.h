// A throughput/latency target for `fit`, judged by `simulate`'s model: each configuration that
// meets the capacity target is simulated at the offered rate, and those whose p99 TTFT or TPOT
// exceed the target move to the misses. Model-based (roofline, stated factors), never exact.
#pragma once

#include <optional>

#include "core/result.h"
#include "diagnose/fit.h"
#include "twin/workload.h"

namespace servescope {

struct LatencyTarget {
  double rate = 0;  // requests per second, Poisson arrivals
  std::optional<double> ttft_p99_ms, tpot_p99_ms;
  std::int64_t requests = 400;
  LengthSpec input = LengthSpec::fixed(1024);
  LengthSpec output = LengthSpec::fixed(256);
  std::string describe() const;
};

/// Simulates `result`'s configurations in rank order, keeps at most `limit` that meet the
/// latency target and moves the others to `result.closest`. Fails for an engine without a twin
/// profile.
Status apply_latency_target(const Engine& engine, FitResult& result, const LatencyTarget& target,
                            std::size_t limit);

}  // namespace servescope
