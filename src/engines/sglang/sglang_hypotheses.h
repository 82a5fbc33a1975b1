// The space `why` searches for SGLang: plausible single changes to a launch.
#pragma once

#include <vector>

#include "engines/engine.h"

namespace servescope::sglang {

/// Each modelled flag over its meaningful values, each dated rule variant, speculative
/// decoding on/off, tensor and data parallelism.
std::vector<ScenarioChange> sglang_candidate_changes(const Scenario& scenario);
/// Numeric flags with the range `why` may solve over.
std::vector<NumericInput> sglang_numeric_inputs(const Scenario& scenario);

}  // namespace servescope::sglang
