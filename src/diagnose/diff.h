// `diff`: two scenarios (commands, engine versions, GPUs or logs), what differs in their
// plans, and which input changes cause it.
#pragma once

#include <string>
#include <vector>

#include "diagnose/attribution.h"
#include "engines/engine.h"

namespace servescope {

struct DiffResult {
  Plan a, b;
  std::vector<ScenarioChange> inputs;  // what differs between A and B
  AttributionResult attribution;
};

/// Fails only on engine errors; A and B must use the same engine.
Result<DiffResult> diff_scenarios(const Engine& engine, const Scenario& a, const Scenario& b);

}  // namespace servescope
