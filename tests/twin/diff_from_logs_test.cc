// `diff --a-log A --b-log B`: two runs known only by their startup logs. The logs are the
// twin's (the engine's line formats with the plan's values) for the founding server with and
// without MTP speculative decoding; the diff rebuilds each run as `check` does and must put
// max_running_requests 117 → 48 on the speculative flags, and clear nothing it cannot.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "diagnose/scenario_builder.h"
#include "engines/twin_profile.h"
#include "tests/twin/twin_process.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;
using testing::run_capture;

constexpr const char* kPlain =
    "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4";

// The startup log the twin prints for `command`, written to `path`.
void write_startup_log(const std::string& command, const fs::path& path) {
  ScenarioOptions o;
  o.engine = "sglang@0.5.16";  // the release the founding case was found on
  o.gpu = "rtx-pro-6000";
  o.gpus = 4;
  o.free_before_load_gib = 94.6;
  o.free_after_load_gib = 64.6;
  o.command = *split_command_line(command);
  auto built = build_scenario(o);
  ASSERT_TRUE(built) << built.message();
  auto plan = built->engine->plan(built->scenario);
  ASSERT_TRUE(plan) << plan.message();
  const TwinProfile* profile = built->engine->twin_profile();
  ASSERT_NE(profile, nullptr);
  const auto when = std::chrono::system_clock::time_point(std::chrono::seconds(1'790'000'000));
  std::ofstream out(path);
  for (const LogLine& l :
       profile->startup_log(built->scenario, *plan, StartupContext{{"127.0.0.1", 30000}, 10, 1}))
    out << (l.raw ? l.text : profile->format_log_line(when, l.tag, l.text)) << "\n";
}

class DiffFromLogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("servescope-difflogs-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    write_startup_log(kPlain, dir_ / "plain.log");
    write_startup_log(std::string(kPlain) + " --speculative-algorithm NEXTN", dir_ / "mtp.log");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(DiffFromLogsTest, TheSpeculativeFlagsExplainTheDrop) {
  int code = -1;
  const std::string out = run_capture(std::string(SERVESCOPE_BINARY) + " diff --json --a-log " +
                                          (dir_ / "plain.log").string() + " --b-log " +
                                          (dir_ / "mtp.log").string() + " 2>&1",
                                      &code);
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  bool found = false;
  for (const auto& c : j.at("changes")) {
    if (c.at("output") != "max_running_requests")
      continue;
    found = true;
    EXPECT_EQ(c.at("a"), 117);
    EXPECT_EQ(c.at("b"), 48);
    bool speculative = false;
    for (const auto& a : c.at("attribution"))
      for (const auto& input : a.at("inputs"))
        speculative =
            speculative || input.get<std::string>().find("speculative") != std::string::npos;
    EXPECT_TRUE(speculative) << c.dump();
  }
  EXPECT_TRUE(found) << out;
}

TEST_F(DiffFromLogsTest, ALogAndACommandForOneSideIsAUsageError) {
  int code = -1;
  const std::string out = run_capture(std::string(SERVESCOPE_BINARY) + " diff --a-log " +
                                          (dir_ / "plain.log").string() + " --a '" + kPlain +
                                          "' --b-log " + (dir_ / "mtp.log").string() + " 2>&1",
                                      &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("give --a or --a-log, not both"), std::string::npos) << out;
}

TEST_F(DiffFromLogsTest, AnUnreadableLogNamesItself) {
  int code = -1;
  const std::string out =
      run_capture(std::string(SERVESCOPE_BINARY) + " diff --a-log /nonexistent/a.log --b-log " +
                      (dir_ / "mtp.log").string() + " 2>&1",
                  &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("--a-log"), std::string::npos) << out;
  EXPECT_NE(out.find("/nonexistent/a.log"), std::string::npos) << out;
}

}  // namespace
}  // namespace servescope
