// Which vLLM main-branch dates a log can come from: the version it prints (the logo, the
// engine config line, the API server line) placed in the release table, and line forms that
// appeared or vanished with a dated change (docs/research/vllm-capacity.md §12).
#pragma once

#include <vector>

#include "engines/log_grammar.h"

namespace servescope::vllm {

VersionInference infer_vllm_version(const std::vector<Fact>& facts);

}  // namespace servescope::vllm
