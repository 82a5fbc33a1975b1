// check says what would make each unchecked figure checkable, and totals it: one line per figure
// naming the missing input and the option that supplies it, and per option how many figures it
// could check (text, JSON, and over many logs).
#include <gtest/gtest.h>

#include "report/check_report.h"
#include "report/check_table.h"
#include "tests/check_fixture.h"

namespace servescope {
namespace {

// SGLang's final capacity line alone (real format), without the memory lines it rests on.
constexpr char kThinLog[] =
    "[2025-01-23 19:35:27 TP0] max_total_num_tokens=444500, max_prefill_tokens=16384, "
    "max_running_requests=2049, context_len=131072\n";

CheckResult checked(const std::string& gpu) {
  CheckOptions o;
  o.gpu = gpu;
  o.command = {"python", "-m", "sglang.launch_server", "--model-path",
               "meta-llama/Meta-Llama-3.1-8B-Instruct"};
  return testing::check_text(kThinLog, o);
}

const Comparison* find(const CheckResult& r, const std::string& field) {
  return testing::comparison_of(r, field);
}

TEST(CheckNeeds, AFigureOnAnUnnamedGpuNeedsTheGpu) {
  const CheckResult r = checked("");
  const Comparison* c = find(r, "max_total_num_tokens");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->checked);
  EXPECT_EQ(c->needs.rfind("--gpu NAME", 0), 0u) << c->needs;
  const std::string text = render_check_text("thin.log", r);
  EXPECT_NE(text.find("to check it: --gpu NAME"), std::string::npos) << text;
  EXPECT_NE(text.find("To check more:\n  --gpu NAME  could check up to 1 more figure"),
            std::string::npos)
      << text;
  const nlohmann::json j = check_to_json("thin.log", r);
  EXPECT_EQ(j["would_check"][0]["option"], "--gpu NAME");
  EXPECT_EQ(j["would_check"][0]["figures"], 1);
}

TEST(CheckNeeds, WithTheGpuTheMissingMemoryLinesAreNamedAndNoOptionIsOffered) {
  const CheckResult r = checked("h100-sxm");
  const Comparison* c = find(r, "max_total_num_tokens");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->checked);
  EXPECT_NE(c->needs.find("the log's memory lines (free_before_load_gib)"), std::string::npos)
      << c->needs;
  const Comparison* ctx = find(r, "context_len");
  ASSERT_NE(ctx, nullptr);
  EXPECT_TRUE(ctx->checked && ctx->match);
  EXPECT_TRUE(ctx->needs.empty());
}

TEST(CheckNeeds, ManyLogsTotalTheOptionsWithTheLogsRefusedForWantOfThem) {
  std::vector<CheckRow> rows(2);
  rows[0].file = "thin.log";
  rows[0].stated = 3;
  rows[0].result = checked("");
  rows[1].file = "bare.log";
  rows[1].stated = 4;
  rows[1].error =
      "the log cannot be checked: it lacks the server_args dump or the launch command; give the "
      "run's launch command (-- CMD, or --from FILE, or a file with the log's stem beside it) or "
      "at least --model ID";
  const auto needs = what_would_check(rows);
  ASSERT_EQ(needs.size(), 2u);
  EXPECT_EQ(needs[0].first, "-- CMD or --from FILE (or a command file beside the log)");
  EXPECT_EQ(needs[0].second, 4u);
  EXPECT_EQ(needs[1].first, "--gpu NAME");
  EXPECT_NE(render_check_table(rows).find("To check more:"), std::string::npos);
}

}  // namespace
}  // namespace servescope
