// The SGLang twin profile: the scheduler limits a plan implies, and the engine's words — its
// batch lines (docs/research/sglang-capacity.md §10), metrics (§11), error bodies and startup log.
#include "engines/sglang/sglang_twin_profile.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/text.h"
#include "diagnose/scenario_builder.h"

namespace servescope::sglang {
namespace {

struct Case {
  BuiltScenario built;
  Plan plan;
};

Case make(const std::string& command, double before = 94.6, double after = 64.6,
          std::vector<std::string> env = {}, const std::string& engine = "sglang@0.5.16") {
  ScenarioOptions o;
  o.engine = engine;
  o.gpu = "rtx-pro-6000";
  o.gpus = 4;
  o.free_before_load_gib = before;
  o.free_after_load_gib = after;
  o.env = std::move(env);
  o.command = *split_command_line(
      "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 " + command);
  Case c{std::move(*build_scenario(o)), {}};
  c.plan = std::move(*c.built.engine->plan(c.built.scenario));
  return c;
}

const SglangTwinProfile& profile() {
  return sglang_twin_profile();
}

TEST(SglangTwinProfileTest, ServingShapeCarriesThePlansLimits) {
  const Case c = make("--speculative-algorithm NEXTN");
  auto s = profile().serving_shape(c.built.scenario, c.plan);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(s->max_running_requests, 48);
  EXPECT_EQ(s->token_pool, 2079216);
  EXPECT_EQ(s->state_slots, 325);
  EXPECT_EQ(s->state_slots_per_request, 3);  // extra_buffer: the state and two track buffers
  EXPECT_EQ(s->chunk_tokens, 8192);
  EXPECT_EQ(s->max_prefill_tokens, 16384);
  EXPECT_EQ(s->context_len, 262144);
  EXPECT_EQ(s->speculative_steps, 3);
  EXPECT_EQ(s->speculative_draft_tokens, 4);
  EXPECT_EQ(s->tp, 4);
  EXPECT_EQ(s->kv_bytes_per_token, 13312);
  EXPECT_EQ(s->state_bytes_per_request, 38412288);
  EXPECT_NEAR(s->weight_bytes_per_gpu, 30.0 * 1024 * 1024 * 1024, 1e3);
  EXPECT_EQ(s->graph_batch_sizes.back(), 48);
  EXPECT_EQ(s->clip_max_new_tokens, 4096);
  EXPECT_DOUBLE_EQ(s->init_new_token_ratio, 0.7);
  EXPECT_NEAR(s->min_new_token_ratio, 0.098, 1e-12);
  EXPECT_EQ(s->decode_log_interval, 40);
}

TEST(SglangTwinProfileTest, ServingShapeReadsTheFlagsAndEnvironmentTheSchedulerReads) {
  const Case c = make("--schedule-conservativeness 0.5 --decode-log-interval 10", 94.6, 64.6,
                      {"SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION=1024"});
  auto s = profile().serving_shape(c.built.scenario, c.plan);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->init_new_token_ratio, 0.35);
  EXPECT_EQ(s->clip_max_new_tokens, 1024);
  EXPECT_EQ(s->decode_log_interval, 10);
  EXPECT_EQ(s->speculative_draft_tokens, 0);
  EXPECT_EQ(s->state_slots_per_request, 3);
}

TEST(SglangTwinProfileTest, APlanThatDoesNotStartHasNoServingShape) {
  const Case c = make("", 40, 2);
  ASSERT_FALSE(c.plan.starts);
  EXPECT_FALSE(profile().serving_shape(c.built.scenario, c.plan));
}

TEST(SglangTwinProfileTest, DecodeLinesFollowTheCurrentFormats) {
  SchedulerView v;
  v.running = 48;
  v.queued = 16;
  v.used_tokens = 61234;
  v.token_pool = 2079216;
  v.graph = true;
  v.gen_throughput = 3981.234;
  EXPECT_EQ(profile().decode_log_line(v),
            "Decode batch, #running-req: 48, #token: 61234, token usage: 0.03, cuda graph: True, "
            "gen throughput "
            "(token/s): 3981.23, #queue-req: 16");
  v.state_slots = 325;
  v.used_state_slots = 144;
  v.accept_length = 2.8;
  v.accept_rate = 0.6;
  EXPECT_EQ(profile().decode_log_line(v),
            "Decode batch, #running-req: 48, #full token: 61234, full token usage: 0.03, mamba "
            "num: 144, mamba usage: "
            "0.44, accept len: 2.80, accept rate: 0.60, cuda graph: True, gen throughput "
            "(token/s): 3981.23, "
            "#queue-req: 16");
}

TEST(SglangTwinProfileTest, PrefillLinesFollowTheCurrentFormats) {
  PrefillView p;
  p.scheduler.running = 3;
  p.scheduler.queued = 2;
  p.scheduler.used_tokens = 5000;
  p.scheduler.token_pool = 100000;
  p.new_seqs = 2;
  p.new_tokens = 4096;
  p.pending_tokens = 100;
  p.input_throughput = 12345.678;
  EXPECT_EQ(profile().prefill_log_line(p),
            "Prefill batch, #new-seq: 2, #new-token: 4096, #cached-token: 0, token usage: 0.05, "
            "#running-req: 3, "
            "#queue-req: 2, #pending-token: 100, cuda graph: False, input throughput (token/s): "
            "12345.68");
  p.scheduler.state_slots = 10;
  p.scheduler.used_state_slots = 5;
  EXPECT_NE(profile().prefill_log_line(p).find(
                ", full token usage: 0.05, mamba usage: 0.50, #running-req: 3"),
            std::string::npos);
}

TEST(SglangTwinProfileTest, PythonReprAsSglangPrintsIt) {
  EXPECT_EQ(python_repr(Value()), "None");
  EXPECT_EQ(python_repr(Value(true)), "True");
  EXPECT_EQ(python_repr(Value(std::int64_t{48})), "48");
  EXPECT_EQ(python_repr(Value(1.0)), "1.0");
  EXPECT_EQ(python_repr(Value(0.785126015625)), "0.785126015625");
  EXPECT_EQ(python_repr(Value("it's")), "'it\\'s'");
  EXPECT_EQ(python_repr(Value(IntList{1, 2, 4})), "[1, 2, 4]");
  const Case c = make("--speculative-algorithm NEXTN");
  const std::string args = server_args_repr(c.built.scenario, c.plan, Endpoint{"0.0.0.0", 30000});
  EXPECT_EQ(args.rfind("server_args=ServerArgs(model_path='Qwen/Qwen3.5-122B-A10B-FP8', ", 0), 0u);
  for (const char* field :
       {"host='0.0.0.0'", "port=30000", "tp_size=4", "mem_fraction_static=0.785126015625",
        "max_running_requests=48", "chunked_prefill_size=8192", "speculative_algorithm='EAGLE'",
        "speculative_num_draft_tokens=4", "mamba_radix_cache_strategy='extra_buffer'",
        "served_model_name='Qwen/Qwen3.5-122B-A10B-FP8'"})
    EXPECT_NE(args.find(field), std::string::npos) << field;
  EXPECT_EQ(args.back(), ')');
}

TEST(SglangTwinProfileTest, StartupLogEndsReadyOrWithTheEnginesError) {
  const Case ok = make("--speculative-algorithm NEXTN");
  const auto lines = profile().startup_log(ok.built.scenario, ok.plan,
                                           StartupContext{{"127.0.0.1", 30000}, 10, 1});
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().mark, StartupMark::kReady);
  EXPECT_EQ(lines.back().text, "The server is fired up and ready to roll!");
  std::size_t listening = 0, capacity = 0;
  double previous = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_GE(lines[i].at, previous) << "lines come in time order";
    previous = lines[i].at;
    if (lines[i].mark == StartupMark::kListening)
      listening = i;
    if (lines[i].text.rfind(
            "max_total_num_tokens=2079216, chunked_prefill_size=8192, max_prefill_tokens=16384, "
            "max_running_requests=48, context_len=262144, available_gpu_mem=",
            0) == 0)
      capacity = i;
  }
  EXPECT_GT(capacity, 0u);
  EXPECT_GT(listening, capacity) << "uvicorn starts after the scheduler reports its capacity";
  EXPECT_EQ(lines[listening].text,
            "INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)");

  const Case bad = make("", 40, 2);
  const auto failed = profile().startup_log(bad.built.scenario, bad.plan,
                                            StartupContext{{"127.0.0.1", 30000}, 0, 1});
  EXPECT_EQ(failed.back().mark, StartupMark::kFailed);
  bool error_line = false;
  for (const LogLine& l : failed) {
    EXPECT_NE(l.mark, StartupMark::kListening);
    error_line = error_line || (l.raw && l.text == bad.plan.startup_error);
  }
  EXPECT_TRUE(error_line);
}

