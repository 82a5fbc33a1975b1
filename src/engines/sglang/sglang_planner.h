// Computes an SGLang plan: phase A (server args), then the capacity rules, then the
// findings a plan always carries (unmodelled flags, deprecations, startup failures).
#pragma once

#include "core/result.h"
#include "engines/plan.h"
#include "engines/scenario.h"
#include "engines/sglang/sglang_command.h"

namespace servescope::sglang {

Result<Plan> plan_sglang(const Scenario& scenario, const std::vector<ParseNote>& notes);

}  // namespace servescope::sglang
