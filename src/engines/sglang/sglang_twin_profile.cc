#include "engines/sglang/sglang_twin_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/text.h"

namespace servescope::sglang {
namespace {

double env_number(const Scenario& scenario, const std::string& key, double fallback) {
  auto find = [&](const std::map<std::string, std::string>& env) -> std::optional<double> {
    auto it = env.find(key);
    return it == env.end() ? std::nullopt : parse_double(it->second);
  };
  if (auto v = find(scenario.environment))
    return *v;
  if (auto v = find(scenario.command.environment))
    return *v;
  return fallback;
}

std::optional<double> flag_number(const LaunchCommand& command, const char* flag) {
  const FlagSetting* f = command.find(flag);
  return f == nullptr ? std::nullopt : parse_double(f->value());
}

const char* py_bool(bool b) {
  return b ? "True" : "False";
}

}  // namespace

const SglangTwinProfile& sglang_twin_profile() {
  static const SglangTwinProfile kProfile;
  return kProfile;
}

Result<ServingShape> SglangTwinProfile::serving_shape(const Scenario& scenario,
                                                      const Plan& plan) const {
  for (const char* id : {"max_total_num_tokens", "max_running_requests", "context_len"}) {
    if (plan.graph.find(id) == nullptr)
      return fail(
          fmt::format("the plan has no {} (the engine would not start: {})", id,
                      plan.startup_error.empty() ? "see the plan's findings" : plan.startup_error));
  }
  ServingShape s;
  s.max_running_requests = int_node(plan, "max_running_requests", 0);
  s.token_pool = int_node(plan, "max_total_num_tokens", 0);
  s.page_size = std::max<std::int64_t>(1, int_node(plan, "page_size.resolved", 1));
  s.context_len = int_node(plan, "context_len", 0);
  s.chunk_tokens = int_node(plan, "chunked_prefill_size", -1);
  // The radix cache reuses cached prefixes unless --disable-radix-cache.
  s.prefix_caching = !bool_node(plan, "arg.disable_radix_cache", false);
  s.max_prefill_tokens = int_node(plan, "arg.max_prefill_tokens", 16384);
  if (plan.graph.find("max_mamba_cache_size") != nullptr) {
    s.state_slots = int_node(plan, "max_mamba_cache_size", 0);
    // R5.8: a running request holds its working state, plus two ping-pong track buffers
    // with the extra_buffer strategy (mem_cache/memory_pool.py, HybridReqToTokenPool).
    s.state_slots_per_request =
        text_node(plan, "mamba_radix_cache_strategy.resolved") == "extra_buffer" ? 3 : 1;
    s.state_bytes_per_request = number_node(plan, "mamba_state_bytes_per_request", 0);
  }

  // Admission constants: schedule_policy.py (CLIP_MAX_NEW_TOKENS, env
  // SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION) and scheduler.py (init/min/decay of
  // new_token_ratio from SGLANG_INIT_NEW_TOKEN_RATIO × --schedule-conservativeness,
  // SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR, SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS);
  // schedule_batch.py::ScheduleBatch.retract_decode (RETRACT_DECODE_STEPS = 20).
  s.clip_max_new_tokens = static_cast<std::int64_t>(
      env_number(scenario, "SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION", 4096));
  const double conservativeness =
      flag_number(scenario.command, "--schedule-conservativeness").value_or(1.0);
  s.init_new_token_ratio =
      std::min(1.0, env_number(scenario, "SGLANG_INIT_NEW_TOKEN_RATIO", 0.7) * conservativeness);
  s.min_new_token_ratio = std::min(
      s.init_new_token_ratio,
      s.init_new_token_ratio * env_number(scenario, "SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR", 0.14));
  s.new_token_ratio_decay = (s.init_new_token_ratio - s.min_new_token_ratio) /
                            env_number(scenario, "SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS", 600);
  s.retract_decode_steps = 20;

  if (!text_node(plan, "arg.speculative_algorithm").empty()) {
    s.speculative_steps = int_node(plan, "speculative_num_steps.resolved", 0);
    s.speculative_draft_tokens = int_node(plan, "speculative_num_draft_tokens.resolved", 0);
  }
  s.tp = static_cast<int>(std::max<std::int64_t>(1, int_node(plan, "arg.tp_size", 1)));
  s.dp = static_cast<int>(std::max<std::int64_t>(1, int_node(plan, "arg.dp_size", 1)));
  s.kv_bytes_per_token = number_node(plan, "kv_cell_bytes", 0);
  const Node* before = plan.graph.find("free_before_load_gib");
  const Node* after = plan.graph.find("free_after_load_gib");
  if (before != nullptr && after != nullptr && before->origin == Origin::kCalibration &&
      after->origin == Origin::kCalibration) {
    s.weight_bytes_per_gpu =
        (before->value.as_number() - after->value.as_number()) * 1024.0 * 1024.0 * 1024.0;
  }
  const bool graphs_off = [&] {
    const Node* n = plan.graph.find("arg.disable_cuda_graph");
    return n != nullptr && n->value.is_bool() && n->value.as_bool();
  }();
  if (!graphs_off) {
    if (const Node* n = plan.graph.find("cuda_graph_bs"); n != nullptr && n->value.is_list())
      s.graph_batch_sizes = n->value.as_list();
  }
  s.decode_log_interval = static_cast<int>(
      std::max(1.0, flag_number(scenario.command, "--decode-log-interval").value_or(40)));
  return s;
}

Endpoint SglangTwinProfile::endpoint(const LaunchCommand& command) const {
  // server_args.py: --host defaults to 127.0.0.1, --port to 30000.
  return endpoint_of(command, "127.0.0.1", 30000);
}

std::string SglangTwinProfile::served_model_name(const Scenario& scenario) const {
  return served_model_name_of(scenario, "--model-path");
}

// metrics_reporter.py::report_decode_stats with pool_stats_observer.py's usage parts
// (docs/research/sglang-capacity.md §10, L14): hybrid SSM models print #full token and mamba
// fields.
std::string SglangTwinProfile::decode_log_line(const SchedulerView& v) const {
  std::string usage;
  if (v.state_slots > 0) {
    usage = fmt::format(
        "#full token: {}, full token usage: {:.2f}, mamba num: {}, mamba usage: {:.2f}, ",
        v.used_tokens, v.token_usage(), v.used_state_slots, v.state_usage());
  } else {
    usage = fmt::format("#token: {}, token usage: {:.2f}, ", v.used_tokens, v.token_usage());
  }
  std::string spec;
  if (v.accept_length > 0)
    spec = fmt::format("accept len: {:.2f}, accept rate: {:.2f}, ", v.accept_length, v.accept_rate);
  return fmt::format(
      "Decode batch, #running-req: {}, {}{}cuda graph: {}, gen throughput (token/s): {:.2f}, "
      "#queue-req: {}",
      v.running, usage, spec, py_bool(v.graph), v.gen_throughput, v.queued);
}

// metrics_reporter.py::report_prefill_stats (§10, L15).
std::string SglangTwinProfile::prefill_log_line(const PrefillView& p) const {
  const SchedulerView& v = p.scheduler;
  std::string usage = v.state_slots > 0
                          ? fmt::format("full token usage: {:.2f}, mamba usage: {:.2f}",
                                        v.token_usage(), v.state_usage())
                          : fmt::format("token usage: {:.2f}", v.token_usage());
  return fmt::format(
      "Prefill batch, #new-seq: {}, #new-token: {}, #cached-token: {}, {}, #running-req: {}, "
      "#queue-req: {}, #pending-token: {}, cuda graph: {}, input throughput (token/s): {:.2f}",
      p.new_seqs, p.new_tokens, p.cached_tokens, usage, v.running, v.queued, p.pending_tokens,
      py_bool(v.graph), p.input_throughput);
}

// http_server.py: HTTPException and validation errors become ErrorResponse
// {"object": "error", "message", "type", "param", "code"}.
std::string SglangTwinProfile::error_json(int http_status, std::string_view message) const {
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
      type = "PayloadTooLarge";
      break;
    case 500:
      type = "InternalServerError";
      break;
    case 503:
      type = "ServiceUnavailableError";
      break;
    default:
      type = std::to_string(http_status);
      break;
  }
  nlohmann::json j = {{"object", "error"},
                      {"message", std::string(message)},
                      {"type", type},
                      {"param", nullptr},
                      {"code", http_status}};
  return j.dump();
}

