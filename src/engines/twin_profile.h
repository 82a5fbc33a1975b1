// TwinProfile: how an engine looks from the outside when the twin plays it — what its
// scheduler enforces for a plan, the startup log it prints, its periodic scheduler lines, its
// Prometheus metrics, its status endpoints and error bodies. Engine packs implement it;
// src/twin/ runs the scheduler model and the HTTP server and asks the profile for every
// engine-specific word, so the twin itself never names an engine.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/plan.h"
#include "engines/scenario.h"

namespace servescope {

/// What the engine's scheduler enforces for one plan, and the per-GPU figures the cost model
/// reads. Limits are per scheduler (per data-parallel worker).
struct ServingShape {
  std::int64_t max_running_requests = 0;
  std::int64_t token_pool = 0;  // KV cache capacity in tokens
  std::int64_t page_size = 1;
  std::int64_t state_slots = 0;  // recurrent-state (linear attention) slots; 0: the model has none
  std::int64_t state_slots_per_request = 0;  // slots a running request holds
  std::int64_t chunk_tokens = 0;             // chunked prefill size; <= 0: prompts are not split
  std::int64_t max_prefill_tokens = 0;       // input tokens one prefill batch may take
  std::int64_t context_len = 0;

  // Admission and retraction policy (the engine's constants, with their sources in the pack).
  std::int64_t clip_max_new_tokens = 4096;  // future tokens reserved per request at most
  double init_new_token_ratio = 0.7;        // share of future tokens reserved for running requests
  double min_new_token_ratio = 0.1;
  double new_token_ratio_decay = 0.001;  // per decode step
  std::int64_t retract_decode_steps = 20;

  // Speculative decoding: 0 draft tokens when off.
  std::int64_t speculative_steps = 0;
  std::int64_t speculative_draft_tokens = 0;

  // Parallelism and per-GPU bytes for the cost model.
  int tp = 1;
  int dp = 1;                          // data-parallel workers; the twin models one of them
  double kv_bytes_per_token = 0;       // per GPU, all layers, draft included
  double state_bytes_per_request = 0;  // per GPU
  double weight_bytes_per_gpu = 0;     // as measured (calibration); 0: estimate from the model
  std::vector<std::int64_t> graph_batch_sizes;  // decode batch sizes captured as a graph
  int decode_log_interval = 40;                 // decode steps between periodic stats lines
  // Prompts' cached prefixes are reused (vLLM --enable-prefix-caching, SGLang's radix cache):
  // the twin's prefix cache (twin/prefix_cache.h) skips their prefill.
  bool prefix_caching = false;
};

/// Where the engine listens.
struct Endpoint {
  std::string host;
  int port = 0;
};

/// A plan node's value for a twin profile, or `fallback` where the plan has no such number.
std::int64_t int_node(const Plan& plan, std::string_view id, std::int64_t fallback);
double number_node(const Plan& plan, std::string_view id, double fallback);
/// A plan node's text, or "" where the plan has none.
std::string text_node(const Plan& plan, std::string_view id);
bool bool_node(const Plan& plan, std::string_view id, bool fallback);

/// The address a launch command's --host and --port give, over the engine's defaults.
Endpoint endpoint_of(const LaunchCommand& command, std::string default_host, int default_port);

/// The model name a server answers to: --served-model-name, else the engine's model flag
/// (`model_flag`, e.g. "--model-path"), else the model's source.
std::string served_model_name_of(const Scenario& scenario, std::string_view model_flag);

enum class StartupMark {
  kNone,
  kListening,  // the server accepts connections from this line on
  kReady,      // health checks pass from this line on
  kFailed,     // the engine exits after this line
};

/// One line of the startup log, printed at a fraction of the startup time.
struct LogLine {
  double at = 0;    // 0..1 of the startup time
  std::string tag;  // rank tag ("TP0"), or "" for the main process
  std::string text;
  StartupMark mark = StartupMark::kNone;
  bool raw = false;  // printed as is, without the engine's prefix (a traceback line)
};

struct StartupContext {
  Endpoint endpoint;  // as bound (an ephemeral port resolved)
  double startup_seconds = 0;
  int pid = 0;  // the twin's process id, for the lines that print one
};

/// A point-in-time view of the scheduler, for stats lines, metrics and status endpoints.
struct SchedulerView {
  std::int64_t running = 0;
  std::int64_t queued = 0;
  std::int64_t used_tokens = 0;
  std::int64_t token_pool = 0;
  std::int64_t used_state_slots = 0;
  std::int64_t state_slots = 0;  // 0: no recurrent-state pool
  std::int64_t max_running_requests = 0;
  std::int64_t decode_context_tokens = 0;  // sum of running sequence lengths
  double gen_throughput = 0;               // tokens/s over the last decode stats interval
  bool graph = false;                      // the decode batch runs as a captured graph
  double accept_length = 0;                // speculative: tokens per request per step; 0 off
  double accept_rate = 0;
  double prefix_cache_hit_rate = 0;  // cached share of the prompt tokens looked up so far

