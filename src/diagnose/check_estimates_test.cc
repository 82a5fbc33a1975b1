// A figure check cannot compare exactly because the plan rests on an estimate is still predicted,
// over the interval each estimate's own evidence spans, and counted apart from the figures
// checked (issue 30 item 6). The log is SGLang's quick-start capacity line alone (real format,
// the corpus' sglang-docs_sglang_ai-quickstart-send_request.log), without the memory lines.
#include "diagnose/check_estimates.h"

#include <gtest/gtest.h>

#include "report/check_report.h"
#include "report/check_table.h"
#include "tests/check_fixture.h"

namespace servescope {
namespace {

std::string capacity_line(long tokens) {
  return "[2025-01-23 19:35:27 TP0] max_total_num_tokens=" + std::to_string(tokens) +
         ", max_prefill_tokens=16384, max_running_requests=2049, context_len=131072\n";
}

using testing::check_text;
using testing::comparison_of;

CheckResult checked(const std::string& log, std::vector<std::string> extra_flags = {}) {
  CheckOptions o;
  o.gpu = "h100-sxm";
  o.command = {"python", "-m", "sglang.launch_server", "--model-path",
               "meta-llama/Meta-Llama-3.1-8B-Instruct"};
  o.command.insert(o.command.end(), extra_flags.begin(), extra_flags.end());
  return check_text(log, o);
}

const Comparison& field(const CheckResult& r, const std::string& name) {
  const Comparison* c = comparison_of(r, name);
  if (c == nullptr) {
    ADD_FAILURE() << "no comparison of " << name;
    static const Comparison none;
    return none;
  }
  return *c;
}

TEST(CheckEstimates, APinnedEstimateIsTheValueThePlanGoesOnWith) {
  Derivation g;
  EXPECT_EQ(g.estimate({"p", 10.0, "GiB"}, 9.0, 11.0), 10.0);
  ASSERT_TRUE(g.find("p")->range);
  EXPECT_EQ(g.find("p")->range->first, 9.0);
  EXPECT_EQ(g.find("p")->origin, Origin::kEstimate);
  g.pin_estimates({{"p", 9.0}});
  EXPECT_EQ(g.estimate({"p", 10.0, "GiB"}, 9.0, 11.0), 9.0);
  EXPECT_EQ(g.value("p").as_number(), 9.0);
}

// The quick-start's pool (444,500 tokens: P was 78.81 GiB, 0.84 below the H100's total) lies
// inside the interval that P's and the weights' estimates span, and is not counted as checked.
TEST(CheckEstimates, AFigureRestingOnEstimatesIsPredictedOverTheirIntervals) {
  const CheckResult r = checked(capacity_line(444500));
  const Comparison& c = field(r, "max_total_num_tokens");
  EXPECT_FALSE(c.checked);
  ASSERT_TRUE(c.estimated);
  ASSERT_TRUE(c.estimated->low && c.estimated->high) << c.estimated->note;
  EXPECT_LT(*c.estimated->low, 444500);
  EXPECT_GT(*c.estimated->high, 444500);
  // Narrow enough to mean something: P's 0.40 GiB and the weights' ±1% move it < 2%.
  EXPECT_LT(*c.estimated->high - *c.estimated->low, 0.02 * 444500);
  EXPECT_TRUE(c.estimated->within);
  EXPECT_EQ(c.estimated->estimates,
            (std::vector<std::string>{"free_before_load_gib", "weights_gib"}));
  EXPECT_EQ(r.matched(), 1u);  // context_len alone: the predicted ones are not checked
  EXPECT_EQ(r.predicted(), 2u);
  EXPECT_EQ(r.predicted_outside(), 0u);
  const std::string text = render_check_text("thin.log", r);
  EXPECT_NE(text.find("~  max_total_num_tokens  444,500"), std::string::npos) << text;
  EXPECT_NE(text.find("(2 predicted over estimates' intervals: 2 inside, 0 outside)"),
            std::string::npos)
      << text;
  const nlohmann::json j = check_to_json("thin.log", r);
  EXPECT_EQ(j["predicted"], 2);
  EXPECT_EQ(j["comparisons"][0]["estimated"]["within"], true);
  EXPECT_EQ(j["comparisons"][0]["match"], nullptr);
}

// A pool far below anything the estimates allow is said to lie outside, counted as such — and
// is still not a mismatch: nothing the log states was compared.
TEST(CheckEstimates, OutsideTheIntervalIsReportedNotFailed) {
  const CheckResult r = checked(capacity_line(300000));
  const Comparison& c = field(r, "max_total_num_tokens");
  ASSERT_TRUE(c.estimated && c.estimated->low);
  EXPECT_FALSE(c.estimated->within);
  EXPECT_EQ(r.predicted_outside(), 1u);
  EXPECT_EQ(r.mismatched(), 0u);
  EXPECT_NE(render_check_text("thin.log", r).find("!  max_total_num_tokens  300,000"),
            std::string::npos);
  std::vector<CheckRow> rows(1);
  rows[0].file = "thin.log";
  rows[0].stated = 3;
  rows[0].result = r;
  EXPECT_EQ(check_totals(rows).predicted_outside, 1u);
  EXPECT_NE(render_check_table(rows).find("predicted over estimates' intervals: 2 figures, 1 "
                                          "inside, 1 outside"),
            std::string::npos)
      << render_check_table(rows);
}

// An estimate whose evidence states no interval (a speculative run's draft weights) leaves the
// figure without one, and says which.
TEST(CheckEstimates, AnEstimateWithoutAnIntervalIsNamed) {
  const CheckResult r = checked(
      capacity_line(444500), {"--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path",
                              "meta-llama/Meta-Llama-3.1-8B-Instruct"});
  const Comparison& c = field(r, "max_total_num_tokens");
  ASSERT_TRUE(c.estimated);
  EXPECT_FALSE(c.estimated->low);
  EXPECT_NE(c.estimated->note.find("draft_weights_gib states no interval"), std::string::npos)
      << c.estimated->note;
  EXPECT_EQ(r.predicted(), 0u);
}

}  // namespace
}  // namespace servescope
