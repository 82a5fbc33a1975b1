// Dated rule variants: each test pins a behaviour to the era the history gives it, with
// values computed by hand from that era's rule.
#include <gtest/gtest.h>

#include "engines/sglang/sglang_rules.h"
#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

PlanRequest at(const std::string& date, const std::string& args, const std::string& gpu,
               std::optional<double> before = std::nullopt,
               std::optional<double> after = std::nullopt) {
  PlanRequest r;
  r.engine = "sglang@" + date;
  r.command = "python -m sglang.launch_server " + args;
  r.gpu = gpu;
  r.before = before;
  r.after = after;
  return r;
}

const char kLlama8b[] = "--model-path meta-llama/Llama-3.1-8B-Instruct";
const char kQwen35[] = "--model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4";

TEST(RuleVariants, ChangePointsAreOrderedByDate) {
  const auto& points = sglang::change_points();
  ASSERT_GT(points.size(), 40u);
  for (std::size_t i = 1; i < points.size(); ++i)
    EXPECT_LE(points[i - 1].date, points[i].date) << points[i].pr;
}

TEST(RuleVariants, AVariantNamesTheChangesAroundIt) {
  sglang::RuleVariant v = sglang::rules_for_date("2026-05-01");
  ASSERT_NE(v.latest, nullptr);
  ASSERT_NE(v.next, nullptr);
  EXPECT_EQ(v.latest->pr, "#21249");
  EXPECT_EQ(v.next->pr, "#23837");
  EXPECT_NE(v.describe().find("ended 2026-05-27"), std::string::npos) << v.describe();
  EXPECT_EQ(sglang::rules_for_date(sglang::newest_modelled_date()).next, nullptr);
  ASSERT_NE(sglang::rules_for_date("2026-07-20").next, nullptr);
  EXPECT_EQ(sglang::rules_for_date("2026-07-20").next->pr, "#31682");
}

TEST(VersionResolution, ReleasesMapToMainDates) {
  auto v = sglang::resolve_sglang_version("0.4.6");
  ASSERT_TRUE(v) << v.message();
  EXPECT_EQ(v->main_date, "2025-04-27");
  auto post = sglang::resolve_sglang_version("v0.5.15.post1");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->main_date, "2026-07-06");
  auto dev = sglang::resolve_sglang_version("0.4.99.dev20250101");
  EXPECT_FALSE(dev) << "an unlisted release line older than the newest is an error, not a guess";
  EXPECT_FALSE(sglang::resolve_sglang_version("banana"));
  EXPECT_EQ(sglang::resolve_sglang_version("2026-05-01")->main_date, "2026-05-01");
}

TEST(VersionResolution, EveryPublishedReleaseIsAccepted) {
  // Every release to 0.5.23 maps to its branch cut; the flags of each are judged by its own
  // table.
  const std::vector<std::pair<std::string, std::string>> cuts = {
      {"0.5.16", "2026-07-20"}, {"0.5.17", "2026-08-04"}, {"0.5.18", "2026-08-18"},
      {"0.5.19", "2026-08-31"}, {"0.5.20", "2026-09-14"}, {"0.5.23", "2026-10-26"}};
  for (const auto& [r, cut] : cuts) {
    auto v = sglang::resolve_sglang_version(r);
    ASSERT_TRUE(v) << r << ": " << v.message();
    EXPECT_EQ(v->release, r);
    EXPECT_EQ(v->main_date, cut) << r;
    EXPECT_TRUE(v->rules_gap.empty()) << r;
  }
  // 0.5.19 … 0.5.23 have no cut commit in any snapshot: the PyPI upload places them.
  EXPECT_NE(sglang::resolve_sglang_version("0.5.20")->basis.find("PyPI upload 2026-09-18"),
            std::string::npos);
  // The default is the newest release.
  auto latest = sglang::resolve_sglang_version("");
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->release, "0.5.23");
  EXPECT_EQ(latest->label, "0.5.23");
  // A version newer than every known one is accepted with a warning, never refused.
  auto future = sglang::resolve_sglang_version("0.5.30");
  ASSERT_TRUE(future) << future.message();
  EXPECT_EQ(future->label, "0.5.30");
  EXPECT_EQ(future->release, "0.5.23");
  EXPECT_TRUE(future->newer_than_known);
  EXPECT_NE(future->basis.find("newer than every release servescope knows (newest 0.5.23)"),
            std::string::npos);
  // A main date has no release table.
  EXPECT_EQ(sglang::resolve_sglang_version("2026-05-01")->release, "");
}

