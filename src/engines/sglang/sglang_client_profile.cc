// How a load generator reads an SGLang server: the scheduler gauges and queue-time histogram
// of /metrics (observability/metrics_collector.py, SchedulerMetricsCollector and
// TokenizerMetricsCollector), /v1/loads (entrypoints/v1_loads.py, managers/load_snapshot.py)
// and the native /generate API (io_struct.py::GenerateReqInput; the stream repeats all text so
// far and meta_info carries cumulative token counts).
#include <fmt/format.h>

#include "engines/client_profile.h"
#include "engines/sglang/sglang_engine.h"

namespace servescope::sglang {
namespace {

std::string generate_body(std::string_view quoted_prompt, std::int64_t max_tokens, bool stream,
                          bool ignore_eos) {
  return fmt::format(
      R"({{"text":{},"sampling_params":{{"max_new_tokens":{},"temperature":0,"ignore_eos":{}}},"stream":{}}})",
      quoted_prompt, max_tokens, ignore_eos ? "true" : "false", stream ? "true" : "false");
}

ClientProfile make_profile() {
  ClientProfile p;
  p.engine = "sglang";
  p.metrics.running = "sglang:num_running_reqs";
  p.metrics.queued = "sglang:num_queue_reqs";
  p.metrics.queue_time_seconds = "sglang:queue_time_seconds";
  p.loads.path = "/v1/loads";
  p.loads.list_key = "loads";
  p.loads.running_key = "num_running_reqs";
  p.loads.queued_key = "num_waiting_reqs";
  p.loads.max_running_key = "max_running_requests";
  p.native.name = "sglang-generate";
  p.native.path = "/generate";
  p.native.text_key = "text";
  p.native.text_cumulative = true;
  p.native.meta_key = "meta_info";
  p.native.prompt_tokens_key = "prompt_tokens";
  p.native.completion_tokens_key = "completion_tokens";
  p.native.body = &generate_body;
  return p;
}

}  // namespace

const ClientProfile* SglangEngine::client_profile() const {
  static const ClientProfile kProfile = make_profile();
  return &kProfile;
}

}  // namespace servescope::sglang