// The startup lines follow the engine's version (sglang-history.md §11): the same plan printed
// for a 2025 main branch has that era's KV and weight lines and ServerArgs fields.
TEST(SglangTwinProfileTest, StartupLogLinesFollowTheVersion) {
  auto joined = [](const std::vector<LogLine>& lines) {
    std::string all;
    for (const LogLine& l : lines)
      all += l.text + "\n";
    return all;
  };
  const Case now = make("", 94.6, 64.6, {}, "sglang@2026-07-20");
  const Case old = make("", 94.6, 64.6, {}, "sglang@2025-11-01");
  const StartupContext ctx{{"127.0.0.1", 30000}, 10, 1};
  const std::string a = joined(profile().startup_log(now.built.scenario, now.plan, ctx));
  const std::string b = joined(profile().startup_log(old.built.scenario, old.plan, ctx));
  // "dtype:" entered the KV line on 2026-05-24; "#tokens:" is in both.
  EXPECT_NE(a.find("KV Cache is allocated. dtype: "), std::string::npos) << a;
  EXPECT_EQ(b.find("KV Cache is allocated. dtype: "), std::string::npos) << b;
  EXPECT_NE(b.find("KV Cache is allocated. #tokens: "), std::string::npos) << b;
  // The weight line named the dtype until 2026-03-04, the quantization after.
  EXPECT_NE(b.find("dtype=torch.bfloat16, avail mem="), std::string::npos) << b;
  EXPECT_EQ(a.find("dtype=torch."), std::string::npos) << a;
  // The CUDA-graph fields were split by phase on 2026-06-09.
  EXPECT_NE(a.find("cuda_graph_max_bs_decode="), std::string::npos);
  EXPECT_EQ(b.find("cuda_graph_max_bs_decode="), std::string::npos);
  EXPECT_NE(b.find("cuda_graph_max_bs="), std::string::npos);
}