TEST(VersionResolution, ReleaseBranchesCarryTheirCherryPicks) {
  // v0.5.14 was cut 2026-06-22 but carries #28789 (2026-06-23): the SM120 fusion failure.
  auto v = sglang::resolve_sglang_version("0.5.14");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->cherry_picks, (std::vector<std::string>{"#28789"}));
  Plan p = plan_of(at("2026-06-22", std::string(kQwen35) + " --enable-flashinfer-allreduce-fusion",
                      "rtx-pro-6000", 94.6, 64.6));
  EXPECT_TRUE(p.starts) << "main 2026-06-22 predates #28789";
  PlanRequest r = at("2026-06-22", std::string(kQwen35) + " --enable-flashinfer-allreduce-fusion",
                     "rtx-pro-6000", 94.6, 64.6);
  r.engine = "sglang@0.5.14";
  EXPECT_FALSE(plan_of(r).starts);
}

// --- R5.13: the request pool eras --------------------------------------------------------

TEST(R5_13_RequestPool, Early2025PrintsPoolPlusOne2049) {
  Plan p = plan_of(at("2025-01-23", kLlama8b, "h100-sxm", 78.81, 63.72));
  EXPECT_EQ(num(p, "req_to_token_pool_size"), 2049);
  EXPECT_EQ(num(p, "max_running_requests"), 2049);
  EXPECT_EQ(num(p, "max_total_num_tokens"), 444520);
}

TEST(R5_13_RequestPool, MidSeptember2024Prints2048And2047Before) {
  EXPECT_EQ(
      num(plan_of(at("2024-09-12", kLlama8b, "h100-sxm", 78.81, 63.72)), "max_running_requests"),
      2048);
  EXPECT_EQ(
      num(plan_of(at("2024-09-05", kLlama8b, "h100-sxm", 78.81, 63.72)), "max_running_requests"),
      2047);
}

TEST(R5_13_RequestPool, UserValueIsThePoolIn2025) {
  Plan p = plan_of(at("2025-02-17", std::string(kLlama8b) + " --max-running-requests 50",
                      "h100-sxm", 78.81, 63.72));
  EXPECT_EQ(num(p, "max_running_requests"), 50);
  EXPECT_EQ(num(p, "req_to_token_pool_size"), 51);
}

TEST(R5_4_UserValue, ClampedByTheEstimateBetweenMarchAndJune2026) {
  EXPECT_EQ(num(plan_of(at("2026-04-01", std::string(kLlama8b) + " --max-running-requests 5000",
                           "h100-sxm", 78.81, 63.72)),
                "max_running_requests"),
            2048);
  EXPECT_EQ(num(plan_of(at("2026-07-01", std::string(kLlama8b) + " --max-running-requests 5000",
                           "h100-sxm", 78.81, 63.72)),
                "max_running_requests"),
            5000);
}

// --- R2.5 mem_fraction_static eras ---------------------------------------------------------

TEST(R2_5_TpTable, FractionByTpSizeBeforeJune2025) {
  EXPECT_DOUBLE_EQ(num(plan_of(at("2025-03-08", std::string(kLlama8b) + " --tp 4", "l4")),
                       "mem_fraction_static"),
                   0.85);
  EXPECT_DOUBLE_EQ(num(plan_of(at("2025-01-20", std::string(kLlama8b) + " --tp 8", "h100-sxm")),
                       "mem_fraction_static"),
                   0.81);
  EXPECT_DOUBLE_EQ(num(plan_of(at("2024-11-20", std::string(kLlama8b) + " --tp 8", "h100-sxm")),
                       "mem_fraction_static"),
                   0.82);
  EXPECT_DOUBLE_EQ(num(plan_of(at("2024-10-20", std::string(kLlama8b) + " --tp 8", "h100-sxm")),
                       "mem_fraction_static"),
                   0.83);
}