  double token_usage() const {
    return token_pool > 0 ? static_cast<double>(used_tokens) / static_cast<double>(token_pool) : 0;
  }
  double state_usage() const {
    return state_slots > 0
               ? static_cast<double>(used_state_slots) / static_cast<double>(state_slots)
               : 0;
  }
};

/// One prefill batch, for the engine's prefill stats line.
struct PrefillView {
  SchedulerView scheduler;  // after the batch was formed
  std::int64_t new_seqs = 0;
  std::int64_t new_tokens = 0;
  std::int64_t cached_tokens = 0;
  std::int64_t pending_tokens = 0;  // prompt tokens of a split prompt still to prefill
  double input_throughput = 0;      // tokens/s since the previous prefill line
};

/// A cumulative Prometheus histogram: `counts[i]` observations ≤ bounds[i]; the last count
/// is the +Inf bucket.
struct Histogram {
  std::vector<double> bounds;
  std::vector<std::uint64_t> counts;
  double sum = 0;
  std::uint64_t count = 0;

  explicit Histogram(std::vector<double> b = {})
      : bounds(std::move(b)), counts(bounds.size() + 1, 0) {}
  void observe(double value);
  /// `times` observations of `value` whose sum grows by `sum_increment` (a chunk of several
  /// tokens observed at once, as engines record inter-token latency).
  void observe_many(double value, std::uint64_t times, double sum_increment);
};

enum class HistogramKind { kTimeToFirstToken, kInterTokenLatency, kEndToEnd, kQueueTime };

/// Everything the metrics and status endpoints report.
struct ServingStatus {
  const Scenario* scenario = nullptr;
  const Plan* plan = nullptr;
  const ServingShape* shape = nullptr;
  std::string model_name;
  Endpoint endpoint;  // as bound
  SchedulerView scheduler;
  std::uint64_t prompt_tokens_total = 0;
  std::uint64_t generation_tokens_total = 0;
  std::uint64_t requests_total = 0;  // finished
  std::uint64_t retractions_total = 0;
  std::uint64_t prefix_cache_queries = 0;  // prompt tokens looked up in the prefix cache
  std::uint64_t prefix_cache_hits = 0;     // of them, tokens it held
  const Histogram* ttft = nullptr;
  const Histogram* itl = nullptr;
  const Histogram* e2e = nullptr;
  const Histogram* queue_time = nullptr;
  double startup_seconds = 0;
  std::chrono::system_clock::time_point now;
};

/// A generation request in the engine's native (non-OpenAI) API.
struct NativeGenerateRequest {
  std::string text;                       // the prompt as text, when given as text
  std::optional<std::int64_t> input_ids;  // the prompt's length, when given as token ids
  std::optional<std::int64_t> max_new_tokens;
  bool ignore_eos = false;
  bool stream = false;
};

/// Progress of a native generation, for its response body or stream chunk.
struct NativeGenerateView {
  std::string id;
  std::string_view text;  // all output so far
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  bool finished = false;
  double e2e_seconds = 0;
};

/// How the engine's OpenAI-compatible bodies differ from the twin's base form, as JSON
/// fragments spliced into it (each starts with ',' when not empty). The defaults are the base
/// form: plain hex ids, `"matched_stop":null` in choices, `"usage":null` in stream chunks.
struct OpenAiDialect {
  std::string completion_id_prefix;                                 // "cmpl-"
  std::string chat_id_prefix;                                       // "chatcmpl-"
  std::string completion_choice_extra = R"(,"matched_stop":null)";  // non-streaming choice
  std::string chat_choice_extra = R"(,"matched_stop":null)";
  std::string chat_message_extra = R"(,"reasoning_content":null,"tool_calls":null)";
  std::string completion_body_extra;  // top-level fields of a non-streaming body
  std::string chat_body_extra;
  std::string usage_extra = R"(,"prompt_tokens_details":null)";  // non-streaming usage
  std::string stream_usage_extra = R"(,"prompt_tokens_details":null)";
  std::string usage_chunk_extra;  // top-level fields of the final usage-only chunk
  std::string completion_chunk_choice_extra = R"(,"matched_stop":null)";  // unfinished
  std::string completion_chunk_final_extra = R"(,"matched_stop":null)";
  std::string chat_chunk_choice_extra = R"(,"matched_stop":null)";
  std::string chat_chunk_final_extra = R"(,"matched_stop":null)";
  std::string chat_role_choice_extra = R"(,"matched_stop":null)";  // the chat role chunk
  std::string chat_role_chunk_extra;  // top-level fields of the chat role chunk
  std::string final_chunk_extra;      // top-level fields of the finishing chunk, no usage chunk
  bool chunk_usage_null = true;       // chunks carry "usage":null when usage is not due
  bool check_model_name = false;      // an unknown 'model' is a 404 (model_not_found)
};

class TwinProfile {
 public:
  virtual ~TwinProfile() = default;

