#include "engines/sglang/sglang_version_inference.h"

#include <gtest/gtest.h>

#include "engines/sglang/sglang_log_grammar.h"
#include "tests/grammar_fixture.h"

namespace servescope::sglang {
namespace {

VersionInference infer(std::initializer_list<std::string_view> lines) {
  SglangLogGrammar g;
  return infer_sglang_version(testing::feed_lines(g, lines).facts);
}

bool covers(const VersionInference& v, const std::string& date) {
  return (v.from_date.empty() || v.from_date <= date) &&
         (v.until_date.empty() || date <= v.until_date);
}

const VersionEvidence* find(const VersionInference& v, std::string_view observation) {
  for (const VersionEvidence& e : v.evidence) {
    if (e.observation.find(observation) != std::string::npos)
      return &e;
  }
  return nullptr;
}

TEST(SglangVersionInference, CudaGraphConfigVersusMaxBs) {
  VersionInference old =
      infer({"[2026-01-01 00:00:00] server_args=ServerArgs(tp_size=1, [...] "
             "cuda_graph_max_bs=256, [...])"});
  EXPECT_EQ(old.until_date, "2026-01-01");  // the run date is tighter than 2026-06-08
  EXPECT_EQ(old.from_date, "2024-10-26");
  ASSERT_NE(find(old, "cuda_graph_max_bs"), nullptr);
  EXPECT_EQ(find(old, "cuda_graph_max_bs")->until_date, "2026-06-08");

  VersionInference now =
      infer({"server_args=ServerArgs(tp_size=1, [...] "
             "cuda_graph_config=CudaGraphConfig(decode=D(max_bs=8)), [...])"});
  EXPECT_EQ(now.from_date, "2026-06-09");
  EXPECT_EQ(now.until_date, "");
}

TEST(SglangVersionInference, MambaStrategyRename) {
  EXPECT_EQ(infer({"server_args=ServerArgs(mamba_scheduler_strategy='auto', [...])"}).until_date,
            "2026-06-17");
  EXPECT_EQ(infer({"server_args=ServerArgs(mamba_radix_cache_strategy='auto', [...])"}).from_date,
            "2026-06-18");
}

TEST(SglangVersionInference, KvLineWithoutDtypeIsBeforeMay2026) {
  VersionInference v =
      infer({"KV Cache is allocated. #tokens: 1000, K size: 1.00 GB, V size: 1.00 GB"});
  EXPECT_EQ(v.from_date, "2025-03-04");
  EXPECT_EQ(v.until_date, "2026-05-23");
  VersionInference d =
      infer({"KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1000, KV size: 1.00 GB"});
  EXPECT_EQ(d.from_date, "2026-05-24");
}

TEST(SglangVersionInference, AbsencesOnlyFromACompleteDump) {
  // A complete dump without cuda_graph_config is older than 2026-06-09 ...
  VersionInference full = infer({"server_args=ServerArgs(model_path='m', tp_size=1)"});
  const VersionEvidence* e = find(full, "no cuda_graph_config");
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(e->seen);
  EXPECT_EQ(e->until_date, "2026-06-08");
  // ... an elided one proves nothing.
  VersionInference elided = infer({"server_args=ServerArgs(model_path='m', [...])"});
  EXPECT_EQ(find(elided, "no cuda_graph_config"), nullptr);
}

TEST(SglangVersionInference, Default2049AndFinalLineForms) {
  VersionInference v =
      infer({"[2025-01-23 19:34:55] server_args=ServerArgs(max_running_requests=None, "
             "speculative_algorithm=None, [...])",
             "[2025-01-23 19:35:27 TP0] max_total_num_tokens=444500, max_prefill_tokens=16384, "
             "max_running_requests=2049, context_len=131072"});
  ASSERT_NE(find(v, "2049"), nullptr);
  EXPECT_EQ(find(v, "2049")->from_date, "2024-09-18");
  EXPECT_EQ(v.until_date, "2025-01-23");  // run date; without chunked_prefill_size: ≤ 01-25
  EXPECT_NE(find(v, "without chunked_prefill_size"), nullptr);
  // A user value of 2049 says nothing about the era.
  VersionInference user =
      infer({"server_args=ServerArgs(max_running_requests=2049, [...])",
             "max_total_num_tokens=444500, chunked_prefill_size=8192, max_prefill_tokens=16384, "
             "max_running_requests=2049, context_len=131072"});
  EXPECT_EQ(find(user, "2049"), nullptr);
}

TEST(SglangVersionInference, ConflictsAreReportedNotHidden) {
  // A patched tree: a 2025 Load weight end line next to a 2026 KV line.
  VersionInference v = infer(
      {"[2026-04-07 13:03:53] Load weight end. type=M, dtype=torch.bfloat16, avail mem=64.60 GB, "
       "mem usage=17.99 GB.",
       "[2026-04-07 13:03:53] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 10, K size: "
       "1.00 GB, V size: 1.00 GB"});
  EXPECT_FALSE(v.consistent);
  bool any_conflict = false;
  for (const VersionEvidence& e : v.evidence)
    any_conflict |= e.conflicting;
  EXPECT_TRUE(any_conflict);
  EXPECT_TRUE(v.known());
}

TEST(SglangVersionInference, PrintedVersionsAndImageDates) {
  VersionInference v = infer({"docker run rocm/sgl-dev:v0.5.8.post1-rocm720-mi35x-20260218 x"});
  EXPECT_EQ(v.printed_version, "0.5.8.post1");
  EXPECT_EQ(v.until_date, "2026-02-18");
  VersionInference release = infer({"Name: sglang", "Version: 0.5.15"});
  EXPECT_EQ(release.printed_version, "0.5.15");
  ASSERT_NE(find(release, "sglang 0.5.15"), nullptr);
  EXPECT_FALSE(find(release, "sglang 0.5.15")->from_date.empty());
}

TEST(SglangVersionInference, CaptureLineEras) {
  EXPECT_EQ(infer({"Capture cuda graph bs [1, 2, 4]"}).from_date, "2025-04-30");
  EXPECT_EQ(infer({"Capture cuda graph bs [1, 2, 4]"}).until_date, "2026-06-21");
  VersionInference swapped = infer(
      {"Capture cuda graph end. Time elapsed: 1.01 s. mem usage=0.03 GB. avail mem=2.39 GB."});
  EXPECT_EQ(swapped.from_date, "2025-04-28");
  VersionInference before = infer(
      {"Capture cuda graph end. Time elapsed: 7.23 s. avail mem=0.53 GB. mem usage=0.93 GB."});
  EXPECT_EQ(before.from_date, "2025-03-04");
  EXPECT_EQ(before.until_date, "2025-04-27");
  VersionInference named =
      infer({"Capture target decode CUDA graph begin. backend=full, "
             "num_tokens_per_req=1, bs=[1, 2], avail mem=73.10 GB"});
  EXPECT_EQ(named.from_date, "2026-07-13");
  EXPECT_TRUE(covers(named, "2026-08-17"));
}

}  // namespace
}  // namespace servescope::sglang
