// End-to-end tests of `servescope twin`, started by each test on 127.0.0.1 with an ephemeral
// port: the startup log read back by `servescope logs`, valid SSE through curl and through a
// small client, the running limit as /v1/loads and /metrics report it under 2× that many
// streams, each fault, a failing plan, and SIGTERM under load.
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "tests/twin/http_test_client.h"
#include "tests/twin/twin_fixture.h"
#include "tests/twin/twin_process.h"
#include "twin/token_text.h"

namespace servescope::testing {
namespace {

using nlohmann::json;

std::string completion_body(int max_tokens, bool stream) {
  return json{{"model", "m"},
              {"prompt", "Say something about the twin server please"},
              {"max_tokens", max_tokens},
              {"stream", stream}}
      .dump();
}

std::string chat_stream_body(int max_tokens) {
  return json{{"messages", json::array({json{{"role", "user"}, {"content", "hello there"}}})},
              {"max_tokens", max_tokens},
              {"stream", true},
              {"stream_options", {{"include_usage", true}}},
              {"ignore_eos", true}}
      .dump();
}

// Reads one SSE stream to its end: token count from the content events, whether it ended
// with [DONE] after a clean final chunk, and whether every event was valid JSON.
struct StreamResult {
  std::int64_t tokens = 0;
  bool done = false;
  bool valid = true;
  bool ended_cleanly = false;
  int events = 0;
};

StreamResult read_stream(HttpConnection& c) {
  StreamResult r;
  while (auto e = c.next_event()) {
    ++r.events;
    if (*e == "[DONE]") {
      r.done = true;
      continue;
    }
    const json j = json::parse(*e, nullptr, false);
    if (j.is_discarded() || r.done) {
      r.valid = false;
      continue;
    }
    for (const json& choice : j.value("choices", json::array())) {
      std::string text;
      if (choice.contains("text"))
        text = choice["text"].get<std::string>();
      else if (choice.contains("delta") && choice["delta"].contains("content"))
        text = choice["delta"]["content"].get<std::string>();
      r.tokens += static_cast<std::int64_t>(text.size() / 4);  // the twin's tokens are 4 bytes
    }
  }
  r.ended_cleanly = c.ended_cleanly;
  return r;
}

TEST(TwinEndToEnd, TheStartupLogReadsBackToThePlansValues) {
  auto plan = founding_case();
  ASSERT_TRUE(plan);
  TwinProcess twin(founding_options(), founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  twin.signal(SIGTERM);
  ASSERT_TRUE(twin.wait_exit(std::chrono::seconds(5)));
  int code = 0;
  const std::string out = run_capture(
      std::string(SERVESCOPE_BINARY) + " logs --json " + twin.err_path + " 2>&1", &code);
  ASSERT_EQ(code, 0) << out;
  const json j = json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out.substr(0, 500);
  EXPECT_EQ(j["engine"], "sglang");
  EXPECT_EQ(j["counts"]["unknown"], 0);
  EXPECT_EQ(j["counts"]["unknown_capacity"], 0);
  std::map<std::string, json> tp0;  // first TP0 (or untagged) fact of each kind
  for (const json& f : j["facts"]) {
    const std::string label = f["rank"]["label"].get<std::string>();
    if ((label.empty() || label == "TP0") && !tp0.count(f["kind"]))
      tp0[f["kind"]] = f["fields"];
  }
  const Plan& p = plan->plan;
  ASSERT_TRUE(tp0.count("capacity"));
  EXPECT_EQ(tp0["capacity"]["max_total_num_tokens"], p.output("max_total_num_tokens").as_int());
  EXPECT_EQ(tp0["capacity"]["max_running_requests"], p.output("max_running_requests").as_int());
  EXPECT_EQ(tp0["capacity"]["chunked_prefill_size"], p.output("chunked_prefill_size").as_int());
  EXPECT_EQ(tp0["capacity"]["context_len"], p.output("context_len").as_int());
  ASSERT_TRUE(tp0.count("kv_cache_allocated"));
  EXPECT_EQ(tp0["kv_cache_allocated"]["tokens"], p.output("max_total_num_tokens").as_int());
  ASSERT_TRUE(tp0.count("mamba_cache_allocated"));
  EXPECT_EQ(tp0["mamba_cache_allocated"]["max_mamba_cache_size"],
            p.output("max_mamba_cache_size").as_int());
  ASSERT_TRUE(tp0.count("server_args"));
  EXPECT_DOUBLE_EQ(tp0["server_args"]["mem_fraction_static"].get<double>(),
                   p.output("mem_fraction_static").as_number());
  ASSERT_TRUE(tp0.count("load_weight_begin"));
  EXPECT_DOUBLE_EQ(tp0["load_weight_begin"]["avail_mem_gb"].get<double>(), 94.6);
  ASSERT_TRUE(tp0.count("load_weight_end"));
  EXPECT_DOUBLE_EQ(tp0["load_weight_end"]["avail_mem_gb"].get<double>(), 64.6);
  EXPECT_TRUE(tp0.count("server_ready"));
}

// Dense, MLA, sliding-window and hybrid linear-attention models: every line of the twin's log
// is one `servescope logs` knows, and the capacity line carries the plan's numbers.
TEST(TwinEndToEnd, EveryModelFamilysStartupLogReadsBackWithNoUnknownLine) {
  for (const char* model : {"meta-llama/Llama-3.1-8B-Instruct", "deepseek-ai/DeepSeek-V3",
                            "openai/gpt-oss-120b", "Qwen/Qwen3-Next-80B-A3B-Instruct"}) {
    SCOPED_TRACE(model);
    const std::vector<std::string> command = {
        "python", "-m", "sglang.launch_server", "--model-path", model, "--tp", "8"};
    TwinProcess twin({"--gpu", "h200", "--gpus", "8", "--no-access-log"}, command);
    ASSERT_GT(twin.wait_port(), 0) << twin.err();
    ASSERT_TRUE(twin.wait_ready()) << twin.err();
    twin.signal(SIGTERM);
    ASSERT_TRUE(twin.wait_exit(std::chrono::seconds(5)));
    int code = 0;
    const json logs = json::parse(
        run_capture(std::string(SERVESCOPE_BINARY) + " logs --json " + twin.err_path, &code),
        nullptr, false);
    ASSERT_EQ(code, 0);
    std::string joined;
    for (const std::string& w : command)
      joined += " " + w;
    const json plan = json::parse(
        run_capture(std::string(SERVESCOPE_BINARY) + " plan --json --gpu h200 --gpus 8 --" + joined,
                    &code),
        nullptr, false);
    ASSERT_EQ(code, 0);
    EXPECT_EQ(logs["counts"]["unknown"], 0);
    EXPECT_EQ(logs["counts"]["unknown_capacity"], 0);
    bool found = false;
    for (const json& f : logs["facts"]) {
      if (f["kind"] != "capacity" || found)
        continue;
      found = true;
      EXPECT_EQ(f["fields"]["max_total_num_tokens"], plan["outputs"]["max_total_num_tokens"]);
      EXPECT_EQ(f["fields"]["max_running_requests"], plan["outputs"]["max_running_requests"]);
      EXPECT_EQ(f["fields"]["context_len"], plan["outputs"]["context_len"]);
    }
    EXPECT_TRUE(found);
  }
}

TEST(TwinEndToEnd, CurlReceivesValidSseEndingInDone) {
  TwinProcess twin(founding_options({"--speed", "inf"}), founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  const std::string url = "http://127.0.0.1:" + std::to_string(twin.port);
  int code = 0;
  const std::string out =
      run_capture("curl -sN --max-time 20 -H 'Content-Type: application/json' -d '" +
                      chat_stream_body(17) + "' " + url + "/v1/chat/completions",
                  &code);
  ASSERT_EQ(code, 0) << out;
  // Every event is "data: <JSON>" followed by a blank line, and the last one is [DONE].
  std::vector<std::string> events;
  std::size_t start = 0, end;
  while ((end = out.find("\n\n", start)) != std::string::npos) {
    events.push_back(out.substr(start, end - start));
    start = end + 2;
  }
  EXPECT_EQ(start, out.size()) << "trailing bytes after the last event";
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.back(), "data: [DONE]");
  std::int64_t tokens = 0;
  bool usage = false, role = false;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    ASSERT_EQ(events[i].rfind("data: ", 0), 0u) << events[i];
    const json j = json::parse(events[i].substr(6), nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << events[i];
    EXPECT_EQ(j["object"], "chat.completion.chunk");
    if (j["choices"].empty()) {
      usage = true;
      EXPECT_EQ(j["usage"]["completion_tokens"], 17);
      EXPECT_EQ(j["usage"]["prompt_tokens"],
                approximate_tokens("hello there") + chat_template_tokens(1));
      continue;
    }
    const json& delta = j["choices"][0]["delta"];
    role = role || delta.value("role", "") == "assistant";
    tokens += static_cast<std::int64_t>(delta.value("content", "").size() / 4);
  }
  EXPECT_TRUE(role);
  EXPECT_TRUE(usage);
  EXPECT_EQ(tokens, 17);
  // Non-streaming through curl: the usage counts.
  const std::string body =
      run_capture("curl -s --max-time 20 -H 'Content-Type: application/json' -d '" +
                  completion_body(9, false) + "' " + url + "/v1/completions");
  const json j = json::parse(body, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << body;
  EXPECT_EQ(j["usage"]["completion_tokens"], 9);
  EXPECT_EQ(j["usage"]["prompt_tokens"],
            approximate_tokens("Say something about the twin server please"));
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  twin.signal(SIGTERM);
  EXPECT_TRUE(twin.wait_exit(std::chrono::seconds(5)));
}

TEST(TwinEndToEnd, AnswersTheEnginesEndpointsAndRefusesBadRequestsWithoutCrashing) {
  TwinProcess twin(founding_options({"--speed", "inf", "--max-body-bytes", "4096"}),
                   founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  const int port = twin.port;
  EXPECT_EQ(http_request(port, "GET", "/health").status, 200);
  EXPECT_EQ(http_request(port, "GET", "/health_generate").status, 200);
  const json models = json::parse(http_request(port, "GET", "/v1/models").body, nullptr, false);
  EXPECT_EQ(models["data"][0]["id"], "Qwen/Qwen3.5-122B-A10B-FP8");
  const json info = json::parse(http_request(port, "GET", "/server_info").body, nullptr, false);
  EXPECT_EQ(info["internal_states"][0]["effective_max_running_requests_per_dp"], 48);
  EXPECT_EQ(info["max_total_num_tokens"], 2079216);
  const std::string metrics = http_request(port, "GET", "/metrics").body;
  EXPECT_NE(metrics.find("sglang:max_total_num_tokens{"), std::string::npos);
  EXPECT_NE(metrics.find("sglang:time_to_first_token_seconds_bucket{"), std::string::npos);

  // Each bad request gets a 4xx with the engine's error body, and the server keeps serving.
  auto error_of = [&](const HttpReply& r) { return json::parse(r.body, nullptr, false); };
  HttpReply r = http_request(port, "POST", "/v1/completions", "{\"prompt\": \"x\", ");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_of(r)["object"], "error");
  r = http_request(port, "POST", "/v1/completions",
                   R"({"prompt": "x", "max_tokens": 3, "bogus_field": 1})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(error_of(r)["message"].get<std::string>().find("bogus_field"), std::string::npos);
  r = http_request(port, "POST", "/v1/completions", R"({"prompt": "x", "max_tokens": "three"})");
  EXPECT_EQ(r.status, 400);
  r = http_request(port, "POST", "/v1/chat/completions", R"({"messages": []})");
  EXPECT_EQ(r.status, 400);
  r = http_request(port, "POST", "/v1/completions", R"({"prompt": "x", "n": 2})");
  EXPECT_EQ(r.status, 400);
  r = http_request(port, "POST", "/v1/completions", R"({"prompt": "x"})", "text/plain");
  EXPECT_EQ(r.status, 400);
  r = http_request(port, "POST", "/v1/completions", std::string(10000, ' '));
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(error_of(r)["code"], 413);
  r = http_request(port, "POST", "/v1/completions",
                   json{{"prompt", json::array({1, 2, 3})}, {"max_tokens", 300000}}.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(error_of(r)["message"].get<std::string>().find("context length"), std::string::npos);
  EXPECT_EQ(http_request(port, "GET", "/v1/completions").status, 405);
  EXPECT_EQ(http_request(port, "GET", "/no/such/path").status, 404);
  {
    HttpConnection garbage(port);
    ASSERT_TRUE(garbage.connected());
    garbage.write_all("THIS IS NOT HTTP\r\n\r\n");
    EXPECT_EQ(garbage.read_reply().status, 400);
  }
  // Keep-alive and pipelining: two requests in one write, two replies in order on one connection.
  {
    HttpConnection c(port);
    ASSERT_TRUE(c.write_all(
        "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
        "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(completion_body(4, false).size()) + "\r\n\r\n" + completion_body(4, false)));
    EXPECT_EQ(c.read_reply().status, 200);
    const HttpReply second = c.read_reply();
    EXPECT_EQ(second.status, 200);
    EXPECT_EQ(json::parse(second.body)["usage"]["completion_tokens"], 4);
    ASSERT_TRUE(c.send("POST", "/v1/completions", completion_body(2, true)));
    HttpReply head;
    ASSERT_TRUE(c.read_head(head));
    EXPECT_EQ(read_stream(c).tokens, 2);
    ASSERT_TRUE(c.send("GET", "/health"));
    EXPECT_EQ(c.read_reply().status, 200) << "the connection serves on after a stream";
  }
  // The native API, and token ids as a prompt.
  r = http_request(port, "POST", "/generate",
                   R"({"input_ids": [1, 2, 3, 4], "sampling_params": {"max_new_tokens": 5}})");
  ASSERT_EQ(r.status, 200) << r.body;
  const json g = json::parse(r.body);
  EXPECT_EQ(g["meta_info"]["prompt_tokens"], 4);
  EXPECT_EQ(g["meta_info"]["completion_tokens"], 5);
  EXPECT_EQ(g["meta_info"]["finish_reason"]["type"], "length");
  EXPECT_EQ(http_request(port, "GET", "/health").status, 200);
  EXPECT_FALSE(twin.poll_exit()) << twin.err();
}

TEST(TwinEndToEnd, UnderTwiceTheLimitOfStreamsNeverRunsMoreThanTheLimit) {
  // 96 streams of 60 tokens against max_running_requests 48; the model's steps take ~30 ms,
  // so the run spans a few seconds of polling.
  TwinProcess twin(founding_options({"--speed", "2"}), founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  const int port = twin.port;
  constexpr int kStreams = 96;
  std::vector<std::unique_ptr<HttpConnection>> streams;
  for (int i = 0; i < kStreams; ++i) {
    streams.push_back(std::make_unique<HttpConnection>(port, 60));
    ASSERT_TRUE(streams.back()->connected());
    ASSERT_TRUE(streams.back()->send("POST", "/v1/completions", completion_body(60, true)));
  }
  std::atomic<bool> done{false};
  std::int64_t max_running_loads = 0, max_queued_loads = 0, max_running_metrics = 0, polls = 0;
  std::thread poller([&] {
    static const std::regex kRunning(R"(sglang:num_running_reqs\{[^}]*\} ([0-9.e+]+))");
    static const std::regex kQueued(R"(sglang:num_queue_reqs\{[^}]*\} ([0-9.e+]+))");
    for (int i = 0; i < 600 && !done; ++i) {  // at most 30 s
      const json loads = json::parse(http_request(port, "GET", "/v1/loads").body, nullptr, false);
      if (!loads.is_discarded()) {
        max_running_loads =
            std::max<std::int64_t>(max_running_loads, loads["loads"][0]["num_running_reqs"]);
        max_queued_loads =
            std::max<std::int64_t>(max_queued_loads, loads["loads"][0]["num_waiting_reqs"]);
      }
      const std::string metrics = http_request(port, "GET", "/metrics").body;
      std::smatch m;
      if (std::regex_search(metrics, m, kRunning))
        max_running_metrics =
            std::max<std::int64_t>(max_running_metrics, std::llround(std::stod(m[1])));
      ++polls;
      std::this_thread::sleep_for(std::chrono::milliseconds(40));
    }
  });
  std::vector<StreamResult> results;
  for (auto& s : streams) {
    HttpReply head;
    ASSERT_TRUE(s->read_head(head));
    EXPECT_EQ(head.status, 200);
    EXPECT_EQ(head.headers["content-type"], "text/event-stream; charset=utf-8");
    results.push_back(read_stream(*s));
  }
  done = true;
  poller.join();
  for (const StreamResult& r : results) {
    EXPECT_EQ(r.tokens, 60);
    EXPECT_TRUE(r.done);
    EXPECT_TRUE(r.valid);
    EXPECT_TRUE(r.ended_cleanly);
  }
  EXPECT_GT(polls, 5);
  EXPECT_EQ(max_running_loads, 48);
  EXPECT_LE(max_running_metrics, 48);
  EXPECT_GT(max_running_metrics, 0);
  EXPECT_GE(max_queued_loads, 40) << "the streams beyond 48 wait in the queue";
  EXPECT_FALSE(twin.poll_exit());
}

TEST(TwinEndToEnd, SeveralThreadsServeTheSameStreams) {
  TwinProcess twin(founding_options({"--speed", "inf", "--threads", "2"}), founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  std::vector<std::unique_ptr<HttpConnection>> streams;
  for (int i = 0; i < 64; ++i) {
    streams.push_back(std::make_unique<HttpConnection>(twin.port));
    ASSERT_TRUE(streams.back()->send("POST", "/v1/completions", completion_body(25, true)));
  }
  for (auto& s : streams) {
    HttpReply head;
    ASSERT_TRUE(s->read_head(head));
    const StreamResult r = read_stream(*s);
    EXPECT_EQ(r.tokens, 25);
    EXPECT_TRUE(r.done && r.valid && r.ended_cleanly);
  }
  const json loads = json::parse(http_request(twin.port, "GET", "/v1/loads").body);
  EXPECT_EQ(loads["loads"][0]["num_running_reqs"], 0);
  EXPECT_EQ(loads["loads"][0]["num_used_tokens"], 0);
  const std::string metrics = http_request(twin.port, "GET", "/metrics").body;
  EXPECT_NE(metrics.find("sglang:num_requests_total{"), std::string::npos);
  EXPECT_NE(metrics.find("} 64.0\n"), std::string::npos) << "64 requests counted";
}

TEST(TwinEndToEnd, CrashAfterNRequestsKillsTheServerLikeTheEngine) {
  TwinProcess twin(founding_options({"--speed", "inf", "--fault", "crash-after=2"}),
                   founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  EXPECT_EQ(http_request(twin.port, "POST", "/v1/completions", completion_body(3, false)).status,
            200);
  EXPECT_EQ(http_request(twin.port, "POST", "/v1/completions", completion_body(3, false)).status,
            200);
  ASSERT_TRUE(twin.wait_exit(std::chrono::seconds(5)));
  EXPECT_EQ(twin.status, 1);
  EXPECT_NE(twin.err().find("Scheduler hit an exception"), std::string::npos);
  EXPECT_EQ(http_request(twin.port, "GET", "/health").status, 0) << "nothing listens any more";
}

TEST(TwinEndToEnd, DropStreamCutsEachStreamAfterKTokens) {
  TwinProcess twin(founding_options({"--speed", "inf", "--fault", "drop-stream-after=5"}),
                   founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  HttpConnection c(twin.port);
  ASSERT_TRUE(c.send("POST", "/v1/completions", completion_body(50, true)));
  HttpReply head;
  ASSERT_TRUE(c.read_head(head));
  EXPECT_EQ(head.status, 200);
  const StreamResult r = read_stream(c);
  EXPECT_GE(r.tokens, 5);
  EXPECT_LT(r.tokens, 50);
  EXPECT_FALSE(r.done);
  EXPECT_FALSE(r.ended_cleanly);
  // A non-streaming request is cut before any response.
  EXPECT_EQ(http_request(twin.port, "POST", "/v1/completions", completion_body(50, false)).status,
            0);
  // The server stays up, and short requests still complete.
  EXPECT_EQ(http_request(twin.port, "POST", "/v1/completions", completion_body(3, false)).status,
            200);
  EXPECT_FALSE(twin.poll_exit());
}

TEST(TwinEndToEnd, ErrorRateAnswersTheSeededShareWith500s) {
  TwinProcess twin(founding_options({"--speed", "inf", "--fault", "error-rate=0.5", "--seed", "3"}),
                   founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  int ok = 0, errors = 0;
  for (int i = 0; i < 40; ++i) {
    const HttpReply r =
        http_request(twin.port, "POST", "/v1/completions", completion_body(2, false));
    if (r.status == 200)
      ++ok;
    if (r.status == 500) {
      ++errors;
      EXPECT_EQ(json::parse(r.body)["code"], 500);
    }
  }
  EXPECT_EQ(ok + errors, 40);
  EXPECT_GT(ok, 5);
  EXPECT_GT(errors, 5);
}

TEST(TwinEndToEnd, StallFreezesTheStreamOnceAfterItsFirstToken) {
  TwinProcess twin(founding_options({"--speed", "inf", "--fault", "stall=600"}),
                   founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  HttpConnection c(twin.port);
  ASSERT_TRUE(c.send("POST", "/v1/completions", completion_body(8, true)));
  HttpReply head;
  ASSERT_TRUE(c.read_head(head));
  std::vector<std::chrono::steady_clock::time_point> at;
  while (auto e = c.next_event())
    at.push_back(std::chrono::steady_clock::now());
  ASSERT_GE(at.size(), 3u);
  // The gap after the first event holds the stall (a lower bound: a stall cannot be shorter).
  EXPECT_GE(at[1] - at[0], std::chrono::milliseconds(550));
}

TEST(TwinEndToEnd, APlanThatDoesNotStartPrintsTheEngineErrorAndExitsNonZero) {
  TwinProcess twin({"--gpu", "rtx-pro-6000", "--gpus", "4", "--free-before-load", "40",
                    "--free-after-load", "2"},
                   {"python", "-m", "sglang.launch_server", "--model-path",
                    "Qwen/Qwen3.5-122B-A10B-FP8", "--tp", "4"});
  ASSERT_TRUE(twin.wait_exit(std::chrono::seconds(10)));
  EXPECT_EQ(twin.status, 1);
  const std::string err = twin.err();
  EXPECT_NE(err.find("Load weight end."), std::string::npos);
  EXPECT_NE(err.find("RuntimeError: Not enough GPU memory"), std::string::npos) << err;
  EXPECT_EQ(err.find("fired up and ready"), std::string::npos);
  EXPECT_EQ(twin.out().find("served at"), std::string::npos);
}

TEST(TwinEndToEnd, SigtermUnderLoadExitsWithinTwoSeconds) {
  TwinProcess twin(founding_options(), founding_command());
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  std::vector<std::unique_ptr<HttpConnection>> streams;
  for (int i = 0; i < 64; ++i) {
    streams.push_back(std::make_unique<HttpConnection>(twin.port, 10));
    ASSERT_TRUE(streams.back()->send("POST", "/v1/completions", completion_body(5000, true)));
  }
  HttpReply head;
  ASSERT_TRUE(streams.front()->read_head(head));
  ASSERT_TRUE(streams.front()->next_event()) << "the load is running";
  const auto sent = std::chrono::steady_clock::now();
  twin.signal(SIGTERM);
  ASSERT_TRUE(twin.wait_exit(std::chrono::seconds(2))) << "still running 2 s after SIGTERM";
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(2));
  EXPECT_EQ(twin.status, 0);
  // The streams end without [DONE].
  while (streams.front()->next_event()) {
  }
  EXPECT_FALSE(streams.front()->ended_cleanly);
}

}  // namespace
}  // namespace servescope::testing
