// The plan for people: outputs first, then what resolved differently from what was typed,
// the memory budget, and findings.
#pragma once

#include <string>

#include "engines/plan.h"
#include "engines/scenario.h"

namespace servescope {

std::string render_plan_text(const Scenario& scenario, const Plan& plan);
/// "sglang 2026-07-20 · Qwen/Qwen3.5-122B-A10B-FP8 · 4 × rtx-pro-6000 (SM12.0, 97,887 MiB)"
std::string scenario_headline(const Scenario& scenario, const Plan& plan);

}  // namespace servescope
