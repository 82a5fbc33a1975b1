// The founding case (issue 4): Qwen3.5-122B-A10B-FP8 on 4× RTX PRO 6000 (SM120) with MTP; the
// engineer enabled --enable-fused-moe-sum-all-reduce and --enable-flashinfer-allreduce-fusion
// and saw max_running_requests fall from 48 to 26.
#include <gtest/gtest.h>

#include <algorithm>

#include "diagnose/diff.h"
#include "diagnose/lint.h"
#include "diagnose/why.h"
#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

const char kBaseline[] =
    "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
    "--speculative-algorithm NEXTN";
const char kBothFlags[] =
    "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
    "--speculative-algorithm NEXTN "
    "--enable-fused-moe-sum-all-reduce --enable-flashinfer-allreduce-fusion";

BuiltScenario scenario(const std::string& command, const std::string& engine) {
  ScenarioOptions o;
  o.engine = engine;
  o.gpu = "rtx-pro-6000";
  o.gpus = 4;
  o.free_before_load_gib = 94.6;
  o.free_after_load_gib = 64.6;
  o.command = *split_command_line(command);
  auto b = build_scenario(o);
  EXPECT_TRUE(b) << b.message();
  return std::move(*b);
}

const OutputChange* change_of(const DiffResult& d, const std::string& output) {
  for (const OutputChange& c : d.attribution.changes) {
    if (c.output == output)
      return &c;
  }
  return nullptr;
}

bool cleared(const DiffResult& d, const std::string& flag, std::string* reason = nullptr) {
  for (const Cleared& c : d.attribution.cleared) {
    if (d.inputs[c.change].subject == flag) {
      if (reason != nullptr)
        *reason = c.reason;
      return true;
    }
  }
  return false;
}

class FoundingCase : public ::testing::TestWithParam<const char*> {};

TEST_P(FoundingCase, NeitherFlagMovesCapacityAndBothAreCleared) {
  BuiltScenario a = scenario(kBaseline, GetParam());
  BuiltScenario b = scenario(kBothFlags, GetParam());
  auto d = diff_scenarios(*a.engine, a.scenario, b.scenario);
  ASSERT_TRUE(d);
  EXPECT_EQ(change_of(*d, "max_total_num_tokens"), nullptr);
  EXPECT_EQ(change_of(*d, "max_running_requests"), nullptr);
  std::string fused_reason, fusion_reason;
  EXPECT_TRUE(cleared(*d, "--enable-fused-moe-sum-all-reduce", &fused_reason));
  EXPECT_TRUE(cleared(*d, "--enable-flashinfer-allreduce-fusion", &fusion_reason));
  EXPECT_NE(fused_reason.find("runtime"), std::string::npos) << fused_reason;
  EXPECT_NE(fusion_reason.find("after the KV and mamba pools are sized"), std::string::npos)
      << fusion_reason;
  EXPECT_EQ(output_text(d->a, "max_running_requests"), "48");
}

INSTANTIATE_TEST_SUITE_P(Versions, FoundingCase,
                         ::testing::Values("sglang@2026-07-20", "sglang@2026-05-01"));

TEST(FoundingCaseDiff, AtHeadTheFusionFlagDecidesStartupOnSm120) {
  BuiltScenario a = scenario(kBaseline, "sglang@2026-07-20");
  BuiltScenario b = scenario(kBothFlags, "sglang@2026-07-20");
  auto d = diff_scenarios(*a.engine, a.scenario, b.scenario);
  const OutputChange* starts = change_of(*d, "starts");
  ASSERT_NE(starts, nullptr);
  ASSERT_EQ(starts->attribution.size(), 1u);
  EXPECT_EQ(d->inputs[starts->attribution[0].changes[0]].subject,
            "--enable-flashinfer-allreduce-fusion");
  std::string reason;
  ASSERT_TRUE(cleared(*d, "--enable-flashinfer-allreduce-fusion", &reason));
  EXPECT_NE(reason.find("decides whether the server starts"), std::string::npos) << reason;
}

TEST(FoundingCaseLint, FusionIsUnsupportedOnSm120WithTheVersionsConsequence) {
  BuiltScenario head = scenario(kBothFlags, "sglang@2026-07-20");
  auto lint = lint_scenario(*head.engine, head.scenario);
  ASSERT_TRUE(lint);
  auto has = [&](const LintResult& r, const std::string& code, const std::string& text) {
    return std::any_of(r.findings.begin(), r.findings.end(), [&](const Finding& f) {
      return f.code == code && f.message.find(text) != std::string::npos;
    });
  };
  EXPECT_TRUE(has(*lint, "fusion-unsupported-gpu", "fails in warmup"));
  EXPECT_TRUE(has(*lint, "deprecated-flag", "--flashinfer-allreduce-fusion-backend auto"));
  EXPECT_TRUE(lint->has_error());
  BuiltScenario may = scenario(kBothFlags, "sglang@2026-05-01");
  auto lint_may = lint_scenario(*may.engine, may.scenario);
  EXPECT_TRUE(has(*lint_may, "fusion-unsupported-gpu", "warning"));
  EXPECT_FALSE(lint_may->has_error());
}

TEST(FoundingCaseWhy, TwentySixComesThroughTheMambaCap) {
  BuiltScenario a = scenario(kBaseline, "sglang@2026-07-20");
  Observation obs{"max_running_requests", 26, 48};
  auto why = explain_observation(*a.engine, a.scenario, obs);
  ASSERT_TRUE(why) << why.message();
  ASSERT_FALSE(why->hypotheses.empty());
  EXPECT_EQ(why->baseline, 48);
  const std::size_t top = std::min<std::size_t>(5, why->hypotheses.size());
  bool mamba_path = false, memory = false, version = false;
  for (std::size_t i = 0; i < top; ++i) {
    const Hypothesis& h = why->hypotheses[i];
    EXPECT_TRUE(h.exact);
    mamba_path = mamba_path || std::find(h.path.begin(), h.path.end(), "R5.6") != h.path.end();
    for (const ScenarioChange& c : h.changes) {
      memory = memory || c.kind == ScenarioChange::Kind::kFreeAfterLoad ||
               c.kind == ScenarioChange::Kind::kFreeBeforeLoad;
      version = version || c.kind == ScenarioChange::Kind::kVersion;
    }
  }
  EXPECT_TRUE(mamba_path) << "a top-5 hypothesis acts through the mamba-state cap";
  EXPECT_TRUE(memory || version) << "a top-5 hypothesis is lost free memory or another version";
  EXPECT_FALSE(why->experiments.empty());
}

TEST(WhyBadInput, UnknownOutputListsTheValidOnes) {
  BuiltScenario a = scenario(kBaseline, "");
  auto why = explain_observation(*a.engine, a.scenario, Observation{"max_frobs", 1, std::nullopt});
  ASSERT_FALSE(why);
  EXPECT_NE(why.message().find("max_running_requests"), std::string::npos);
}

TEST(WhyBadInput, AnUnreachableObservationShowsTheClosestNeverInvents) {
  BuiltScenario a = scenario(kBaseline, "");
  auto why = explain_observation(*a.engine, a.scenario,
                                 Observation{"max_running_requests", 123456789, std::nullopt});
  ASSERT_TRUE(why);
  EXPECT_TRUE(why->hypotheses.empty());
  EXPECT_FALSE(why->closest.empty());
  for (const Hypothesis& h : why->closest)
    EXPECT_FALSE(h.exact);
}

}  // namespace
}  // namespace servescope::testing
