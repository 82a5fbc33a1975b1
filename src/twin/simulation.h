// The discrete-event serving simulation behind `servescope simulate`: a workload (closed loop
// at a concurrency, or open loop at a rate with an arrival process) run through the scheduler
// model, each step timed by the cost model. Deterministic for a seed; time is simulated.
#pragma once

#include <cstdint>
#include <vector>

#include "twin/cost_model.h"
#include "twin/scheduler.h"
#include "twin/stats.h"
#include "twin/workload.h"

namespace servescope {

struct LoadPoint {
  bool closed_loop = true;
  double concurrency = 1;  // closed loop: requests in flight
  double rate = 1;         // open loop: requests per second
  ArrivalProcess arrival;
};

struct SimulationInput {
  ServingShape shape;
  const CostModel* cost = nullptr;
  LoadPoint load;
  std::int64_t requests = 1000;
  LengthSpec input = LengthSpec::fixed(1024);
  LengthSpec output = LengthSpec::fixed(256);
  std::uint64_t seed = 1;
  int timeline_points = 100;
};

struct SimulationSample {
  double t = 0;  // seconds
  std::int64_t running = 0;
  std::int64_t queued = 0;
  double kv_usage = 0;
};

struct SimulationResult {
  std::int64_t completed = 0;
  std::int64_t rejected = 0;  // prompt longer than the context
  double duration_s = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double input_tokens_per_s = 0;
  Percentiles ttft_ms, tpot_ms, itl_ms, e2e_ms, queue_ms;
  double mean_running = 0, max_running = 0;
  double mean_queued = 0, max_queued = 0;
  double mean_kv_usage = 0, max_kv_usage = 0;
  double mean_in_system = 0;  // time average of requests arrived and not finished
  std::int64_t retractions = 0;
  std::int64_t prefill_steps = 0, decode_steps = 0;
  StepCost step_time;  // every step's time by term, summed (what dominated)
  std::vector<SimulationSample> timeline;
};

SimulationResult simulate(const SimulationInput& input);

}  // namespace servescope
