// `servescope simulate` as a user runs it: the JSON fields, the text report, a lengths file,
// and one-line usage errors with exit status 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "catalog/gpu_catalog.h"
#include "tests/twin/twin_process.h"
#include "twin/cost_defaults.h"

namespace servescope::testing {
namespace {

using nlohmann::json;

// The founding case on the release it was found on (0.5.16), whose figures the tests hold.
const std::string kScenario =
    " --engine sglang@0.5.16 --gpu rtx-pro-6000 --gpus 4 --free-before-load 94.6 "
    "--free-after-load 64.6";
const std::string kCommand =
    " -- python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
    "--speculative-algorithm NEXTN";

std::string simulate(const std::string& options, int* code) {
  return run_capture(
      std::string(SERVESCOPE_BINARY) + " simulate" + kScenario + " " + options + kCommand + " 2>&1",
      code);
}

TEST(SimulateCommand, JsonGivesOnePointPerSweepValueWithTheLimitsAndFactors) {
  int code = -1;
  // No request cost, so the queue is exactly the clients beyond the running limit.
  const std::string out = simulate(
      "--concurrency 64,128 --requests 400 --input-len 128 --output-len 100 --json "
      "--efficiency request_overhead_us=0",
      &code);
  ASSERT_EQ(code, 0) << out;
  const json j = json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out.substr(0, 300);
  EXPECT_EQ(j["model"], "roofline");
  EXPECT_EQ(j["limits"]["max_running_requests"], 48);
  EXPECT_EQ(j["limits"]["max_total_num_tokens"], 2079216);
  // The factors start from the defaults fitted for SGLang on Blackwell GPUs, and say so.
  const GpuSpec& gpu = *GpuCatalog::builtin().find("rtx-pro-6000")->spec;
  const CostDefaults defaults = cost_defaults("sglang", gpu);
  ASSERT_TRUE(defaults.fitted);
  EXPECT_DOUBLE_EQ(j["efficiency"]["bandwidth"].get<double>(), defaults.efficiency.bandwidth);
  EXPECT_DOUBLE_EQ(j["efficiency"]["layer_overhead_us"].get<double>(),
                   defaults.efficiency.layer_overhead_us);
  EXPECT_EQ(j["efficiency"]["request_overhead_us"], 0);
  EXPECT_NE(j["factors_basis"].get<std::string>().find("fitted on"), std::string::npos);
  EXPECT_NE(j["factors_basis"].get<std::string>().find("factors typed: request_overhead_us=0"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(j["efficiency"]["accept_length"].get<double>(), 2.8);
  ASSERT_EQ(j["points"].size(), 2u);
  EXPECT_EQ(j["points"][0]["concurrency"], 64);
  EXPECT_EQ(j["points"][1]["concurrency"], 128);
  for (const json& p : j["points"]) {
    EXPECT_EQ(p["requests_completed"], 400);
    EXPECT_EQ(p["running"]["max"], 48);
    for (const char* k : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "queue_ms"})
      for (const char* q : {"p50", "p90", "p99"})
        EXPECT_TRUE(p[k][q].is_number()) << k << "." << q;
    EXPECT_GT(p["output_tokens_per_s"].get<double>(), 0);
    EXPECT_FALSE(p["timeline"].empty());
    // The step time by term adds up to the run's busy time (each step ends when its terms do).
    double busy = 0;
    for (const auto& [term, seconds] : p["step_time_s"].items())
      busy += seconds.get<double>();
    EXPECT_GT(busy, 0.9 * p["duration_s"].get<double>());
    EXPECT_LE(busy, p["duration_s"].get<double>() * (1 + 1e-9));
  }
  EXPECT_EQ(j["points"][0]["queued"]["max"], 16);
  EXPECT_EQ(j["points"][1]["queued"]["max"], 80);
}

TEST(SimulateCommand, TextSaysItIsAModelAndPrintsItsFactors) {
  int code = -1;
  const std::string out =
      simulate("--rate 2,4 --arrival gamma:0.5 --requests 200 --efficiency bandwidth=0.6", &code);
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("model: a roofline"), std::string::npos);
  EXPECT_NE(out.find("efficiency  bandwidth=0.6 compute="), std::string::npos) << out;
  EXPECT_NE(out.find("factors     factors fitted on"), std::string::npos) << out;
  EXPECT_NE(out.find("factors typed: bandwidth=0.6"), std::string::npos) << out;
  EXPECT_NE(out.find("where the step time went"), std::string::npos) << out;
  EXPECT_NE(out.find("ms per request before the scheduler sees it"), std::string::npos) << out;
  EXPECT_NE(out.find("open loop, gamma:0.5 arrivals"), std::string::npos);
  EXPECT_NE(out.find("\n  2/s "), std::string::npos);
  EXPECT_NE(out.find("\n  4/s "), std::string::npos);
}

TEST(SimulateCommand, ReadsLengthsFromAJsonlFile) {
  const auto path = std::filesystem::temp_directory_path() / "servescope-lengths-test.jsonl";
  {
    std::ofstream f(path);
    f << "{\"input\": 100, \"output\": 10}\n[200, 20]\n\n{\"input_len\": 300, \"output_len\": "
         "30}\n";
  }
  int code = -1;
  const std::string out =
      simulate("--concurrency 1 --requests 3 --json --input-len " + path.string(), &code);
  std::filesystem::remove(path);
  ASSERT_EQ(code, 0) << out;
  const json j = json::parse(out);
  EXPECT_NE(j["workload"]["input_len"].get<std::string>().find("(3 rows)"), std::string::npos);
  // 10 + 20 + 30 output tokens in all.
  const json& p = j["points"][0];
  EXPECT_NEAR(p["output_tokens_per_s"].get<double>() * p["duration_s"].get<double>(), 60, 1e-6);
}

TEST(SimulateCommand, BadUsageIsOneLineAndExitStatus2) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--concurrency 8 --rate 2 --requests 10", "exactly one of --concurrency and --rate"},
      {"--requests 10", "exactly one of --concurrency and --rate"},
      {"--concurrency 8 --requests 0", "--requests"},
      {"--concurrency 8,x --requests 10", "--concurrency"},
      {"--rate 2 --arrival weibull --requests 10", "--arrival"},
      {"--concurrency 8 --requests 10 --input-len triangle:1:2", "--input-len"},
      {"--concurrency 8 --requests 10 --output-len uniform:5:1", "--output-len"},
      {"--concurrency 8 --requests 10 --efficiency warp=9", "--efficiency"},
      {"--concurrency 8 --requests 10 --efficiency bandwidth=1.5", "--efficiency"},
  };
  for (const auto& [options, needle] : cases) {
    int code = -1;
    const std::string out = simulate(options, &code);
    EXPECT_EQ(code, 2) << options << ": " << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << options << ": " << out;
    EXPECT_NE(out.find("servescope: error: "), std::string::npos) << out;
    EXPECT_NE(out.find(needle), std::string::npos) << options << ": " << out;
  }
}

}  // namespace
}  // namespace servescope::testing
