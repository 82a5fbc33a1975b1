// The summary of an SGLang log: model, GPU, parallel sizes, the startup capacity figures
// (docs/research/sglang-capacity.md §10: P, A, W, T, K, the pools, the capture list, the final
// line) and the lines that change or stop it.
#pragma once

#include <vector>

#include "engines/log_grammar.h"

namespace servescope::sglang {

LogSummary summarize_sglang_log(const std::vector<Fact>& facts);

}  // namespace servescope::sglang
