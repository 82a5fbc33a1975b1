// A new engine release is data alone (issue 34, item 5): a copy of data/ with a synthetic vLLM
// 0.35.0 — its PyPI row, its branch cut, its flag table and the capacity change release day left
// for a person (what `make engine-release` writes) — read through SERVESCOPE_DATA_DIR, with no
// code edited and nothing rebuilt. servescope then knows the release, plans it with its own flag
// table and warns with its listed change; without the copy it is an unknown, newer release.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace servescope {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int status = -1;
  std::string output;  // stdout and stderr
};

Outcome servescope(const std::string& env, const std::string& args) {
  Outcome r;
  const std::string cmd = env + " " + SERVESCOPE_BINARY + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr)
    return r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p) != nullptr)
    r.output += buf;
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void append(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::app) << text;
}

class SyntheticRelease : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ =
        fs::temp_directory_path() / ("servescope-synthetic-release-" + std::to_string(getpid()));
    fs::remove_all(data_);
    fs::copy(fs::path(SERVESCOPE_SOURCE_DIR) / "data", data_, fs::copy_options::recursive);
    const fs::path v = data_ / "vllm";
    append(v / "pypi-releases.csv", "0.35.0,2026-11-30,2026-11-30T12:00:00Z,final,3,no\n");
    append(v / "releases.csv", "0.35.0,2026-11-24,\"synthetic release of a test\"\n");
    // Its flag table: 0.34.0's, and one flag 0.34.0 lacks.
    fs::copy_file(v / "flags-0.34.0.tsv", v / "flags-0.35.0.tsv");
    append(v / "flags-0.35.0.tsv",
           "--synthetic-release-flag\t\tsynthetic_release_flag\t0\tbool\tFalse\t\n");
    append(v / "unmodelled-changes.csv",
           "0.35.0,a synthetic capacity change no change point covers yet,make engine-release\n");
  }
  void TearDown() override { fs::remove_all(data_); }
  std::string with_data() const { return "SERVESCOPE_DATA_DIR=" + data_.string(); }
  fs::path data_;
};

constexpr char kPlan[] =
    "plan --engine vllm@0.35.0 --gpu h100-sxm -- vllm serve Qwen/Qwen3-8B --max-model-len 8192 "
    "--synthetic-release-flag";

TEST_F(SyntheticRelease, IsKnownFromItsDataAlone) {
  const Outcome known = servescope(with_data(), kPlan);
  EXPECT_EQ(known.status, 0) << known.output;
  EXPECT_NE(known.output.find("vllm 0.35.0"), std::string::npos) << known.output;
  // Known by its cut, after the rules' reach: its figures follow them, its flags its own table.
  EXPECT_NE(known.output.find("was cut after the newest modelled rules"), std::string::npos)
      << known.output;
  EXPECT_NE(known.output.find("flags are judged by 0.35.0's own parser"), std::string::npos)
      << known.output;
  // Its own flag table: the new flag is a `vllm serve` flag of 0.35.0.
  EXPECT_EQ(known.output.find("unknown-flag"), std::string::npos) << known.output;
  // The change release day left for a person is said on every plan of it.
  EXPECT_NE(known.output.find("a synthetic capacity change no change point covers yet"),
            std::string::npos)
      << known.output;
}

TEST_F(SyntheticRelease, WithoutTheDataItIsAnUnknownNewerRelease) {
  const Outcome unknown = servescope("", kPlan);
  EXPECT_NE(unknown.output.find("is newer than every release servescope knows"), std::string::npos)
      << unknown.output;
  EXPECT_NE(unknown.output.find("--synthetic-release-flag"), std::string::npos) << unknown.output;
}

TEST(DataDir, AFolderThatIsNotThereIsBadInput) {
  const Outcome bad = servescope("SERVESCOPE_DATA_DIR=/nonexistent/servescope-data", "gpus");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.output.find("SERVESCOPE_DATA_DIR=/nonexistent/servescope-data is not a folder"),
            std::string::npos)
      << bad.output;
}

TEST_F(SyntheticRelease, ATableThatDoesNotParseIsBadInputNamingTheFolder) {
  std::ofstream(data_ / "vllm" / "releases.csv") << "release,main_date,evidence\n\"unclosed\n";
  const Outcome bad = servescope(with_data(), kPlan);
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_NE(bad.output.find("read from SERVESCOPE_DATA_DIR="), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace servescope