TEST(SglangTwinProfileTest, MetricsUsePrometheusFormattingAndSglangNames) {
  const Case c = make("");
  auto shape = profile().serving_shape(c.built.scenario, c.plan);
  ASSERT_TRUE(shape);
  Histogram ttft(profile().histogram_bounds(HistogramKind::kTimeToFirstToken));
  ttft.observe(0.15);
  ttft.observe(3);
  ServingStatus s;
  s.scenario = &c.built.scenario;
  s.plan = &c.plan;
  s.shape = &*shape;
  s.model_name = "m";
  s.scheduler.running = 3;
  s.scheduler.token_pool = shape->token_pool;
  s.scheduler.max_running_requests = shape->max_running_requests;
  s.ttft = &ttft;
  const std::string text = profile().metrics_text(s);
  const std::string labels =
      R"({engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="0",tp_rank="0"})";
  EXPECT_NE(text.find("# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs" + labels +
                      " 3.0\n"),
            std::string::npos);
  // Large values in prometheus_client's Go-style exponent form: 2.079216e+06.
  const std::string key = "sglang:max_total_num_tokens" + labels + " ";
  const auto at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  const std::string value = text.substr(at + key.size(), text.find('\n', at) - at - key.size());
  EXPECT_EQ(value.size() > 4 ? value.substr(value.size() - 4) : value, "e+06") << value;
  EXPECT_EQ(value[1], '.');
  EXPECT_DOUBLE_EQ(std::stod(value), static_cast<double>(shape->token_pool));
  EXPECT_NE(text.find("sglang:time_to_first_token_seconds_bucket{engine_type=\"unified\",model_"
                      "name=\"m\",moe_ep_rank="
                      "\"0\",pp_rank=\"0\",tp_rank=\"0\",le=\"0.2\"} 1.0\n"),
            std::string::npos);
  EXPECT_NE(text.find("sglang:time_to_first_token_seconds_bucket" +
                      labels.substr(0, labels.size() - 1) + ",le=\"+Inf\"} 2.0\n"),
            std::string::npos);
  EXPECT_NE(text.find("sglang:time_to_first_token_seconds_count" + labels + " 2.0\n"),
            std::string::npos);

  const auto loads = nlohmann::json::parse(*profile().status_json("/v1/loads", s));
  EXPECT_EQ(loads["loads"][0]["num_running_reqs"], 3);
  EXPECT_EQ(loads["loads"][0]["max_running_requests"], shape->max_running_requests);
  EXPECT_EQ(loads["aggregate"]["total_running_reqs"], 3);
  const auto info = nlohmann::json::parse(*profile().status_json("/server_info", s));
  EXPECT_EQ(info["internal_states"][0]["effective_max_running_requests_per_dp"],
            shape->max_running_requests);
  EXPECT_EQ(info["tp_size"], 4);
  EXPECT_FALSE(profile().status_json("/nope", s));
}

