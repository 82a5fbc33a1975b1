// Rebuilding a vLLM scenario from a log: the command the "non-default args" dict (or the older
// Namespace dump) shows typed, the settings the engine config and scheduler lines show
// resolved, the memory profile as calibration with each figure's printed rounding, and the
// figures `check` compares (GPU KV cache size, maximum concurrency, num_gpu_blocks, the
// scheduler limits, the context length, the capture sizes); and the log's own consistency.
#pragma once

#include <vector>

#include "engines/engine.h"

namespace servescope::vllm {

Result<LogScenario> vllm_scenario_from_log(const std::vector<Fact>& facts);
std::vector<Finding> vllm_log_consistency(const std::vector<Fact>& facts);

/// The pipeline-parallel size the engine config or the args dump states (1 when neither does).
std::int64_t log_pipeline_stages(const std::vector<Fact>& facts);

}  // namespace servescope::vllm