TEST(R2_5_TpTable, B200GetsItsOwnFractionFromLateMay2025) {
  EXPECT_DOUBLE_EQ(num(plan_of(at("2025-06-05", kLlama8b, "b200")), "mem_fraction_static"), 0.79);
}

TEST(R2_5_ReserveByTier, H100In2025SummerReserves10GiB) {
  // 79.6 GiB < 90 GiB: (9.5 + tp·pp/2) GiB = 10 GiB; round((81559 − 10240)/81559, 3) = 0.874.
  Plan p = plan_of(at("2025-08-01", kLlama8b, "h100-sxm"));
  EXPECT_DOUBLE_EQ(num(p, "reserved_mem_mib"), 10240);
  EXPECT_DOUBLE_EQ(num(p, "mem_fraction_static"), 0.874);
}

TEST(R2_5_ReserveFormula, H100BeforeThePiecewiseGraphTerm) {
  // 512 + 1.5·8192 + 128 + 256·2 = 13440 MiB → 0.835 (sglang-history §2.4).
  Plan p = plan_of(at("2025-10-20", kLlama8b, "h100-sxm"));
  EXPECT_DOUBLE_EQ(num(p, "reserved_mem_mib"), 13440);
  EXPECT_DOUBLE_EQ(num(p, "mem_fraction_static"), 0.835);
}

TEST(R2_5_ReserveFormula, SpeculativeReserveWas2Then4GiB) {
  PlanRequest r = at(
      "2026-01-15",
      "--model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE3 --speculative-draft-model-path d",
      "h100-sxm");
  Plan early = plan_of(r);
  r.engine = "sglang@2026-03-01";
  Plan late = plan_of(r);
  EXPECT_DOUBLE_EQ(num(late, "reserved_mem_mib") - num(early, "reserved_mem_mib"), 2048);
  r.engine = "sglang@2026-07-20";
  EXPECT_EQ(plan_of(r).graph.find("reserved_mem_mib")->why.find("speculative"), std::string::npos);
}

TEST(R2_6_PrefillGraph, MultimodalModelsLostTheGraphFromMarchToJune2026) {
  // §12.5: 2026-04-19 … 2026-06-22, the prefill graph is auto-disabled for Qwen3.5, so the
  // reserve has no prefill term: mem_fraction 0.854 × 0.92477 = 0.7897, K 592, no_buffer → 197.
  Plan p = plan_of(at("2026-05-01", kQwen35, "rtx-pro-6000", 94.6, 64.6));
  EXPECT_EQ(text(p, "cuda_graph_backend_prefill.resolved"), "disabled");
  EXPECT_NEAR(num(p, "mem_fraction_static"), 0.7897, 0.0001);
  EXPECT_EQ(num(p, "max_mamba_cache_size"), 592);
  EXPECT_EQ(text(p, "mamba_radix_cache_strategy.resolved"), "no_buffer");
  EXPECT_EQ(num(p, "max_running_requests"), 197);
}

TEST(R2_8_VlmFactor, FlatNinetyPercentInJuly2025) {
  Plan p = plan_of(at("2025-07-10", kQwen35, "rtx-pro-6000"));
  EXPECT_NEAR(num(p, "mem_fraction_static") / num(p, "mem_fraction_static.heuristic"), 0.90, 1e-12);
}

// --- R2.1 / R2.2 ------------------------------------------------------------------------------

TEST(R2_1_Tiers, SmallCardsInEarly2025) {
  Plan l4 = plan_of(at("2025-03-08", std::string(kLlama8b) + " --tp 4", "l4"));
  EXPECT_EQ(num(l4, "chunked_prefill_size"), 2048);
  EXPECT_EQ(num(l4, "cuda_graph_max_bs_decode.resolved"), 80);
  Plan h100 = plan_of(at("2025-01-23", kLlama8b, "h100-sxm"));
  EXPECT_EQ(num(h100, "chunked_prefill_size"), 8192);
  EXPECT_EQ(num(h100, "cuda_graph_max_bs_decode.resolved"), 160);
}

