// What `simulate` and `twin` both start from: the scenario, its plan, and the engine's twin
// profile with the serving shape the plan implies.
#pragma once

#include <memory>

#include "core/result.h"
#include "diagnose/scenario_builder.h"
#include "engines/twin_profile.h"

namespace servescope {

struct ServingSetup {
  BuiltScenario built;
  Plan plan;
  const TwinProfile* profile = nullptr;
};

/// Builds the scenario and plan; fails with one line for bad input or an engine without a
/// twin profile. A plan whose engine would not start is returned (plan.starts == false).
Result<std::unique_ptr<ServingSetup>> prepare_serving(const ScenarioOptions& options);

}  // namespace servescope
