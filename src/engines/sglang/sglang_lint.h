// SGLang-specific lint rules: flags this GPU or version lacks, flags that do nothing for
// this model, contradictions, and settings SGLang overrides or disables on its own.
#pragma once

#include <vector>

#include "engines/plan.h"
#include "engines/scenario.h"

namespace servescope::sglang {

std::vector<Finding> lint_sglang(const Scenario& scenario, const Plan& plan);

}  // namespace servescope::sglang
