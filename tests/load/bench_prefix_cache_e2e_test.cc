// `bench --shared-prefix` against a vLLM twin, end to end: the prompts share system prompts,
// the twin's prefix cache skips their prefill, and the report carries the server's own
// prefix-cache counters over the point; multi-turn conversations find their history cached.
// The twins answer instantly: the server's counters are read once before the point's first
// send (ServerWatcher::baseline), so no request of the point is missed.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/twin/twin_process.h"

namespace servescope::testing {
namespace {

using nlohmann::json;

json bench_json(int port, const std::string& options, int* exit_code) {
  const std::string out = std::filesystem::temp_directory_path() /
                          ("servescope-prefix-bench-" + std::to_string(::getpid()) + ".json");
  run_capture(std::string(SERVESCOPE_BINARY) + " bench --url http://127.0.0.1:" +
                  std::to_string(port) + " --json " + out + " " + options + " 2>&1",
              exit_code);
  json j = json::parse(read_text(out), nullptr, false);
  std::filesystem::remove(out);
  return j;
}

TEST(BenchPrefixCache, SharedSystemPromptsAreCachedByTheServerAndSaid) {
  TwinProcess twin({"--gpu", "h100-sxm", "--speed", "inf"},
                   {"vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192"});
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  int status = -1;
  // 64 prompts of 1024 shared + 128 own tokens, two system prompts in turn: every prompt but
  // the first of each system prompt finds its 1024 tokens cached (16 blocks of 64).
  const json shared = bench_json(twin.port,
                                 "--concurrency 8 --requests 64 --input-len 128 --output-len 8 "
                                 "--shared-prefix 2:1024 --scrape-interval 20ms",
                                 &status);
  ASSERT_FALSE(shared.is_discarded());
  EXPECT_EQ(status, 0);
  const json& cache = shared["points"][0]["server"]["prefix_cache"];
  EXPECT_EQ(cache["queried_tokens"].get<double>(), 64.0 * 1152);
  EXPECT_NEAR(cache["hit_rate"].get<double>(), 62.0 * 1024 / (64.0 * 1152), 1e-9);
  // The same lengths without shared system prompts: nothing to reuse.
  const json random = bench_json(twin.port,
                                 "--concurrency 8 --requests 64 --input-len 1152 --output-len 8 "
                                 "--seed 9 --scrape-interval 20ms",
                                 &status);
  ASSERT_FALSE(random.is_discarded());
  EXPECT_EQ(random["points"][0]["server"]["prefix_cache"]["hit_rate"].get<double>(), 0.0);
}

TEST(BenchPrefixCache, WithoutPrefixCachingNothingIsReused) {
  TwinProcess twin(
      {"--gpu", "h100-sxm", "--speed", "inf"},
      {"vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192", "--no-enable-prefix-caching"});
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  int status = -1;
  const json j = bench_json(twin.port,
                            "--concurrency 4 --requests 16 --input-len 64 --output-len 4 "
                            "--shared-prefix 1:512 --scrape-interval 20ms",
                            &status);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(j["points"][0]["server"]["prefix_cache"]["hit_rate"].is_null())
      << j["points"][0]["server"]["prefix_cache"];
}

TEST(BenchPrefixCache, MultiTurnConversationsFindTheirHistoryCached) {
  TwinProcess twin({"--gpu", "h100-sxm", "--speed", "inf"},
                   {"vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192"});
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  int status = -1;
  // Conversations of 3 turns, 128 own tokens a turn and answers of 64: turns ask for 128, 320
  // and 512 tokens; turn 2 finds turn 1's 128 cached, turn 3 turn 2's 320 (whole blocks both).
  // The stand-in answers are not what the engine generated, so they are not hits. Which turns
  // the 24 requests are depends on how the four users' conversations interleave; each
  // request's length says its turn.
  const json j = bench_json(twin.port,
                            "--concurrency 4 --requests 24 --input-len 128 --output-len 64 "
                            "--multi-turn 3 --details",
                            &status);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(status, 0);
  const json& point = j["points"][0];
  ASSERT_EQ(point["requests_completed"].get<int>(), 24);
  double queried = 0, hits = 0;
  int later_turns = 0;
  for (const json& r : point["requests"]) {
    const double length = r["prompt_tokens_reported"].get<double>();
    ASSERT_TRUE(length == 128 || length == 320 || length == 512) << r;
    queried += length;
    hits += length == 320 ? 128 : length == 512 ? 320 : 0;
    later_turns += length > 128;
  }
  EXPECT_GE(later_turns, 12);  // most requests go on a conversation
  const json& cache = point["server"]["prefix_cache"];
  EXPECT_EQ(cache["queried_tokens"].get<double>(), queried);
  EXPECT_NEAR(cache["hit_rate"].get<double>(), hits / queried, 1e-9) << cache;
  const std::string dataset = j["workload"]["dataset"].get<std::string>();
  EXPECT_NE(dataset.find("conversations of 3 turns"), std::string::npos) << dataset;
}

}  // namespace
}  // namespace servescope::testing
