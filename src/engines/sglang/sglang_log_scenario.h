// Rebuilding an SGLang scenario from a log: the launch command and the settings the
// server_args dump shows resolved, the model, GPU and free memory around the weight load, and
// the figures `check` compares; and the log's own consistency checks.
#pragma once

#include <vector>

#include "engines/engine.h"

namespace servescope::sglang {

Result<LogScenario> sglang_scenario_from_log(const std::vector<Fact>& facts);
std::vector<Finding> sglang_log_consistency(const std::vector<Fact>& facts);

}  // namespace servescope::sglang
