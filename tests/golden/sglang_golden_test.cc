// Golden tests on the real-log corpus: every SGLang case of $SERVESCOPE_CORPUS/cases.jsonl with
// logged free memory (before and after the weight load) and at least one capacity figure goes
// through `check` from its raw_log text. max_total_num_tokens and max_running_requests must
// lie inside the interval the 0.01 GB rounding of the logged memory allows (exactly where it
// cannot move them). A case that cannot match yet is listed below with its reason; the test
// fails if a listed case starts to match (update the list) or an unlisted one stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "diagnose/check.h"
#include "evidence/log_reader.h"
#include "tests/golden/corpus.h"

namespace servescope {
namespace {

const std::map<std::string, std::string> kKnownGaps = {
    {"sglang-llms-in-clouds-qwq32b-4xL4",
     "Qwen/QwQ-32B's config.json is not public in a verbatim copy we could find "
     "(data/models/SOURCES.md)"},
    {"sglang-lfm2-700m-bench-one-batch-16GB",
     "LiquidAI/LFM2-700M's config.json is not public in a verbatim copy, and the bench_one_batch "
     "excerpt has no "
     "server_args dump or parsable launch command"},
};

struct Case {
  std::string id;
  std::string raw_log;
  nlohmann::json outcomes;
};

std::vector<Case> qualifying_cases() {
  std::ifstream in(golden::corpus_dir() + "/cases.jsonl");
  std::vector<Case> out;
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("engine", "") != "sglang")
      continue;
    const auto& o = j["outcomes"];
    const bool memory =
        o.contains("avail_mem_before_load_gb") && !o["avail_mem_before_load_gb"].is_null() &&
        o.contains("avail_mem_after_load_gb") && !o["avail_mem_after_load_gb"].is_null();
    const bool figure =
        (o.contains("max_total_num_tokens") && !o["max_total_num_tokens"].is_null()) ||
        (o.contains("kv_cache_tokens") && !o["kv_cache_tokens"].is_null()) ||
        (o.contains("max_running_requests") && !o["max_running_requests"].is_null());
    if (memory && figure && j["raw_log"].is_string())
      out.push_back({j["id"], j["raw_log"], o});
  }
  return out;
}

TEST(SglangGolden, EveryQualifyingCaseMatchesOrIsAListedGap) {
  const std::vector<Case> cases = qualifying_cases();
  ASSERT_GE(cases.size(), 4u)
      << "the corpus has at least four SGLang cases with logged free memory";
  std::size_t matched = 0;
  std::set<std::string> failing;
  for (const Case& c : cases) {
    auto facts = read_log_text(c.raw_log, c.id);
    ASSERT_TRUE(facts) << c.id << ": " << facts.message();
    auto result = check_log(*facts, CheckOptions{});
    if (!result) {
      failing.insert(c.id);
      EXPECT_TRUE(kKnownGaps.count(c.id)) << c.id << " cannot be checked: " << result.message();
      continue;
    }
    bool ok = true;
    int capacity_figures = 0;
    for (const Comparison& cmp : result->comparisons) {
      if (cmp.field != "max_total_num_tokens" && cmp.field != "max_running_requests")
        continue;
      ++capacity_figures;
      ok = ok && cmp.checked && cmp.match;
      // The interval is no wider than the rounding allows: well under 0.5%.
      if (cmp.predicted_low && cmp.predicted_high && *cmp.predicted_low > 0) {
        EXPECT_LT((*cmp.predicted_high - *cmp.predicted_low) / *cmp.predicted_low, 0.005)
            << c.id << " " << cmp.field;
      }
    }
    ok = ok && capacity_figures > 0;
    if (ok) {
      ++matched;
      EXPECT_FALSE(kKnownGaps.count(c.id)) << c.id << " now matches: remove it from the known gaps";
    } else {
      failing.insert(c.id);
      EXPECT_TRUE(kKnownGaps.count(c.id)) << c.id << " does not match and is not a listed gap";
    }
  }
  for (const auto& [id, reason] : kKnownGaps)
    EXPECT_TRUE(failing.count(id)) << id << " is listed as a gap: " << reason;
  RecordProperty("matched", static_cast<int>(matched));
  RecordProperty("checkable", static_cast<int>(cases.size() - kKnownGaps.size()));
  EXPECT_EQ(matched, cases.size() - kKnownGaps.size());
}

