// SGLang's /metrics (observability/metrics_collector.py, docs/research/sglang-capacity.md §11) and
// its JSON status endpoints: /v1/loads (entrypoints/v1_loads.py, managers/load_snapshot.py),
// /server_info (the server args plus Scheduler.get_internal_state) and /model_info.
#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "engines/sglang/sglang_twin_profile.h"

namespace servescope::sglang {
namespace {

// prometheus_client's floatToGoString: Python's repr, with Go's exponent form from 1e7 on.
std::string go_float(double d) {
  if (std::isinf(d))
    return d > 0 ? "+Inf" : "-Inf";
  if (std::isnan(d))
    return "NaN";
  std::string s = python_repr(Value(d));
  const auto dot = s.find('.');
  if (d > 0 && dot != std::string::npos && dot > 6 && s.find('e') == std::string::npos) {
    std::string mantissa = s.substr(0, 1) + "." + s.substr(1, dot - 1) + s.substr(dot + 1);
    while (mantissa.size() > 2 && mantissa.back() == '0')
      mantissa.pop_back();
    if (mantissa.back() == '.')
      mantissa.pop_back();
    return fmt::format("{}e+{:02d}", mantissa, dot - 1);
  }
  return s;
}

std::string escape_label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

class Exposition {
 public:
  explicit Exposition(const std::string& model)
      : labels_(fmt::format("engine_type=\"unified\",model_name=\"{}\",moe_ep_rank=\"0\",pp_rank="
                            "\"0\",tp_rank=\"0\"",
                            escape_label(model))) {}

  void gauge(std::string_view name, std::string_view help, double value) {
    header(name, help, "gauge");
    out_ += fmt::format("sglang:{}{{{}}} {}\n", name, labels_, go_float(value));
  }
  void counter(std::string_view name, std::string_view help, double value) {
    header(name, help, "counter");
    out_ += fmt::format("sglang:{}{{{}}} {}\n", name, labels_, go_float(value));
  }
  void histogram(std::string_view name, std::string_view help, const Histogram& h) {
    header(name, help, "histogram");
    for (std::size_t i = 0; i < h.counts.size(); ++i) {
      const std::string le = i < h.bounds.size() ? go_float(h.bounds[i]) : "+Inf";
      out_ += fmt::format("sglang:{}_bucket{{{},le=\"{}\"}} {}\n", name, labels_, le,
                          go_float(static_cast<double>(h.counts[i])));
    }
    out_ += fmt::format("sglang:{}_count{{{}}} {}\n", name, labels_,
                        go_float(static_cast<double>(h.count)));
    out_ += fmt::format("sglang:{}_sum{{{}}} {}\n", name, labels_, go_float(h.sum));
  }
  std::string take() { return std::move(out_); }

