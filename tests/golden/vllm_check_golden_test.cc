// Golden test of `servescope check` on the real vLLM logs of the corpus at $SERVESCOPE_CORPUS:
// every run of the v0.19.0 H100 sweep (vllm-llm-d-sweep-v0.19.0.jsonl) and every vLLM case of
// cases.jsonl goes through the check path itself (read_log_text → the engine's scenario_from_log →
// plan over the rounding box → comparison), as `servescope check LOG` does. For each checkable run,
// the five capacity figures the log prints — gpu_kv_cache_size_tokens, maximum_concurrency,
// num_gpu_blocks, max_num_seqs, max_num_batched_tokens — must be compared (with the value the
// corpus recorded from the same line) and must match inside the rounding interval.
//
// What a user would add on the command line is added here the same way: --model for a
// checkpoint whose config.json is not bundled but whose attention shape is (the stand-ins of
// tests/vllm_corpus_test.cc), --gpu where the log does not name it (vLLM logs never do) and
// the case's metadata does, and the launch command after -- where the excerpt has no args
// dict. Runs that cannot be checked are known gaps with their reason; the test fails if a
// listed gap starts to match (update the list) or an unlisted run stops.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "catalog/model_catalog.h"
#include "core/text.h"
#include "diagnose/check.h"
#include "evidence/log_reader.h"
#include "tests/golden/corpus.h"