TEST(SglangGolden, TheQuickstartLogMatchesWithTheGpuGivenToo) {
  // With the GPU named (an 80 GB card), the defaults of January 2025 are checked as well.
  std::ifstream in(golden::corpus_dir() + "/raw/sglang-docs_sglang_ai-quickstart-send_request.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto facts = read_log_text(text, "quickstart");
  ASSERT_TRUE(facts);
  CheckOptions o;
  o.gpu = "h100-sxm";
  auto r = check_log(*facts, o);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->mismatched(), 0u);
  EXPECT_EQ(r->unchecked(), 0u);
  EXPECT_GE(r->matched(), 6u);
  EXPECT_EQ(r->scenario.version.main_date, "2025-01-23");
}

// A log that names a GPU the catalog lacks (a Turing RTX 2080 Ti in a kernel-config path; the
// catalog starts at Ampere, V100 and T4 aside) is still checked,
// on a stand-in, and says so; a --gpu the catalog lacks is an error (it is the user's input).
TEST(SglangGolden, AGpuTheCatalogLacksIsAStandInNotAnError) {
  std::ifstream in(golden::corpus_dir() + "/raw/sglang-docs_sglang_ai-quickstart-send_request.log");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto facts =
      read_log_text(text +
                        "[2025-01-23 00:00:00 TP0] Config file not found at "
                        "/sgl/configs/E=256,N=256,device_name=NVIDIA_GeForce_RTX_2080_Ti.json\n",
                    "rtx-2080-ti");
  ASSERT_TRUE(facts);
  auto r = check_log(*facts, CheckOptions{});
  ASSERT_TRUE(r) << r.message();
  EXPECT_FALSE(r->gpu_known);
  EXPECT_GE(r->matched(), 1u);
  EXPECT_TRUE(std::any_of(r->notes.begin(), r->notes.end(), [](const std::string& n) {
    return n.find("'NVIDIA GeForce RTX 2080 Ti'") != std::string::npos;
  }));
  CheckOptions typed;
  typed.gpu = "NVIDIA GeForce RTX 2080 Ti";
  EXPECT_FALSE(check_log(*facts, typed));
}

// A speculative draft model loads its weights after the target's pools: its "Load weight"
// lines (less free memory) do not calibrate the target's pools.
TEST(SglangGolden, ADraftModelsLoadDoesNotCalibrateTheTargetsPools) {
  std::ifstream in(golden::corpus_dir() + "/raw/sglang-docs_sglang_ai-quickstart-send_request.log");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CheckOptions o;
  o.gpu = "h100-sxm";
  auto plain = read_log_text(text, "target");
  auto with_draft =
      read_log_text(text +
                        "[2025-01-23 00:10:00 TP0] Load weight begin. avail mem=12.00 GB\n"
                        "[2025-01-23 00:10:01 TP0] Load weight end. type=LlamaForCausalLMEagle, "
                        "dtype=torch.bfloat16, avail mem=11.00 GB\n",
                    "draft");
  ASSERT_TRUE(plain && with_draft);
  auto a = check_log(*plain, o);
  auto b = check_log(*with_draft, o);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->scenario.calibration.free_after_load_gib);
  EXPECT_EQ(b->scenario.calibration.free_after_load_gib,
            a->scenario.calibration.free_after_load_gib);
  EXPECT_EQ(b->scenario.calibration.free_before_load_gib,
            a->scenario.calibration.free_before_load_gib);
  EXPECT_EQ(b->mismatched(), 0u);
}