// tokenizer_manager.py::_validate_one_request: the prompt must leave room in the context, and
// so must the requested output.
std::string SglangTwinProfile::context_error(std::int64_t prompt_tokens, std::int64_t max_tokens,
                                             std::int64_t context_len) const {
  if (prompt_tokens >= context_len)
    return fmt::format(
        "The input ({} tokens) is longer than the model's context length ({} tokens).",
        prompt_tokens, context_len);
  if (prompt_tokens + max_tokens > context_len)
    return fmt::format(
        "Requested token count exceeds the model's maximum context length of {} tokens. You "
        "requested a total of {} tokens: {} tokens from the input messages and {} tokens for the "
        "completion. Please reduce the number of tokens in the input messages or the completion to "
        "fit within the limit.",
        context_len, prompt_tokens + max_tokens, prompt_tokens, max_tokens);
  return "";
}

// entrypoints/openai/protocol.py: SGLang's extensions to OpenAI's request fields.
std::vector<std::string> SglangTwinProfile::extra_request_fields() const {
  return {"top_k",
          "min_p",
          "min_tokens",
          "regex",
          "ebnf",
          "json_schema",
          "repetition_penalty",
          "stop_token_ids",
          "no_stop_trim",
          "ignore_eos",
          "skip_special_tokens",
          "lora_path",
          "session_params",
          "separate_reasoning",
          "stream_reasoning",
          "chat_template_kwargs",
          "rid",
          "return_hidden_states",
          "continue_final_message",
          "bootstrap_host",
          "bootstrap_port",
          "bootstrap_room",
          "priority",
          "custom_logit_processor",
          "custom_params",
          "return_text_in_logprobs",
          "sampling_seed"};
}