namespace servescope {
namespace {

using nlohmann::json;

const char* const kRequired[] = {"gpu_kv_cache_size_tokens", "maximum_concurrency",
                                 "num_gpu_blocks", "max_num_seqs", "max_num_batched_tokens"};

// Checkpoints whose config.json is not bundled but whose attention shape is a bundled
// model's (as in tests/vllm_corpus_test.cc): quantization or fine-tuning changes only the
// weights, whose memory the log states.
const std::map<std::string, std::string> kStandIns = {
    {"RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic", "meta-llama/Llama-3.1-70B-Instruct"},
    {"redhatai/Llama-3.3-70B-Instruct-quantized.w8a8", "meta-llama/Llama-3.1-70B-Instruct"},
    {"RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", "meta-llama/Llama-3.1-8B-Instruct"},
    {"RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "meta-llama/Llama-3.1-8B-Instruct"},
    {"RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic", "Qwen/Qwen2.5-7B-Instruct"},
    {"RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8", "Qwen/Qwen2.5-7B-Instruct"},
    {"moonshotai/Kimi-Dev-72B", "Qwen/Qwen2.5-72B-Instruct"},
    // Granite 3.3 8B keeps Granite 3.1 8B's decoder (40 layers of 8 KV heads × 128).
    {"ibm-granite/granite-3.1-8b-instruct", "ibm-granite/granite-3.3-8b-instruct"},
};

// What the cases outside the sweep need on the command line (from each case's metadata).
struct CaseOptions {
  std::string gpu;
  std::string model;    // --model stand-in
  std::string command;  // after --
};
const std::map<std::string, CaseOptions> kCaseOptions = {
    // V0 excerpts without an args dict or model name: the command of the issue.
    {"vllm-12330-llama3-8b-A100-40GB",
     {"a100-40gb", "meta-llama/Llama-3.1-8B-Instruct",  // Llama 3 8B: Llama 3.1 8B's attention
      "vllm serve meta-llama/Meta-Llama-3-8B --max-model-len 8192"}},
    {"vllm-10517-llama31-8b-rtx3090-29k-fail",
     {"rtx-3090", "", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 29k"}},
    {"vllm-dennislee22-gpt-oss-120b-4xA100-80GB-tp4-multinode", {"a100-80gb", "", ""}},
    {"vllm-dennislee22-qwen2-7b-instruct-2xA100-40GB-tp2-multinode", {"a100-40gb", "", ""}},
    {"vllm-dennislee22-qwen2-7b-instruct-1xA100-80GB-gmu0.25", {"a100-80gb", "", ""}},
    {"vllm-dennislee22-qwen2-7b-instruct-2xA100-80GB-tp2-gmu0.25", {"a100-80gb", "", ""}},
    // The LLM(...) call of src/s3_infer.py as a command; InternVL3-78B's KV cache is its
    // Qwen2.5-72B language model's (InternViT-6B has none).
    {"vllm-vlmdistill-internvl3-78b-8xL40S-tp8",
     {"l40s", "Qwen/Qwen2.5-72B-Instruct",
      "vllm serve /models/internvl3-78b --tensor-parallel-size 8 --max-model-len 8192 "
      "--gpu-memory-utilization 0.92 --dtype bfloat16 --trust-remote-code"}},
};

// Runs that cannot be checked yet, besides models without a usable config.json.
const std::map<std::string, std::string> kKnownGaps = {
    {"vllm-51454-dsv4-flash-0731-8xB200-dp8",
     "DeepSeek V4 (sparse MLA with compression) is not modelled, and the excerpt has no memory "
     "profile, no 'Available KV cache memory' and no GPU KV cache size line"},
};

// Figures outside the five that check compares and that do not match yet, with the reason.
const std::map<std::pair<std::string, std::string>, std::string> kOtherMismatches = {
    // None at present. (0.10.1.1's 67 capture sizes, step 8 up to 512, were one until the
    // #26016 change point dated the step-16 form.)
};

std::vector<json> read_jsonl(const std::string& name) {
  std::vector<json> out;
  std::ifstream in(golden::corpus_dir() + "/" + name);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty())
      out.push_back(json::parse(line));
  }
  return out;
}

std::optional<double> num(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number())
    return std::nullopt;
  return it->get<double>();
}

// The values the corpus recorded for the five figures (null when the log does not print one).
std::map<std::string, double> recorded(const json& o) {
  std::map<std::string, double> out;
  for (const char* f : kRequired) {
    if (auto v = num(o, f))
      out[f] = *v;
  }
  if (auto it = o.find("maximum_concurrency"); it != o.end() && it->is_object()) {
    if (auto x = num(*it, "x"))
      out["maximum_concurrency"] = *x;
  }
  return out;
}

struct Score {
  int runs = 0, checkable = 0, matched = 0;
  std::vector<std::string> gaps;
  std::set<std::string> failing;
  std::vector<std::string> failures;
  std::map<std::string, int> figures_matched;  // per field, over matched runs
};

void check_run(const json& run, Score& score) {
  ++score.runs;
  const std::string id = run.at("id");
  const std::string model = run.at("model");
  const json& o = run.at("outcomes");
  CheckOptions options;
  if (auto c = kCaseOptions.find(id); c != kCaseOptions.end()) {
    options.gpu = c->second.gpu;
    options.model = c->second.model;
    if (!c->second.command.empty())
      options.command = *split_command_line(c->second.command);
  }
  if (auto s = kStandIns.find(model); s != kStandIns.end())
    options.model = s->second;
  if (options.model.empty() && run.value("raw_log_file", json()).is_null() &&
      id.rfind("vllm-llmd-", 0) == 0 && !load_model(model)) {
    // A sweep model whose config.json is not bundled: check must say so and name --model.
    auto facts = read_log_text(run.at("raw_log").get<std::string>(), id);
    ASSERT_TRUE(facts) << id;
    auto r = check_log(*facts, options);
    EXPECT_FALSE(r) << id << " checks without a config.json";
    if (!r) {
      EXPECT_NE(r.message().find("--model"), std::string::npos) << id << ": " << r.message();
    }
    score.gaps.push_back(id + ": no bundled config.json for " + model + " (pass --model)");
    return;
  }
  auto facts = read_log_text(run.at("raw_log").get<std::string>(), id);
  ASSERT_TRUE(facts) << id << ": " << facts.message();
  EXPECT_EQ(facts->engine(), "vllm") << id;
  auto result = check_log(*facts, options);
  const auto logged = recorded(o);

  const int pp = run.contains("pp") && run["pp"].is_number() ? run["pp"].get<int>() : 1;
  if (pp > 1) {
    // Pipeline parallel: num_blocks is the minimum over stages, but the log's memory figures
    // are stage 0's; the last stage holds the sampler and has less. Stage 0 bounds the blocks
    // from above, which is what the prediction must do.
    ASSERT_TRUE(result) << id << ": " << result.message();
    for (const Comparison& c : result->comparisons) {
      if (c.field == "num_gpu_blocks" || c.field == "gpu_kv_cache_size_tokens") {
        ASSERT_TRUE(c.predicted_low) << id << " " << c.field;
        EXPECT_GE(*c.predicted_low, c.logged.as_number()) << id << " " << c.field;
        // check compares it as a bound, and the bound holds.
        EXPECT_TRUE(c.bound && c.match) << id << " " << c.field << ": " << c.note;
      }
    }
    // check says so itself, as a note on the log.
    EXPECT_TRUE(std::any_of(result->consistency.begin(), result->consistency.end(),
                            [](const Finding& f) { return f.code == "log-memory-is-one-stage"; }))
        << id;
    score.gaps.push_back(fmt::format(
        "{}: pipeline parallel {}: num_blocks is the minimum over stages, the log's memory "
        "figures are stage 0's (the prediction bounds the logged blocks from above)",
        id, pp));
    return;
  }

  std::vector<std::string> bad;
  if (!result) {
    bad.push_back("check failed: " + result.message());
  } else {
    std::set<std::string> seen;
    for (const Comparison& c : result->comparisons) {
      const bool required = logged.count(c.field) > 0;
      if (required) {
        seen.insert(c.field);
        if (c.logged.as_number() != logged.at(c.field))
          bad.push_back(fmt::format("{}: check read {}, the corpus recorded {}", c.field,
                                    c.logged.to_string(), logged.at(c.field)));
        if (!c.checked)
          bad.push_back(fmt::format("{}: not checked ({})", c.field, c.note));
        else if (!c.match)
          bad.push_back(fmt::format("{}: logged {}, predicted {} … {}", c.field,
                                    c.logged.to_string(), c.predicted_low.value_or(-1),
                                    c.predicted_high.value_or(-1)));
      } else if (c.checked && !c.match) {
        // Another figure (capture sizes, max_model_len, the KV line): a known mismatch or a
        // failure.
        if (!kOtherMismatches.count({id, c.field}))
          bad.push_back(fmt::format("{}: logged {}, predicted {}", c.field, c.logged.to_string(),
                                    c.predicted.to_string()));
      } else if (c.checked && kOtherMismatches.count({id, c.field})) {
        ADD_FAILURE() << id << " " << c.field << " now matches: remove it from kOtherMismatches";
      }
    }
    for (const auto& [field, value] : logged) {
      if (!seen.count(field))
        bad.push_back(
            fmt::format("{}: the log prints {} but check does not compare it", field, value));
    }
    for (const Finding& f : result->consistency) {
      if (f.severity != Severity::kInfo)
        bad.push_back("the log contradicts itself: " + f.message);
    }
  }
  const bool gap = kKnownGaps.count(id) > 0;
  if (gap) {
    score.gaps.push_back(id + ": " + kKnownGaps.at(id));
    if (bad.empty()) {
      ADD_FAILURE() << id << " now matches: remove it from the known gaps";
    }
    return;
  }
  ++score.checkable;
  if (bad.empty()) {
    ++score.matched;
    for (const auto& [field, value] : logged)
      ++score.figures_matched[field];
  } else {
    score.failing.insert(id);
    std::string all;
    for (const auto& m : bad)
      all += "\n    " + m;
    score.failures.push_back(id + all);
  }
}

void report(const char* what, const Score& s) {
  std::string figures;
  for (const auto& [field, n] : s.figures_matched)
    figures += fmt::format("{}{} {}", figures.empty() ? "" : ", ", field, n);
  std::cout << fmt::format(
      "[vLLM check golden] {}: matched {} / checkable {} of {} runs ({}); {} known gaps\n", what,
      s.matched, s.checkable, s.runs, figures, s.gaps.size());
  for (const auto& g : s.gaps)
    std::cout << "  known gap: " << g << "\n";
  for (const auto& f : s.failures)
    std::cout << "  MISMATCH: " << f << "\n";
}

TEST(VllmCheckGolden, SweepV0190H100) {
  Score s;
  for (const json& run : read_jsonl("vllm-llm-d-sweep-v0.19.0.jsonl"))
    check_run(run, s);
  report("v0.19.0 H100 sweep", s);
  RecordProperty("matched", s.matched);
  RecordProperty("checkable", s.checkable);
  EXPECT_EQ(s.runs, 59);
  EXPECT_EQ(s.matched, s.checkable) << "see the MISMATCH lines above";
  // Every sweep log prints all five figures: at least 30 runs check each of them.
  for (const char* f : kRequired)
    EXPECT_GE(s.figures_matched[f], 30) << f;
}

TEST(VllmCheckGolden, CasesJsonl) {
  Score s;
  for (const json& c : read_jsonl("cases.jsonl")) {
    if (c.at("engine") == "vllm")
      check_run(c, s);
  }
  report("cases.jsonl (vLLM)", s);
  RecordProperty("matched", s.matched);
  RecordProperty("checkable", s.checkable);
  EXPECT_EQ(s.runs, 24);
  EXPECT_EQ(s.matched, s.checkable) << "see the MISMATCH lines above";
  EXPECT_GE(s.checkable, 18);
}

// The V0 excerpt of vLLM issue 12330 names neither the model nor the command: check fails
// with what is missing, and with the command after -- it checks the blocks and concurrency.
TEST(VllmCheckGolden, AV0ExcerptNeedsTheCommandAfterTheSeparator) {
  std::string text;
  for (const json& c : read_jsonl("cases.jsonl")) {
    if (c.at("id") == "vllm-12330-llama3-8b-A100-40GB")
      text = c.at("raw_log");
  }
  ASSERT_FALSE(text.empty());
  auto facts = read_log_text(text, "12330");
  ASSERT_TRUE(facts);
  auto without = check_log(*facts, CheckOptions{});
  ASSERT_FALSE(without);
  EXPECT_NE(without.message().find("the model"), std::string::npos) << without.message();

  CheckOptions o;
  o.gpu = "a100-40gb";
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.command = *split_command_line("vllm serve meta-llama/Meta-Llama-3-8B --max-model-len 8192");
  auto r = check_log(*facts, o);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->mismatched(), 0u);
  std::map<std::string, const Comparison*> by;
  for (const Comparison& c : r->comparisons)
    by[c.field] = &c;
  ASSERT_TRUE(by.count("num_gpu_blocks"));
  EXPECT_EQ(by["num_gpu_blocks"]->logged.as_number(), 5691);
  EXPECT_TRUE(by["num_gpu_blocks"]->checked && by["num_gpu_blocks"]->match);
  ASSERT_TRUE(by.count("maximum_concurrency"));
  EXPECT_DOUBLE_EQ(by["maximum_concurrency"]->logged.as_number(), 11.12);
  // The concurrency is for the typed 8192 tokens, not the model's 131,072.
  EXPECT_TRUE(by["maximum_concurrency"]->checked && by["maximum_concurrency"]->match);
  EXPECT_EQ(r->scenario.command.find("--max-model-len")->value(), "8192");
}

}  // namespace
}  // namespace servescope