// A node of a two-node run: the log shows its ranks only, so the KV pool it predicts bounds the
// logged one from above (R3.1: the minimum over every rank). The quickstart log, edited to say
// nnodes=2, with the logged pool below its prediction (another node had less free memory) and
// above it (which no other node can explain).
TEST(SglangGolden, OneNodeOfSeveralBoundsThePoolFromAbove) {
  std::ifstream in(golden::corpus_dir() + "/raw/sglang-docs_sglang_ai-quickstart-send_request.log");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto edited = [&](const std::string& tokens) {
    std::string t = text;
    t.replace(t.find("nnodes=1"), 8, "nnodes=2");
    t.replace(t.find("max_total_num_tokens=444500"), 27, "max_total_num_tokens=" + tokens);
    auto facts = read_log_text(t, "two-node");
    EXPECT_TRUE(facts);
    CheckOptions o;
    o.gpu = "h100-sxm";
    auto r = check_log(*facts, o);
    EXPECT_TRUE(r) << r.message();
    for (const Comparison& c : r->comparisons) {
      if (c.field == "max_total_num_tokens")
        return c;
    }
    ADD_FAILURE() << "no max_total_num_tokens comparison";
    return Comparison{};
  };
  const Comparison below = edited("440000");
  EXPECT_TRUE(below.bound);
  EXPECT_TRUE(below.match) << below.note;
  EXPECT_NE(below.note.find("nnodes 2"), std::string::npos) << below.note;
  const Comparison above = edited("450000");
  EXPECT_TRUE(above.bound);
  EXPECT_FALSE(above.match) << above.note;
}

}  // namespace
}  // namespace servescope

namespace servescope {
namespace {

// The quickstart log never names its GPU; its 78.81 GiB free before the load rules out every
// catalog GPU below the 80 GB class, so it is checked as one of that class and says so.
TEST(SglangGolden, ALogThatNamesNoGpuIsCheckedOnTheClassItsMemoryAllows) {
  std::ifstream in(golden::corpus_dir() + "/raw/sglang-docs_sglang_ai-quickstart-send_request.log");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto facts = read_log_text(text, "quickstart");
  ASSERT_TRUE(facts);
  auto r = check_log(*facts, CheckOptions{});
  ASSERT_TRUE(r) << r.message();
  EXPECT_TRUE(r->gpu_known);
  EXPECT_EQ(r->mismatched(), 0u);
  EXPECT_EQ(r->unchecked(), 0u);
  EXPECT_GE(r->matched(), 6u);  // the pool and every resolved setting, GPU-dependent ones too
  EXPECT_EQ(r->scenario.hardware.gpu.memory_mib / 1024, 79);
  EXPECT_TRUE(std::any_of(r->notes.begin(), r->notes.end(), [](const std::string& n) {
    return n.find("the log does not name the GPU; its free memory before the load of 78.81 GiB") !=
           std::string::npos;
  }));
}

// An excerpt that shortened the capture list is compared as a prefix: the shown sizes must be
// the engine's first ones.
TEST(SglangGolden, AShortenedCaptureListIsComparedAsAPrefix) {
  std::ifstream in(golden::corpus_dir() + "/raw/sglang-docs_sglang_ai-quickstart-send_request.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text += "[2025-01-23 19:35:10 TP0] Capture cuda graph bs [1, 2, 4, 8, ...]\n";
  auto facts = read_log_text(text, "shortened");
  ASSERT_TRUE(facts);
  auto r = check_log(*facts, CheckOptions{});
  ASSERT_TRUE(r) << r.message();
  const auto bs = std::find_if(r->comparisons.begin(), r->comparisons.end(),
                               [](const Comparison& c) { return c.field == "cuda_graph_bs"; });
  ASSERT_NE(bs, r->comparisons.end());
  EXPECT_TRUE(bs->checked);
  EXPECT_TRUE(bs->match) << bs->note;
  EXPECT_EQ(bs->note, "the log shortened the list to its first 4: compared as a prefix");
  // A wrong prefix is a mismatch, not a pass.
  std::string wrong = text.substr(0, text.size() - 1);
  wrong.replace(wrong.rfind("[1, 2, 4, 8, ...]"), 17, "[1, 3, ...]");
  auto w = check_log(*read_log_text(wrong + "\n", "wrong"), CheckOptions{});
  ASSERT_TRUE(w) << w.message();
  const auto wbs = std::find_if(w->comparisons.begin(), w->comparisons.end(),
                                [](const Comparison& c) { return c.field == "cuda_graph_bs"; });
  ASSERT_NE(wbs, w->comparisons.end());
  EXPECT_FALSE(wbs->match);
}

}  // namespace
}  // namespace servescope
