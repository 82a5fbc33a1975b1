// The vLLM capacity plan: runs the rule phases of capacity_rules.h in vLLM's startup order.
#pragma once

#include <vector>

#include "core/result.h"
#include "engines/plan.h"
#include "engines/scenario.h"
#include "engines/vllm/vllm_command.h"

namespace servescope::vllm {

/// The capacity outputs a vLLM plan carries, in display order.
const std::vector<std::string>& vllm_output_names();

/// Computes the plan; `notes` are the parser's (ambiguous, unknown flags) for the findings.
Result<Plan> plan_vllm(const Scenario& scenario, const std::vector<ParseNote>& notes);

}  // namespace servescope::vllm
