// `lint`: the plan's own findings, the engine's lint rules, and — engine-neutral — which typed
// flags move a capacity output (each flag removed, the plan recomputed).
#pragma once

#include <vector>

#include "engines/engine.h"

namespace servescope {

struct LintResult {
  Plan plan;
  std::vector<Finding> findings;  // errors first
  bool has_error() const;
};

/// Fails when the engine cannot plan the scenario at all.
Result<LintResult> lint_scenario(const Engine& engine, const Scenario& scenario);

}  // namespace servescope
