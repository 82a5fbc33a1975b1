// Release flag tables judged as each release's argparse would: on the generated tables of
// data/sglang and data/vllm (tools/engine-sync/flags.py), with the facts of
// docs/research/currency-2026-12.md and docs/research/oracle-sglang-verified.md §2 as the
// expectations.
#include "engines/release_flags.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engines/pypi_releases.h"

namespace servescope {
namespace {

using K = FlagVerdict::Kind;

TEST(ReleaseFlagTables, EveryPublishedSglangReleaseHasATable) {
  const ReleaseFlagTables& t = ReleaseFlagTables::of("sglang");
  const auto releases = t.releases();
  ASSERT_FALSE(releases.empty());
  EXPECT_EQ(releases.front(), "0.4.0");
  EXPECT_EQ(releases.back(), "0.5.23");
  // Finals and post releases: 92 of them (rc builds have no table).
  EXPECT_EQ(releases.size(), 92u);
  EXPECT_EQ(t.release("v0.5.18"), "0.5.18");
  EXPECT_FALSE(t.release("0.5.2rc0").has_value());
  EXPECT_TRUE(ReleaseFlagTables::of("no-such-engine").empty());
}

TEST(ReleaseFlagTables, AFlagAddedByALaterRelease) {
  const ReleaseFlagTables& t = ReleaseFlagTables::of("sglang");
  FlagVerdict v = t.judge("--mamba-max-states-per-path", "0.5.16");
  EXPECT_EQ(v.kind, K::kNotYet);
  EXPECT_EQ(v.added_in, "0.5.17");
  EXPECT_EQ(t.describe(v, "--mamba-max-states-per-path", "0.5.16"),
            "--mamba-max-states-per-path is not a flag of sglang 0.5.16 (argparse exits with "
            "'unrecognized arguments'); it was added in 0.5.17");
  EXPECT_EQ(t.judge("--mamba-max-states-per-path", "0.5.17").kind, K::kAccepted);
  EXPECT_EQ(t.judge("--mamba-max-states-per-path", "0.5.23").kind, K::kAccepted);
}

TEST(ReleaseFlagTables, ADeprecatedAliasNamesItsFlag) {
  const ReleaseFlagTables& t = ReleaseFlagTables::of("sglang");
  FlagVerdict v = t.judge("--enable-gdn-replayssm-spec", "0.5.18");
  EXPECT_EQ(v.kind, K::kDeprecated);
  EXPECT_EQ(v.replacement, "--enable-linear-replayssm-spec");
  EXPECT_EQ(t.describe(v, "--enable-gdn-replayssm-spec", "0.5.18"),
            "--enable-gdn-replayssm-spec is a deprecated alias of --enable-linear-replayssm-spec "
            "in sglang 0.5.18; use --enable-linear-replayssm-spec");
}

TEST(ReleaseFlagTables, AbbreviationsAsArgparseTakesThem) {
  const ReleaseFlagTables& t = ReleaseFlagTables::of("sglang");
  // --tp is a unique prefix of --tp-size.
  FlagVerdict tp = t.judge("--tp", "0.5.23");
  EXPECT_EQ(tp.kind, K::kAccepted);
  ASSERT_NE(tp.row, nullptr);
  EXPECT_EQ(tp.row->flag, "--tp-size");
  // 0.5.16 keeps --cuda-graph-max-bs as a deprecated alias; 0.5.23 removed it, and argparse
  // then reads it as an ambiguous prefix of the per-phase flags (oracle-sglang-verified §2).
  EXPECT_EQ(t.judge("--cuda-graph-max-bs", "0.5.16").kind, K::kDeprecated);
  FlagVerdict amb = t.judge("--cuda-graph-max-bs", "0.5.23");
  EXPECT_EQ(amb.kind, K::kAmbiguous);
  EXPECT_NE(std::find(amb.candidates.begin(), amb.candidates.end(), "--cuda-graph-max-bs-decode"),
            amb.candidates.end());
  EXPECT_NE(std::find(amb.candidates.begin(), amb.candidates.end(), "--cuda-graph-max-bs-prefill"),
            amb.candidates.end());
}

TEST(ReleaseFlagTables, ARemovedFlagNamesWhenAndItsReplacement) {
  const ReleaseFlagTables& t = ReleaseFlagTables::of("sglang");
  FlagVerdict v = t.judge("--mamba-scheduler-strategy", "0.5.23");
  EXPECT_EQ(v.kind, K::kRemoved);
  EXPECT_EQ(v.replacement, "--mamba-radix-cache-strategy");
  const auto releases = t.releases();
  const auto last = std::find(releases.begin(), releases.end(), v.last_in);
  ASSERT_NE(last, releases.end());
  ASSERT_NE(last + 1, releases.end());
  EXPECT_EQ(*(last + 1), v.removed_in);
  EXPECT_EQ(t.judge("--no-such-flag-anywhere", "0.5.23").kind, K::kNeverExisted);
}

TEST(ReleaseFlagTables, VllmReleasesToo) {
  const ReleaseFlagTables& t = ReleaseFlagTables::of("vllm");
  ASSERT_FALSE(t.empty());
  EXPECT_EQ(t.releases().back(), "0.34.0");
  // 0.34.0's own parser (flags-0.34.0.tsv, from its wheel) has the extensible KV cache switch.
  EXPECT_EQ(t.judge("--no-enable-extensible-kv-cache", "0.34.0").kind, K::kAccepted);
  FlagVerdict early = t.judge("--enable-extensible-kv-cache", "0.33.0");
  EXPECT_EQ(early.kind, K::kNotYet);
  EXPECT_EQ(early.added_in, "0.34.0");
  EXPECT_EQ(t.judge("--max-num-seqs", "0.6.0").kind, K::kAccepted);
  // A BooleanOptionalAction's negation is a spelling of its own.
  EXPECT_EQ(t.judge("--no-enable-prefix-caching", "0.19.0").kind, K::kAccepted);
  FlagVerdict gone = t.judge("--calculate-kv-scales", "0.33.0");
  EXPECT_EQ(gone.kind, K::kRemoved);
  FlagVerdict later = t.judge("--cohere-format", "0.19.0");
  EXPECT_EQ(later.kind, K::kNotYet);
}

TEST(PypiReleases, OrderAndNumbers) {
  const auto& s = pypi_releases("sglang");
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s.back().name, "0.5.23");
  EXPECT_EQ(s.back().date, "2026-10-30");
  ASSERT_NE(find_pypi_release("vllm", "v0.10.1.1"), nullptr);
  EXPECT_EQ(release_numbers("0.5.4.post1"), (std::vector<int>{0, 5, 4, 1}));
  EXPECT_EQ(release_numbers("0.5.2rc0"), (std::vector<int>{0, 5, 2}));
  EXPECT_LT(release_numbers("0.5.9"), release_numbers("0.5.23"));
}

}  // namespace
}  // namespace servescope