Result<NativeGenerateRequest> SglangTwinProfile::parse_native_generate(
    std::string_view body) const {
  // io_struct.py::GenerateReqInput and sampling_params.py::SamplingParams: the fields the
  // twin reads; the others SGLang accepts are allowed and ignored.
  static const std::vector<std::string> kTop = {"text",
                                                "input_ids",
                                                "sampling_params",
                                                "stream",
                                                "rid",
                                                "return_logprob",
                                                "logprob_start_len",
                                                "top_logprobs_num",
                                                "token_ids_logprob",
                                                "return_text_in_logprobs",
                                                "image_data",
                                                "audio_data",
                                                "video_data",
                                                "lora_path",
                                                "session_params",
                                                "custom_logit_processor",
                                                "return_hidden_states",
                                                "log_metrics",
                                                "bootstrap_host",
                                                "bootstrap_port",
                                                "bootstrap_room",
                                                "priority",
                                                "input_embeds",
                                                "modalities",
                                                "data_parallel_rank",
                                                "no_logs"};
  static const std::vector<std::string> kSampling = {"max_new_tokens",
                                                     "min_new_tokens",
                                                     "temperature",
                                                     "top_p",
                                                     "top_k",
                                                     "min_p",
                                                     "frequency_penalty",
                                                     "presence_penalty",
                                                     "repetition_penalty",
                                                     "stop",
                                                     "stop_token_ids",
                                                     "ignore_eos",
                                                     "skip_special_tokens",
                                                     "spaces_between_special_tokens",
                                                     "no_stop_trim",
                                                     "regex",
                                                     "ebnf",
                                                     "json_schema",
                                                     "n",
                                                     "custom_params",
                                                     "stream_interval",
                                                     "logit_bias",
                                                     "sampling_seed"};
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded())
    return fail("Invalid JSON in the request body");
  if (!j.is_object())
    return fail("The request body must be a JSON object");
  NativeGenerateRequest r;
  for (const auto& [key, value] : j.items()) {
    if (std::find(kTop.begin(), kTop.end(), key) == kTop.end())
      return fail(fmt::format("Unknown field '{}' in the /generate request", key));
  }
  if (auto it = j.find("text"); it != j.end() && !it->is_null()) {
    if (!it->is_string())
      return fail("'text' must be a string (batched requests are not supported by the twin)");
    r.text = it->get<std::string>();
  }
  if (auto it = j.find("input_ids"); it != j.end() && !it->is_null()) {
    if (!it->is_array() || !std::all_of(it->begin(), it->end(), [](const nlohmann::json& x) {
          return x.is_number_integer();
        }))
      return fail("'input_ids' must be a list of integers");
    r.input_ids = static_cast<std::int64_t>(it->size());
  }
  if (r.text.empty() && !r.input_ids)
    return fail("Either text or input_ids should be provided.");
  if (auto it = j.find("stream"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean())
      return fail("'stream' must be a boolean");
    r.stream = it->get<bool>();
  }
  if (auto it = j.find("sampling_params"); it != j.end() && !it->is_null()) {
    if (!it->is_object())
      return fail("'sampling_params' must be an object");
    for (const auto& [key, value] : it->items()) {
      if (std::find(kSampling.begin(), kSampling.end(), key) == kSampling.end())
        return fail(fmt::format("Unknown sampling parameter '{}'", key));
    }
    if (auto m = it->find("max_new_tokens"); m != it->end() && !m->is_null()) {
      if (!m->is_number_integer() || m->get<std::int64_t>() < 0)
        return fail("max_new_tokens must be a non-negative integer");
      r.max_new_tokens = m->get<std::int64_t>();
    }
    if (auto n = it->find("n");
        n != it->end() && !n->is_null() && (!n->is_number_integer() || n->get<std::int64_t>() != 1))
      return fail("n must be 1 (the twin generates one sequence per request)");
    if (auto e = it->find("ignore_eos"); e != it->end() && !e->is_null()) {
      if (!e->is_boolean())
        return fail("ignore_eos must be a boolean");
      r.ignore_eos = e->get<bool>();
    }
  }
  return r;
}

std::string SglangTwinProfile::native_generate_json(const NativeGenerateView& v) const {
  nlohmann::json finish = nullptr;
  if (v.finished)
    finish = {{"type", "length"}, {"length", v.completion_tokens}};
  nlohmann::json j = {{"text", std::string(v.text)},
                      {"meta_info",
                       {{"id", v.id},
                        {"finish_reason", finish},
                        {"prompt_tokens", v.prompt_tokens},
                        {"weight_version", "default"},
                        {"total_retractions", 0},
                        {"completion_tokens", v.completion_tokens},
                        {"cached_tokens", 0},
                        {"e2e_latency", v.e2e_seconds}}}};
  return j.dump();
}

}  // namespace servescope::sglang
