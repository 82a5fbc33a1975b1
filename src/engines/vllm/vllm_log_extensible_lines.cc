// The vLLM log grammar: the extensible KV cache's lines (0.34.0+, V2.9) and the 0.34 wording of
// the startup memory summary.
#include <re2/re2.h>

#include "core/text.h"
#include "engines/vllm/vllm_log_grammar.h"
#include "engines/vllm/vllm_log_grammar_internal.h"

namespace servescope::vllm {

using namespace log_lines;  // NOLINT: the grammar files share these helpers

LineKind VllmLogGrammar::extensible_line(std::string_view m) {
  re2::StringPiece g[9];
  if (starts_with(m, "Memory after warmup:")) {
    begin("kv_after_warmup");
    if (RE2::PartialMatch(m, re_.after_warmup, &g[0], &g[1], &g[2], &g[3], &g[4], &g[5], &g[6],
                          &g[7])) {
      add_number(builder_, "free_gib", g[0], true);
      add_number(builder_, "committed_gib", g[1], true);
      add_number(builder_, "kept_gib", g[2], true);
      add_number(builder_, "peak_gib", g[3], true);
      add_number(builder_, "growth_gib", g[4], true);
      add_number(builder_, "num_gpu_blocks", g[5]);
      add_number(builder_, "blocks_gib", g[6], true);
      add_number(builder_, "requested_gib", g[7], true);
      if (RE2::PartialMatch(m, re_.torch_limit, &g[8]))
        add_number(builder_, "torch_limit_gib", g[8], true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Extended KV cache to") && RE2::PartialMatch(m, re_.extended, &g[0], &g[1])) {
    begin("kv_extended");
    add_number(builder_, "num_gpu_blocks", g[0]);
    add_number(builder_, "gib", g[1], true);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Remapping the KV cache") && RE2::PartialMatch(m, re_.remap, &g[0], &g[1])) {
    begin("kv_remap");
    add_number(builder_, "from", g[0]);
    add_number(builder_, "to", g[1]);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Disabling the extensible KV cache") &&
      RE2::PartialMatch(m, re_.extensible_off, &g[0])) {
    begin("extensible_off");
    builder_.add("reason", Value(std::string(g[0])));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Free memory on device") &&
      RE2::PartialMatch(m, re_.summary_consumed, &g[0], &g[1], &g[2], &g[3], &g[4], &g[5], &g[6])) {
    begin("memory_summary");
    add_number(builder_, "free_memory_gib", g[0], true);
    add_number(builder_, "total_memory_gib", g[1], true);
    add_number(builder_, "gpu_memory_utilization", g[2], true);
    add_number(builder_, "requested_gib", g[3], true);
    add_number(builder_, "consumed_gib", g[4], true);  // weights + non-torch
    add_number(builder_, "activation_peak_gib", g[5], true);
    add_number(builder_, "cuda_graph_gib", g[6], true);
    if (RE2::PartialMatch(m, re_.summary_kv, &g[7]))
      add_number(builder_, "kv_cache_gib", g[7], true);
    emit();
    return LineKind::kFact;
  }
  return LineKind::kUnknown;
}

}  // namespace servescope::vllm