 private:
  void header(std::string_view name, std::string_view help, std::string_view type) {
    out_ += fmt::format("# HELP sglang:{} {}\n# TYPE sglang:{} {}\n", name, help, name, type);
  }
  std::string labels_;
  std::string out_;
};

double node_number(const Plan* plan, std::string_view id, double fallback) {
  if (plan == nullptr)
    return fallback;
  const Node* n = plan->graph.find(id);
  return n != nullptr && n->value.is_number() ? n->value.as_number() : fallback;
}

std::string iso_time(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&tt, &utc);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+00:00", &utc);
  return buf;
}

nlohmann::json to_json(const Value& v) {
  if (v.is_none())
    return nullptr;
  if (v.is_bool())
    return v.as_bool();
  if (v.is_int())
    return v.as_int();
  if (v.is_double())
    return v.as_number();
  if (v.is_list())
    return v.as_list();
  return v.as_string();
}

struct MemoryFigures {
  double weight_gb = 0, kv_cache_gb = 0, graph_gb = 0;
};

// The share of looked-up prompt tokens the radix cache held, over the run.
double prefix_hit_rate(const ServingStatus& s) {
  return s.prefix_cache_queries > 0 ? static_cast<double>(s.prefix_cache_hits) /
                                          static_cast<double>(s.prefix_cache_queries)
                                    : 0.0;
}

MemoryFigures memory_figures(const ServingStatus& s) {
  MemoryFigures m;
  m.weight_gb = node_number(s.plan, "free_before_load_gib", 0) -
                node_number(s.plan, "free_after_load_gib", 0);
  const double cell = node_number(s.plan, "kv_cell_bytes", 0);
  m.kv_cache_gb = static_cast<double>(s.scheduler.token_pool) * cell / kGiB;
  m.graph_gb = node_number(s.plan, "graph_reserve_mib", 0) / 1024.0 * 0.5;
  return m;
}

double round2(double x) {
  return std::round(x * 100.0) / 100.0;
}

std::string loads_json(const ServingStatus& s) {
  const SchedulerView& v = s.scheduler;
  const MemoryFigures mem = memory_figures(s);
  const double usage = round2(std::max(v.token_usage(), v.state_usage()));
  nlohmann::json load = {
      {"dp_rank", 0},
      {"num_running_reqs", v.running},
      {"num_waiting_reqs", v.queued},
      {"num_waiting_uncached_tokens", 0},
      {"num_used_tokens", v.used_tokens},
      {"num_total_tokens", v.token_pool},
      {"max_total_num_tokens", v.token_pool},
      {"max_running_requests", v.max_running_requests},
      {"token_usage", usage},
      {"gen_throughput", v.gen_throughput},
      {"cache_hit_rate", prefix_hit_rate(s)},
      {"utilization", usage},
      {"memory",
       {{"weight_gb", round2(mem.weight_gb)},
        {"kv_cache_gb", round2(mem.kv_cache_gb)},
        {"graph_gb", round2(mem.graph_gb)},
        {"token_capacity", v.token_pool}}},
      {"queues", {{"waiting", v.queued}, {"grammar", 0}, {"paused", 0}, {"retracted", 0}}},
  };
  if (v.accept_length > 0)
    load["speculative"] = {{"accept_length", v.accept_length}, {"accept_rate", v.accept_rate}};
  load["num_total_reqs"] = v.running + v.queued;
  nlohmann::json body = {
      {"timestamp", iso_time(s.now)},
      {"version", s.scenario != nullptr ? s.scenario->version.label : ""},
      {"dp_rank_count", 1},
      {"loads", nlohmann::json::array({load})},
      {"aggregate",
       {{"total_running_reqs", v.running},
        {"total_waiting_reqs", v.queued},
        {"total_reqs", v.running + v.queued},
        {"total_used_tokens", v.used_tokens},
        {"total_tokens", v.token_pool},
        {"avg_token_usage", usage},
        {"avg_throughput", v.gen_throughput},
        {"avg_utilization", usage}}},
  };
  return body.dump();
}

std::string server_info_json(const ServingStatus& s) {
  nlohmann::json args = nlohmann::json::object();
  if (s.scenario != nullptr && s.plan != nullptr) {
    for (const auto& [name, value] : server_args_fields(*s.scenario, *s.plan, s.endpoint))
      args[name] = to_json(value);
  }
  const MemoryFigures mem = memory_figures(s);
  nlohmann::json internal = args;
  internal["last_gen_throughput"] = s.scheduler.gen_throughput;
  internal["memory_usage"] = {{"weight", round2(mem.weight_gb)},
                              {"kvcache", round2(mem.kv_cache_gb)},
                              {"token_capacity", s.scheduler.token_pool},
                              {"graph", round2(mem.graph_gb)}};
  internal["effective_max_running_requests_per_dp"] = s.scheduler.max_running_requests;
  nlohmann::json body = args;
  body["status"] = "ready";
  body["max_total_num_tokens"] = s.scheduler.token_pool;
  const std::int64_t context = s.shape != nullptr ? s.shape->context_len : 0;
  // tokenizer_manager.py: max_req_input_len = min(context_len - 1, max_total_num_tokens - 1).
  body["max_req_input_len"] = std::min(context - 1, s.scheduler.token_pool - 1);
  body["internal_states"] = nlohmann::json::array({internal});
  body["version"] = s.scenario != nullptr ? s.scenario->version.label : "";
  return body.dump();
}

std::string model_info_json(const ServingStatus& s) {
  const ModelShape* m = s.scenario != nullptr ? &s.scenario->model : nullptr;
  const FlagSetting* path =
      s.scenario != nullptr ? s.scenario->command.find("--model-path") : nullptr;
  const std::string model = path != nullptr ? path->value() : s.model_name;
  nlohmann::json body = {
      {"model_path", model},
      {"tokenizer_path", model},
      {"is_generation", true},
      {"preferred_sampling_params", nullptr},
      {"weight_version", "default"},
      {"has_image_understanding", m != nullptr && m->multimodal},
      {"has_audio_understanding", false},
      {"model_type", m != nullptr ? m->model_type : ""},
      {"architectures", nlohmann::json::array({m != nullptr ? m->architecture : ""})}};
  return body.dump();
}

}  // namespace

