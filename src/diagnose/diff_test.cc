// `diff` on synthetic cases with known ground truth.
#include "diagnose/diff.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

const char kQwen35[] =
    "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4";

// The founding case on the release it was found on (0.5.16), whose figures these tests hold.
BuiltScenario build(const std::string& command, const std::string& engine = "sglang@0.5.16",
                    const std::string& gpu = "rtx-pro-6000", bool calibrated = true) {
  ScenarioOptions o;
  o.engine = engine;
  o.gpu = gpu;
  if (calibrated) {
    o.free_before_load_gib = 94.6;
    o.free_after_load_gib = 64.6;
  }
  o.command = *split_command_line(command);
  auto b = build_scenario(o);
  EXPECT_TRUE(b) << b.message();
  return std::move(*b);
}

DiffResult diff(const BuiltScenario& a, const BuiltScenario& b) {
  auto d = diff_scenarios(*a.engine, a.scenario, b.scenario);
  EXPECT_TRUE(d) << d.message();
  return std::move(*d);
}

const OutputChange* change_of(const DiffResult& d, const std::string& output) {
  for (const OutputChange& c : d.attribution.changes) {
    if (c.output == output)
      return &c;
  }
  return nullptr;
}

std::vector<std::string> culprits(const DiffResult& d, const Attribution& a) {
  std::vector<std::string> out;
  for (std::size_t i : a.changes)
    out.push_back(d.inputs[i].subject);
  return out;
}

TEST(Diff, OneCulpritAmongSixteenChangedFlags) {
  const std::string noise =
      " --trust-remote-code --enable-metrics --log-level debug --host 0.0.0.0 --port 31000"
      " --enable-fused-moe-sum-all-reduce --api-key k --served-model-name qwen --random-seed 7"
      " --tool-call-parser qwen --reasoning-parser qwen3 --watchdog-timeout 600 --download-dir "
      "/tmp/x"
      " --enable-cache-report --skip-server-warmup";
  BuiltScenario a = build(kQwen35);
  BuiltScenario b = build(std::string(kQwen35) + noise + " --mamba-ssm-dtype bfloat16");
  DiffResult d = diff(a, b);
  EXPECT_EQ(d.inputs.size(), 16u);
  const OutputChange* m = change_of(d, "max_running_requests");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->a_text, "117");
  EXPECT_EQ(m->b_text, "230");
  ASSERT_EQ(m->attribution.size(), 1u);
  EXPECT_EQ(m->attribution[0].kind, "single");
  EXPECT_EQ(culprits(d, m->attribution[0]), (std::vector<std::string>{"--mamba-ssm-dtype"}));
  EXPECT_NE(std::find(m->attribution[0].path.begin(), m->attribution[0].path.end(), "R6.5"),
            m->attribution[0].path.end());
  EXPECT_EQ(d.attribution.cleared.size(), 15u);
}

TEST(Diff, TwoFlagInteractionIsNamed) {
  // --disable-radix-cache with --max-running-requests sizes the mamba pool from the request
  // limit (R6.7); either flag alone leaves max_mamba_cache_size at 586.
  BuiltScenario a = build(kQwen35);
  BuiltScenario b =
      build(std::string(kQwen35) + " --disable-radix-cache --max-running-requests 64");
  DiffResult d = diff(a, b);
  const OutputChange* k = change_of(d, "max_mamba_cache_size");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->b_text, "64");
  ASSERT_EQ(k->attribution.size(), 1u);
  EXPECT_EQ(k->attribution[0].kind, "interaction");
  EXPECT_EQ(k->attribution[0].changes.size(), 2u);
}

TEST(Diff, Fp8KvMovesTokensButNotRunningRequests) {
  DiffResult d = diff(build(kQwen35), build(std::string(kQwen35) + " --kv-cache-dtype fp8_e4m3"));
  EXPECT_NE(change_of(d, "max_total_num_tokens"), nullptr);
  EXPECT_EQ(change_of(d, "max_running_requests"), nullptr);
  EXPECT_NE(change_of(d, "kv_cell_bytes"), nullptr);
}

TEST(Diff, VersionOnlyDiffBlamesTheVersion) {
  DiffResult d = diff(build(kQwen35, "sglang@2026-05-01"), build(kQwen35, "sglang@2026-07-20"));
  ASSERT_EQ(d.inputs.size(), 1u);
  const OutputChange* m = change_of(d, "max_running_requests");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->a_text, "197");
  EXPECT_EQ(m->b_text, "117");
  EXPECT_EQ(m->attribution.at(0).kind, "single");
  const auto& path = m->attribution.at(0).path;
  EXPECT_NE(std::find(path.begin(), path.end(), "R5.8"), path.end()) << "through the mamba ratio";
}

TEST(Diff, GpuOnlyDiffChangesBackendsAndTheFusion) {
  DiffResult d =
      diff(build(kQwen35, "", "h100-sxm", false), build(kQwen35, "", "rtx-pro-6000", false));
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0].kind, ScenarioChange::Kind::kGpu);
  const OutputChange* attn = change_of(d, "attention_backend.resolved");
  ASSERT_NE(attn, nullptr);
  EXPECT_EQ(attn->a_text, "fa3");
  EXPECT_EQ(attn->b_text, "flashinfer");
  const OutputChange* fusion = change_of(d, "flashinfer_allreduce_fusion_backend.resolved");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->a_text, "auto");
  EXPECT_EQ(fusion->b_text, "n/a");
}

TEST(Diff, TheWaterfallStepsFromAToBCausesFirst) {
  BuiltScenario a = build(kQwen35);
  BuiltScenario b = build(std::string(kQwen35) +
                          " --speculative-algorithm NEXTN --mem-fraction-static 0.8"
                          " --max-mamba-cache-size 100 --schedule-policy lpm");
  DiffResult d = diff(a, b);
  const OutputChange* tokens = change_of(d, "max_total_num_tokens");
  ASSERT_NE(tokens, nullptr);
  ASSERT_EQ(tokens->waterfall.size(), d.inputs.size());  // every change, once
  EXPECT_EQ(tokens->waterfall.back().value, tokens->b);  // the steps land on B
  // The three-way interaction's members come first; the scheduling policy moves nothing.
  EXPECT_EQ(d.inputs[tokens->waterfall.back().change].subject, "--schedule-policy");
  EXPECT_EQ(tokens->waterfall[2].value, tokens->b);
  EXPECT_NE(tokens->waterfall[0].value, tokens->a);
  const OutputChange* running = change_of(d, "max_running_requests");
  ASSERT_NE(running, nullptr);
  // A single cause: its step alone takes the output to B.
  EXPECT_EQ(d.inputs[running->waterfall.front().change].subject, "--max-mamba-cache-size");
  EXPECT_EQ(running->waterfall.front().value, running->b);
}

TEST(Diff, IdenticalScenariosHaveNoChanges) {
  DiffResult d = diff(build(kQwen35), build(kQwen35));
  EXPECT_TRUE(d.inputs.empty());
  EXPECT_TRUE(d.attribution.changes.empty());
}

}  // namespace
}  // namespace servescope::testing
