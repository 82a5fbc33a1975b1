// The vLLM log's consistency findings: figures of one start that contradict each other.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "engines/vllm/vllm_log_scenario.h"
#include "engines/vllm/vllm_log_summary.h"

namespace servescope::vllm {

std::vector<Finding> vllm_log_consistency(const std::vector<Fact>& facts) {
  std::vector<Finding> out;
  // The periodic stats lines against the scheduler's limit.
  std::optional<std::int64_t> limit;
  std::uint64_t limit_line = 0;
  for (const Fact& f : facts) {
    if (f.kind == "scheduler_default" && f.text("setting") == "max_num_seqs") {
      limit = f.integer("value");
      limit_line = f.line;
    }
  }
  if (const Fact* args = primary_fact(facts, "non_default_args");
      args != nullptr && args->integer("max_num_seqs")) {
    limit = args->integer("max_num_seqs");
    limit_line = args->line;
  }
  if (limit) {
    for (const Fact& f : facts) {
      if (f.kind != "decode_batch")
        continue;
      if (auto running = f.integer("running_req"); running && *running > *limit) {
        out.push_back({Severity::kError,
                       "log-runs-above-limit",
                       {},
                       fmt::format("line {}: the stats line shows {} running requests, above "
                                   "max_num_seqs={} (line {})",
                                   f.line, *running, *limit, limit_line),
                       "V6",
                       "vllm/v1/core/sched/scheduler.py::Scheduler.schedule"});
        break;
      }
    }
  }
  // "GPU KV cache size" against "Maximum concurrency × tokens per request": the 2026-04-28
  // formula makes them agree to the printed rounding; the older one for dense models too.
  const Fact* size = primary_fact(facts, "kv_cache_size");
  const Fact* conc = primary_fact(facts, "max_concurrency");
  if (size != nullptr && conc != nullptr && size->integer("tokens") &&
      conc->number("concurrency") && conc->integer("tokens_per_request")) {
    const double tokens = static_cast<double>(*size->integer("tokens"));
    const double len = static_cast<double>(*conc->integer("tokens_per_request"));
    const double x = *conc->number("concurrency");
    if (len > 0 && std::fabs(tokens / len - x) > 0.0051 && std::fabs(tokens / len - x) / x < 0.5) {
      out.push_back({Severity::kInfo,
                     "log-tokens-differ-from-concurrency",
                     {},
                     fmt::format("line {}: {} tokens / {} per request = {:.2f}x, the log's line {} "
                                 "says {:.2f}x: several KV cache groups (hybrid attention) or the "
                                 "pre-2026-04-28 formula (num_blocks // groups × block size)",
                                 size->line, *size->integer("tokens"),
                                 *conc->integer("tokens_per_request"), tokens / len, conc->line, x),
                     "V5.2",
                     "vllm/v1/core/kv_cache_utils.py::_report_kv_cache_config"});
    }
  }
  // Pipeline parallel: every stage profiles its own memory and the blocks are the minimum over
  // stages (V4.2), but a log's memory lines are the first stage's (the one a reader sees first
  // and the calibration takes): a prediction from them bounds the blocks from above.
  const std::int64_t pp = log_pipeline_stages(facts);
  if (pp > 1) {
    out.push_back({Severity::kInfo,
                   "log-memory-is-one-stage",
                   {},
                   fmt::format("pipeline parallel {}: the logged memory profile is one stage's, "
                               "and num_gpu_blocks is the minimum over the {} stages (the last "
                               "holds the sampler and has less): the figures predicted from it "
                               "bound the logged ones from above",
                               pp, pp),
                   "V4.2",
                   "vllm/v1/core/kv_cache_utils.py::get_kv_cache_configs"});
  }
  // A typed max_model_len the resolved one contradicts without an auto-fit line.
  if (const Fact* args = primary_fact(facts, "non_default_args"); args != nullptr) {
    const auto typed_len = args->integer("max_model_len");
    const Fact* used = primary_fact(facts, "max_model_len");
    if (typed_len && used != nullptr && used->integer("max_model_len") &&
        *used->integer("max_model_len") != *typed_len &&
        primary_fact(facts, "auto_fit") == nullptr) {
      out.push_back(
          {Severity::kWarning,
           "log-contradicts-command",
           {fmt::format("--max-model-len {}", *typed_len)},
           fmt::format("the non-default args (line {}) set max_model_len {} but line {} "
                       "uses {}: the log may come from another run",
                       args->line, *typed_len, used->line, *used->integer("max_model_len")),
           "V4.3",
           "vllm/config/model.py::ModelConfig.get_and_verify_max_len"});
    }
  }
  return out;
}

}  // namespace servescope::vllm