TEST(SglangTwinProfileTest, ErrorsLookLikeTheEngines) {
  const auto e = nlohmann::json::parse(profile().error_json(400, "bad thing"));
  EXPECT_EQ(e["object"], "error");
  EXPECT_EQ(e["message"], "bad thing");
  EXPECT_EQ(e["code"], 400);
  EXPECT_TRUE(e["param"].is_null());
  EXPECT_EQ(profile().context_error(100, 10, 1000), "");
  EXPECT_EQ(profile().context_error(1000, 1, 1000),
            "The input (1000 tokens) is longer than the model's context length (1000 tokens).");
  EXPECT_NE(profile().context_error(990, 20, 1000).find("You requested a total of 1010 tokens"),
            std::string::npos);
  EXPECT_EQ(profile().access_log_line("127.0.0.1:5000", "POST", "/v1/completions", 200),
            "INFO:     127.0.0.1:5000 - \"POST /v1/completions HTTP/1.1\" 200 OK");
}

TEST(SglangTwinProfileTest, NativeGenerateRequestsAreReadStrictly) {
  auto ok = profile().parse_native_generate(
      R"({"text": "hello", "sampling_params": {"max_new_tokens": 7, "ignore_eos": true}, "stream": true})");
  ASSERT_TRUE(ok) << ok.message();
  EXPECT_EQ(ok->text, "hello");
  EXPECT_EQ(ok->max_new_tokens, 7);
  EXPECT_TRUE(ok->ignore_eos);
  EXPECT_TRUE(ok->stream);
  auto ids = profile().parse_native_generate(R"({"input_ids": [1, 2, 3]})");
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->input_ids, 3);
  for (const char* bad :
       {"{", R"({"sampling_params": {}})", R"({"text": "x", "wat": 1})",
        R"({"text": "x", "sampling_params": {"max_new_tokens": -1}})",
        R"({"text": "x", "sampling_params": {"n": 2}})", R"({"text": ["a", "b"]})"})
    EXPECT_FALSE(profile().parse_native_generate(bad)) << bad;
  NativeGenerateView v;
  v.id = "abc";
  v.text = " the";
  v.prompt_tokens = 2;
  v.completion_tokens = 1;
  v.finished = true;
  const auto j = nlohmann::json::parse(profile().native_generate_json(v));
  EXPECT_EQ(j["text"], " the");
  EXPECT_EQ(j["meta_info"]["finish_reason"]["type"], "length");
  EXPECT_EQ(j["meta_info"]["completion_tokens"], 1);
}

}  // namespace
}  // namespace servescope::sglang