std::vector<double> SglangTwinProfile::histogram_bounds(HistogramKind kind) const {
  // metrics_collector.py::TokenizerMetricsCollector defaults (bucket_time_to_first_token,
  // bucket_inter_token_latency, bucket_e2e_request_latency). The queue-time buckets are the
  // twin's choice: their default was not read.
  switch (kind) {
    case HistogramKind::kTimeToFirstToken:
      return {0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400};
    case HistogramKind::kInterTokenLatency:
      return {0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040, 0.060,
              0.080, 0.100, 0.200, 0.400, 0.600, 0.800, 1.000, 2.000, 4.000, 6.000, 8.000};
    case HistogramKind::kEndToEnd:
      return {0.1, 0.2, 0.4, 0.6, 0.8, 1,   2,   4,   6,    8,    10,
              20,  40,  60,  80,  100, 200, 400, 600, 1200, 1800, 2400};
    case HistogramKind::kQueueTime:
      return {0.0, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 2400};
  }
  return {};
}

std::string SglangTwinProfile::metrics_text(const ServingStatus& s) const {
  const SchedulerView& v = s.scheduler;
  Exposition e(s.model_name);
  e.gauge("num_running_reqs", "The number of running requests.", static_cast<double>(v.running));
  e.gauge("num_queue_reqs", "The number of requests in the waiting queue.",
          static_cast<double>(v.queued));
  e.gauge("num_grammar_queue_reqs", "The number of requests in the grammar waiting queue.", 0);
  e.gauge("num_retracted_reqs", "The number of retracted requests.", 0);
  e.gauge("num_paused_reqs", "The number of paused requests by async weight sync.", 0);
  e.gauge("num_used_tokens", "The number of used tokens.", static_cast<double>(v.used_tokens));
  e.gauge("token_usage", "The token usage.", round2(std::max(v.token_usage(), v.state_usage())));
  e.gauge("full_token_usage", "The token usage for full attention layers.", v.token_usage());
  if (v.state_slots > 0) {
    e.gauge("mamba_usage", "The token usage for Mamba layers.", v.state_usage());
    e.gauge("mamba_used_tokens", "The number of used mamba slots.",
            static_cast<double>(v.used_state_slots));
    e.gauge("mamba_available_tokens", "The number of available mamba slots.",
            static_cast<double>(v.state_slots - v.used_state_slots));
    e.gauge("mamba_evictable_tokens", "The number of evictable mamba slots.", 0);
  }
  e.gauge("kv_used_tokens", "The number of used KV tokens.", static_cast<double>(v.used_tokens));
  e.gauge("kv_available_tokens", "The number of available KV tokens.",
          static_cast<double>(v.token_pool - v.used_tokens));
  e.gauge("kv_evictable_tokens", "The number of evictable KV tokens.", 0);
  e.gauge("decode_sum_seq_lens", "The sum of all sequence lengths in decode.",
          static_cast<double>(v.decode_context_tokens));
  e.gauge("gen_throughput", "The generation throughput (token/s).", v.gen_throughput);
  e.gauge("cache_hit_rate", "The prefix cache hit rate.", prefix_hit_rate(s));
  e.gauge("utilization", "The utilization.", round2(std::max(v.token_usage(), v.state_usage())));
  e.gauge("max_running_requests_under_SLO", "The maximum number of running requests under SLO.", 0);
  if (v.accept_length > 0) {
    e.gauge("spec_accept_length", "The average acceptance length of speculative decoding.",
            v.accept_length);
    e.gauge("spec_accept_rate", "The average acceptance rate of speculative decoding.",
            v.accept_rate);
  }
  e.gauge("max_total_num_tokens", "Maximum total number of tokens in the KV cache pool.",
          static_cast<double>(v.token_pool));
  e.gauge("page_size", "The page size of the KV cache.",
          s.shape != nullptr ? static_cast<double>(s.shape->page_size) : 1);
  e.gauge(
      "num_pages", "The number of pages in the KV cache.",
      static_cast<double>(
          v.token_pool / (s.shape != nullptr ? std::max<std::int64_t>(1, s.shape->page_size) : 1)));
  e.gauge("context_len", "The context length of the model.",
          s.shape != nullptr ? static_cast<double>(s.shape->context_len) : 0);
  e.gauge("engine_startup_time", "The time taken for the engine to start up.", s.startup_seconds);
  e.gauge("engine_load_weights_time", "The time taken for the engine to load weights.",
          0.45 * s.startup_seconds);
  e.counter("prompt_tokens_total", "Number of prefill tokens processed.",
            static_cast<double>(s.prompt_tokens_total));
  e.counter("generation_tokens_total", "Number of generation tokens processed.",
            static_cast<double>(s.generation_tokens_total));
  e.counter("num_requests_total", "Number of requests processed.",
            static_cast<double>(s.requests_total));
  if (s.ttft != nullptr)
    e.histogram("time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                *s.ttft);
  if (s.itl != nullptr)
    e.histogram("inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                *s.itl);
  if (s.e2e != nullptr)
    e.histogram("e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds",
                *s.e2e);
  if (s.queue_time != nullptr)
    e.histogram("queue_time_seconds", "Histogram of queueing time in seconds.", *s.queue_time);
  return e.take();
}

std::vector<std::string> SglangTwinProfile::status_paths() const {
  return {"/v1/loads",        "/get_load",   "/server_info",
          "/get_server_info", "/model_info", "/get_model_info"};
}

std::optional<std::string> SglangTwinProfile::status_json(std::string_view path,
                                                          const ServingStatus& s) const {
  if (path == "/v1/loads" || path == "/get_load")
    return loads_json(s);
  if (path == "/server_info" || path == "/get_server_info")
    return server_info_json(s);
  if (path == "/model_info" || path == "/get_model_info")
    return model_info_json(s);
  return std::nullopt;
}

std::string SglangTwinProfile::models_json(const ServingStatus& s) const {
  const FlagSetting* path =
      s.scenario != nullptr ? s.scenario->command.find("--model-path") : nullptr;
  nlohmann::json card = {{"id", s.model_name},
                         {"object", "model"},
                         {"created", std::chrono::system_clock::to_time_t(s.now)},
                         {"owned_by", "sglang"},
                         {"root", path != nullptr ? path->value() : s.model_name},
                         {"parent", nullptr},
                         {"max_model_len", s.shape != nullptr ? s.shape->context_len : 0}};
  nlohmann::json body = {{"object", "list"}, {"data", nlohmann::json::array({card})}};
  return body.dump();
}

}  // namespace servescope::sglang
