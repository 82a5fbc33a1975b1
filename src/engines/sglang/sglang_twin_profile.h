// How SGLang looks from the outside, for the twin: the scheduler limits and policy constants a
// plan implies, the startup log of the current main branch (docs/research/sglang-capacity.md §10),
// the periodic Decode/Prefill batch lines, the Prometheus metrics and the /v1/loads and
// /server_info bodies (§11), the error bodies and the native /generate API.
#pragma once

#include "engines/twin_profile.h"

namespace servescope::sglang {

class SglangTwinProfile final : public TwinProfile {
 public:
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
  std::string scheduler_tag() const override { return "TP0"; }
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
  std::vector<std::string> extra_request_fields() const override;

  std::string native_generate_path() const override { return "/generate"; }
  Result<NativeGenerateRequest> parse_native_generate(std::string_view body) const override;
  std::string native_generate_json(const NativeGenerateView& view) const override;
};

/// The profile instance the SGLang engine hands out.
const SglangTwinProfile& sglang_twin_profile();

/// The ServerArgs fields the twin knows, in print order, as ServerArgs holds them after
/// __post_init__ (resolved values replace typed ones).
std::vector<std::pair<std::string, Value>> server_args_fields(const Scenario& scenario,
                                                              const Plan& plan,
                                                              const Endpoint& endpoint);

/// `server_args=ServerArgs(...)` as SGLang prints it (Python repr of the dataclass), from the
/// command and the plan's resolved arguments.
std::string server_args_repr(const Scenario& scenario, const Plan& plan, const Endpoint& endpoint);

/// A Python repr of a derivation value: None, True, 12, 0.85, 'x', [1, 2].
std::string python_repr(const Value& value);

}  // namespace servescope::sglang
