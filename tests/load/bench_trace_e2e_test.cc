// `bench --trace` against a vLLM twin, end to end: each row goes at its own time (scaled by
// --trace-speed) with its own lengths, rows naming the same block share those prompt tokens —
// the twin's prefix cache finds them — and a second speed replays the trace with other tokens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/twin/twin_process.h"

namespace servescope::testing {
namespace {

using nlohmann::json;

std::string temp(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("servescope-trace-" + std::to_string(::getpid()) + "-" + name);
}

TEST(BenchTrace, RowsGoAtTheirTimesWithTheirLengthsAndShareTheirBlocks) {
  // 20 rows 50 ms apart; each names block 1 (512 tokens) then a block of its own; outputs
  // alternate 16 and 32 tokens.
  const std::string trace = temp("trace.jsonl"), out = temp("out.json");
  {
    std::ofstream f(trace);
    for (int i = 0; i < 20; ++i)
      f << json{{"timestamp", i * 50},
                {"input_length", 600},
                {"output_length", i % 2 == 0 ? 16 : 32},
                {"hash_ids", {1, 100 + i}}}
               .dump()
        << "\n";
  }
  TwinProcess twin({"--gpu", "h100-sxm", "--speed", "20"},
                   {"vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192"});
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  int status = -1;
  const std::string text = run_capture(
      std::string(SERVESCOPE_BINARY) +
          " bench --url http://127.0.0.1:" + std::to_string(twin.port) + " --trace " + trace +
          " --trace-speed 1,2 --scrape-interval 20ms --quiet "
          "--json " +
          out + " 2>&1",
      &status);
  EXPECT_EQ(status, 0) << text;
  const json j = json::parse(read_text(out), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << text;
  ASSERT_EQ(j["points"].size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const json& p = j["points"][k];
    SCOPED_TRACE(k);
    EXPECT_EQ(p["requests_completed"].get<int>(), 20);
    EXPECT_DOUBLE_EQ(p["rate"].get<double>(), 19.0 / 0.95 * static_cast<double>(k + 1));
    EXPECT_EQ(p["output_tokens"]["reported"]["mean"].get<double>(), 24.0) << p["output_tokens"];
    EXPECT_EQ(p["output_tokens"]["reported"]["max"].get<double>(), 32.0) << p["output_tokens"];
    // Every row after the first finds block 1: 19 × 512 of 20 × 600 tokens. The second speed
    // replays with other tokens, so it finds nothing of the first.
    const json& cache = p["server"]["prefix_cache"];
    EXPECT_EQ(cache["queried_tokens"].get<double>(), 20.0 * 600);
    EXPECT_NEAR(cache["hit_rate"].get<double>(), 19.0 * 512 / (20 * 600), 1e-9) << cache;
  }
  EXPECT_EQ(j["points"][1]["arrival"].get<std::string>(), "trace ×2");
  // The replay kept the trace's pace: 0.95 s of sends at speed 1, half that at speed 2.
  EXPECT_GT(j["points"][0]["duration_s"].get<double>(), 0.95);
  EXPECT_LT(j["points"][1]["duration_s"].get<double>(), j["points"][0]["duration_s"].get<double>());
  for (const std::string& f : {trace, out})
    std::filesystem::remove(f);
}

TEST(BenchTrace, OptionsThatTheTraceReplacesAreBadInput) {
  const std::string trace = temp("one.jsonl");
  { std::ofstream(trace) << "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 2}\n"; }
  for (const char* extra : {"--rate 4", "--input-len 64", "--multi-turn 2"}) {
    int status = -1;
    const std::string text =
        run_capture(std::string(SERVESCOPE_BINARY) + " bench --url http://127.0.0.1:1 --trace " +
                        trace + " " + std::string(extra) + " 2>&1",
                    &status);
    EXPECT_EQ(status, 2) << text;
    EXPECT_NE(text.find("does not go with --trace"), std::string::npos) << text;
  }
  int status = -1;
  const std::string missing = run_capture(
      std::string(SERVESCOPE_BINARY) + " bench --url http://127.0.0.1:1 --trace /nonexistent 2>&1",
      &status);
  EXPECT_EQ(status, 2);
  EXPECT_NE(missing.find("--trace /nonexistent: cannot open the file"), std::string::npos)
      << missing;
  std::filesystem::remove(trace);
}

}  // namespace
}  // namespace servescope::testing