  /// What the scheduler enforces for `plan`. Fails when the plan lacks an output it needs.
  virtual Result<ServingShape> serving_shape(const Scenario& scenario, const Plan& plan) const = 0;
  /// The host and port the command asks for, or the engine's defaults.
  virtual Endpoint endpoint(const LaunchCommand& command) const = 0;
  /// The model name the API reports (a served-model-name flag, else the model path).
  virtual std::string served_model_name(const Scenario& scenario) const = 0;

  /// The startup log for `plan`, ending with the ready line, or with the engine's error lines
  /// (marked kFailed) when the plan says the engine would not start.
  virtual std::vector<LogLine> startup_log(const Scenario& scenario, const Plan& plan,
                                           const StartupContext& context) const = 0;
  /// Lines the engine prints when it dies while serving.
  virtual std::vector<LogLine> crash_log(std::string_view reason) const = 0;
  /// A log line with the engine's prefix (time stamp, rank tag).
  virtual std::string format_log_line(std::chrono::system_clock::time_point when,
                                      std::string_view tag, std::string_view text) const = 0;
  /// The HTTP server's access-log line for one request ("" when the engine prints none).
  virtual std::string access_log_line(std::string_view client, std::string_view method,
                                      std::string_view target, int http_status) const = 0;
  /// The rank tag scheduler lines carry.
  virtual std::string scheduler_tag() const = 0;
  virtual std::string decode_log_line(const SchedulerView& view) const = 0;
  virtual std::string prefill_log_line(const PrefillView& view) const = 0;

  /// Bucket bounds of a latency histogram, in seconds.
  virtual std::vector<double> histogram_bounds(HistogramKind kind) const = 0;
  /// The Prometheus text exposition of /metrics.
  virtual std::string metrics_text(const ServingStatus& status) const = 0;
  /// GET paths that report state as JSON (besides /health and /v1/models).
  virtual std::vector<std::string> status_paths() const = 0;
  /// The JSON body of a status path, or nullopt for a path the engine does not serve.
  virtual std::optional<std::string> status_json(std::string_view path,
                                                 const ServingStatus& status) const = 0;
  /// The body of GET /v1/models.
  virtual std::string models_json(const ServingStatus& status) const = 0;
  /// The engine's JSON body for an HTTP error.
  virtual std::string error_json(int http_status, std::string_view message) const = 0;
  /// The engine's message when a prompt of `prompt_tokens` asking for `max_tokens` does not fit
  /// the context (an HTTP 400), or "" when it fits.
  virtual std::string context_error(std::int64_t prompt_tokens, std::int64_t max_tokens,
                                    std::int64_t context_len) const = 0;
  /// The engine's message when a request names a model it does not serve (an HTTP 404), used
  /// when openai_dialect().check_model_name.
  virtual std::string model_not_found(std::string_view requested, std::string_view served) const {
    return "The model `" + std::string(requested) +
           "` does not exist. Valid aliases: " + std::string(served) + ".";
  }
  /// The output tokens a request gets when the engine shortens max_tokens to fit the context
  /// (after context_error passed); the base form keeps the request's.
  virtual std::int64_t fitted_max_tokens(std::int64_t prompt_tokens, std::int64_t max_tokens,
                                         std::int64_t context_len) const {
    (void)prompt_tokens;
    (void)context_len;
    return max_tokens;
  }
  /// Whether access_log_line() gets the engine's log prefix (false: printed as is, as uvicorn's).
  virtual bool access_log_prefixed() const { return true; }
  /// The content-type of /metrics and of /health ("" for none: an empty 200).
  virtual std::string metrics_content_type() const {
    return "text/plain; version=0.0.4; charset=utf-8";
  }
  virtual std::string health_content_type() const { return "text/plain; charset=utf-8"; }
  /// Field differences of the OpenAI-compatible bodies (see OpenAiDialect).
  virtual const OpenAiDialect& openai_dialect() const {
    static const OpenAiDialect kBase;
    return kBase;
  }
  /// Request fields the engine accepts on its OpenAI-compatible endpoints beyond OpenAI's own.
  virtual std::vector<std::string> extra_request_fields() const = 0;

  /// The native generation path ("" when the engine has none), how to read its body (a JSON
  /// text), and how to render its response or stream chunk.
  virtual std::string native_generate_path() const = 0;
  virtual Result<NativeGenerateRequest> parse_native_generate(std::string_view body) const = 0;
  virtual std::string native_generate_json(const NativeGenerateView& view) const = 0;
};

}  // namespace servescope