TEST(R2_2_DecodeList, Early2025ListHas23SizesUpTo160And13UpTo80) {
  EXPECT_EQ(plan_of(at("2025-01-23", kLlama8b, "h100-sxm"))
                .graph.find("cuda_graph_bs_decode.resolved")
                ->value.as_list()
                .size(),
            23u);
  EXPECT_EQ(plan_of(at("2025-03-08", std::string(kLlama8b) + " --tp 4", "l4"))
                .graph.find("cuda_graph_bs_decode.resolved")
                ->value.as_list()
                .size(),
            13u);
}

// --- R6 mamba eras --------------------------------------------------------------------------

TEST(R5_8_MambaRatio, NoBufferBugGaveFiveInLateDecember2025) {
  EXPECT_EQ(num(plan_of(at("2025-12-20", kQwen35, "rtx-pro-6000", 94.6, 64.6)), "mamba_ratio"), 5);
  EXPECT_EQ(num(plan_of(at("2026-01-10", kQwen35, "rtx-pro-6000", 94.6, 64.6)), "mamba_ratio"), 3);
}

TEST(R6_8_MambaPool, FixedPoolOf512InSeptember2025) {
  Plan p = plan_of(at("2025-09-20", "--model-path Qwen/Qwen3-Next-80B-A3B-Thinking --tp 4",
                      "h100-sxm", 78.0, 40.0));
  EXPECT_EQ(num(p, "max_mamba_cache_size"), 512);
  EXPECT_EQ(num(p, "mamba_ratio"), 1);
}

TEST(R6_8_MambaPool, HybridModelsPredateSeptember2025) {
  Plan p = plan_of(at("2025-08-01", "--model-path Qwen/Qwen3-Next-80B-A3B-Thinking --tp 4",
                      "h100-sxm", 78.0, 40.0));
  EXPECT_FALSE(p.starts);
  EXPECT_TRUE(has_finding(p, "model-not-supported-in-version"));
}

// --- R4.5 draft KV eras ---------------------------------------------------------------------

TEST(R4_5_DraftKv, HeadroomWasAddedToTheCapacityInMid2025) {
  Plan p = plan_of(at(
      "2025-08-01",
      "--model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE --speculative-draft-model-path d",
      "h100-sxm", 78.8, 62.0));
  // 48 requests · (3·1 + 4) + 100? No: mid-2025 Qwen3 takes (5, 4, 8): 48 · (5·4 + 8) + 100 = 1444.
  EXPECT_EQ(num(p, "draft_kv_headroom"), 48 * (5 * 4 + 8) + 100);
  EXPECT_EQ(num(p, "max_total_num_tokens"), num(p, "max_total_num_tokens.profiled") + 1444);
}

// --- R9.1 fusion eras -------------------------------------------------------------------------

TEST(R9_1_Fusion, Sm120BehaviourByEra) {
  const std::string cmd = std::string(kQwen35) + " --enable-flashinfer-allreduce-fusion";
  EXPECT_FALSE(plan_of(at("2026-01-10", cmd, "rtx-pro-6000", 94.6, 64.6)).starts)
      << "crash at capture";
  Plan silent = plan_of(at("2026-03-01", cmd, "rtx-pro-6000", 94.6, 64.6));
  EXPECT_TRUE(silent.starts);
  EXPECT_TRUE(has_finding(silent, "fusion-unsupported-gpu"));
  EXPECT_TRUE(plan_of(at("2026-05-01", cmd, "rtx-pro-6000", 94.6, 64.6)).starts)
      << "workspace warning only";
  EXPECT_FALSE(plan_of(at("2026-07-20", cmd, "rtx-pro-6000", 94.6, 64.6)).starts)
      << "ValueError at warmup";
}

}  // namespace
}  // namespace servescope::testing
