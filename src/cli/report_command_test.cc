// servescope report and the --html / --markdown options, through the built binary.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs servescope with `args` (shell words), stdout to `out` (or /dev/null); the exit status.
int servescope(const std::string& args, const std::string& out = "/dev/null") {
  const std::string cmd = std::string(SERVESCOPE_BINARY) + " " + args + " >" + out + " 2>/dev/null";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class ReportCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("servescope-report-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(ReportCommand, PlanHtmlAndMarkdownAreTheRenderingOfItsJson) {
  const std::string launch = "--gpu h100-sxm -- vllm serve Qwen/Qwen3-8B --max-model-len 8192";
  ASSERT_EQ(servescope("plan --json " + launch, path("plan.json")), 0);
  ASSERT_EQ(servescope("plan --html " + path("plan.html") + " --markdown " + path("plan.md") + " " +
                       launch),
            0);
  // The same document rendered later by `report` gives the same files.
  ASSERT_EQ(servescope("report " + path("plan.json") + " -o " + path("later.html")), 0);
  ASSERT_EQ(servescope("report " + path("plan.json") + " -o " + path("later.md")), 0);
  EXPECT_EQ(slurp(path("plan.html")), slurp(path("later.html")));
  EXPECT_EQ(slurp(path("plan.md")), slurp(path("later.md")));
  const std::string md = slurp(path("plan.md"));
  EXPECT_NE(md.find("- command: `vllm serve Qwen/Qwen3-8B --max-model-len 8192`"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `max_model_len` | 8,192 |"), std::string::npos) << md;
  EXPECT_EQ(slurp(path("plan.html")).rfind("<!DOCTYPE html>", 0), 0u);
}

TEST_F(ReportCommand, CheckAndDiffWriteReports) {
  const std::string src = SERVESCOPE_SOURCE_DIR;
  ASSERT_EQ(servescope("check " + src +
                       "/tests/real/logs/kv1-len2048-bsdefault-seqs16-bf16hd80.log" + " --model " +
                       src + "/tests/real/models/llama-bf16-hd80 --markdown " + path("check.md")),
            0);
  EXPECT_NE(slurp(path("check.md")).find("## Predicted vs logged"), std::string::npos);
  ASSERT_EQ(servescope("diff --gpu h100-sxm --a 'vllm serve Qwen/Qwen3-8B' --b 'vllm serve "
                       "Qwen/Qwen3-8B --max-model-len 8192' --html " +
                       path("diff.html")),
            0);
  EXPECT_NE(slurp(path("diff.html")).find("<svg class=\"waterfall\""), std::string::npos);
}

TEST_F(ReportCommand, SaysWhatItCannotRender) {
  std::ofstream(path("other.json")) << "{\"hello\": 1}";
  std::ofstream(path("broken.json")) << "{";
  const std::string bench = std::string(SERVESCOPE_SOURCE_DIR) + "/tests/report/bench.json";
  EXPECT_EQ(servescope("report " + path("other.json") + " -o " + path("x.md")), 2);
  EXPECT_EQ(servescope("report " + path("broken.json") + " -o " + path("x.md")), 2);
  EXPECT_EQ(servescope("report " + bench + " -o " + path("x.txt")), 2);
  EXPECT_EQ(servescope("report " + bench), 2);
  EXPECT_FALSE(std::filesystem::exists(path("x.md")));
  EXPECT_EQ(servescope("report " + bench + " -o " + path("x.txt") + " --format markdown"), 0);
  EXPECT_NE(slurp(path("x.txt")).find("# servescope bench"), std::string::npos);
}

}  // namespace
