// Golden tests on the real vLLM logs of the corpus at $SERVESCOPE_CORPUS: the 59 runs of the
// v0.19.0 H100 sweep (vllm-llm-d-sweep-v0.19.0.jsonl) and the vLLM cases of cases.jsonl. Each run's
// logged memory figures are fed to the plan as calibration, and the predicted "GPU KV cache size",
// "Maximum concurrency", num_gpu_blocks (the DEBUG cache_config_info line) and "Available KV cache
// memory" must match the log inside the interval the rounding of the logged figures allows. The
// plan is monotone in the KV memory, so the interval is the plan at the two rounding bounds:
//   from the profile:  T ± r, W ∓ r, A ∓ r, N ∓ r  (r = half the last printed digit)
//   from the KV line:  "Available KV cache memory" ± r
// Where the two bounds give the same number, the log must equal it exactly. max_num_seqs,
// max_num_batched_tokens and the capture sizes must match exactly.
//
// Runs that cannot be checked are listed as known gaps with the reason; a stand-in config
// (same attention shape, quantization or fine-tuning changes only the weights, whose memory
// comes from the log) is used where named below.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "catalog/model_catalog.h"
#include "core/units.h"
#include "tests/golden/corpus.h"
#include "tests/golden/vllm_sweep_runs.h"
#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

using nlohmann::json;

// Half of the last printed digit of a logged GiB figure: format_gib prints round(x, 2).
constexpr double kRounding = 0.005;

struct Interval {
  double lo = 0, hi = 0;
  bool contains(double v, double slack = 0) const { return v >= lo - slack && v <= hi + slack; }
  bool exact() const { return lo == hi; }
};

struct Bounds {
  Interval kv_gib, blocks, tokens, concurrency;
};

Result<Bounds> bounds(VllmRun lo, VllmRun hi) {
  auto a = try_vllm_plan(lo);
  if (!a)
    return a.error();
  auto b = try_vllm_plan(hi);
  if (!b)
    return b.error();
  if (!a->starts || !b->starts)
    return fail("the plan says vLLM would not start: " + (a->starts ? b : a)->startup_error);
  auto iv = [&](const char* id) {
    return Interval{a->graph.value(id).as_number(), b->graph.value(id).as_number()};
  };
  Bounds out;
  out.kv_gib = Interval{a->graph.value("available_kv_cache_memory_bytes").as_number() / kGiB,
                        b->graph.value("available_kv_cache_memory_bytes").as_number() / kGiB};
  out.blocks = iv("num_gpu_blocks");
  out.tokens = iv("gpu_kv_cache_size_tokens");
  out.concurrency = iv("maximum_concurrency");
  return out;
}

struct Logged {
  std::optional<double> kv_gib, blocks, tokens, concurrency;
};

// Compares a prediction interval with the log; returns the mismatches, one line each.
std::vector<std::string> compare(const Bounds& b, const Logged& log, const std::string& how) {
  std::vector<std::string> bad;
  auto check = [&](const char* what, const Interval& iv, std::optional<double> v, double slack) {
    if (!v)
      return;
    if (!iv.contains(*v, slack)) {
      bad.push_back(fmt::format("{} {}: log {} outside [{}, {}]", how, what, *v, iv.lo, iv.hi));
    } else if (iv.exact() && slack == 0 && *v != iv.lo) {
      bad.push_back(fmt::format("{} {}: log {} != {}", how, what, *v, iv.lo));
    }
  };
  // The KV line is itself rounded to 2 decimals.
  check("available KV GiB", b.kv_gib, log.kv_gib, 0.005);
  check("num_gpu_blocks", b.blocks, log.blocks, 0);
  check("GPU KV cache size", b.tokens, log.tokens, 0);
  check("maximum concurrency", b.concurrency, log.concurrency, 0.005);  // printed %.2f
  return bad;
}

struct Score {
  int runs = 0, checkable = 0, matched = 0, matched_stand_in = 0;
  std::vector<std::string> gaps;
  std::vector<std::string> failures;
};

std::optional<double> num(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null() || !it->is_number())
    return std::nullopt;
  return it->get<double>();
}

// One run in the sweep's schema (the sweep file and the llm-d cases of cases.jsonl).
void check_sweep_run(const json& run, Score& score) {
  ++score.runs;
  const std::string id = run.at("id");
  const std::string model = run.at("model");
  const json& o = run.at("outcomes");
  const json args = non_default_args(run.at("server_args"));
  if (args.is_null()) {
    score.gaps.push_back(id + ": the non-default args line is not readable");
    return;
  }
  VllmRun base;
  base.command = command_of(args);
  base.engine = "vllm@" + run.at("engine_version").get<std::string>();
  std::string stand_in_why;
  for (const StandIn& s : kStandIns) {
    if (model == s.model) {
      base.model = s.config;
      stand_in_why = s.why;
    }
  }
  if (base.model.empty()) {
    if (auto shape = load_model(model); !shape) {
      std::string why = shape.message();
      for (const MissingConfig& m : kMissingConfigs) {
        if (model == m.model)
          why = fmt::format("{} not bundled: {}", model, m.why);
      }
      score.gaps.push_back(fmt::format("{}: no usable config.json ({})", id, why));
      return;
    }
  }
  if (run.value("pp", 1) > 1) {
    // Stage 0's KV memory still bounds the blocks from above: check that much.
    VllmRun upper = base;
    upper.kv_memory = *num(o, "available_kv_cache_gib") + kRounding;
    auto p = try_vllm_plan(upper);
    const double bound = p ? p->graph.value("num_gpu_blocks").as_number() : -1;
    const double logged = num(o, "num_gpu_blocks").value_or(0);
    EXPECT_GE(bound, logged) << id << ": stage 0's memory must bound the blocks from above";
    score.gaps.push_back(fmt::format(
        "{}: pipeline parallel {} — num_blocks is the minimum over stages, but the log's memory "
        "figures (W, A, N, KV) are stage 0's; the last stage holds the sampler and has less "
        "(stage 0 bounds it: {} ≥ logged {})",
        id, run.value("pp", 1), bound, logged));
    return;
  }
  ++score.checkable;
  // "78.68/79.19": free memory at the init snapshot / total.
  const std::string startup = o.at("free_memory_on_startup_gib");
  const double free = std::stod(startup.substr(0, startup.find('/')));
  const double total = std::stod(startup.substr(startup.find('/') + 1));
  const double r = kRounding;
  base.free = free;
  VllmRun lo = base, hi = base;
  lo.total = total - r;
  hi.total = total + r;
  lo.weights = *num(o, "weight_mem_per_gpu_gb") + r;
  hi.weights = *num(o, "weight_mem_per_gpu_gb") - r;
  lo.activation = *num(o, "peak_activation_gib") + r;
  hi.activation = std::max(0.0, *num(o, "peak_activation_gib") - r);
  lo.non_torch = *num(o, "non_torch_gib") + r;
  hi.non_torch = std::max(0.0, *num(o, "non_torch_gib") - r);
  Logged log;
  log.kv_gib = num(o, "available_kv_cache_gib");
  log.blocks = num(o, "num_gpu_blocks");
  log.tokens = num(o, "gpu_kv_cache_size_tokens");
  log.concurrency = num(o.at("maximum_concurrency"), "x");
  std::vector<std::string> bad;
  if (auto b = bounds(lo, hi); !b) {
    bad.push_back("profile: " + b.message());
  } else {
    for (auto& m : compare(*b, log, "profile"))
      bad.push_back(m);
  }
  VllmRun kv_lo = base, kv_hi = base;
  kv_lo.total = kv_hi.total = total;
  kv_lo.kv_memory = *log.kv_gib - r;
  kv_hi.kv_memory = *log.kv_gib + r;
  if (auto b = bounds(kv_lo, kv_hi); !b) {
    bad.push_back("KV line: " + b.message());
  } else {
    Logged without_kv = log;
    without_kv.kv_gib.reset();
    for (auto& m : compare(*b, without_kv, "KV line"))
      bad.push_back(m);
  }
  // Exact: scheduler limits, the context, the capture sizes.
  Plan p = vllm_plan(hi);
  auto exact = [&](const char* what, double predicted, std::optional<double> v) {
    if (v && predicted != *v)
      bad.push_back(fmt::format("{}: predicted {}, log {}", what, predicted, *v));
  };
  exact("max_num_seqs", p.graph.value("max_num_seqs").as_number(), num(o, "max_num_seqs"));
  exact("max_num_batched_tokens", p.graph.value("max_num_batched_tokens").as_number(),
        num(o, "max_num_batched_tokens"));
  exact("tokens per request", p.graph.value("max_model_len").as_number(),
        num(o.at("maximum_concurrency"), "tokens_per_request"));
  if (auto sizes = o.find("cudagraph_capture_sizes"); sizes != o.end() && sizes->is_array()) {
    IntList logged;
    for (const json& s : *sizes)
      logged.push_back(s.get<std::int64_t>());
    if (p.graph.value("cudagraph_capture_sizes").as_list() != logged)
      bad.push_back("capture sizes differ from the config line's cudagraph_capture_sizes");
  }
  if (bad.empty()) {
    ++score.matched;
    if (!stand_in_why.empty())
      ++score.matched_stand_in;
  } else {
    std::string all;
    for (const auto& m : bad)
      all += "\n    " + m;
    score.failures.push_back(fmt::format("{} ({}){}", id, base.command, all));
  }
}

void report(const char* what, const Score& s) {
  std::cout << fmt::format(
      "[vLLM golden] {}: matched {} / checkable {} of {} runs ({} of them through a stand-in "
      "config); {} known gaps\n",
      what, s.matched, s.checkable, s.runs, s.matched_stand_in, s.gaps.size());
  for (const auto& g : s.gaps)
    std::cout << "  known gap: " << g << "\n";
  for (const auto& f : s.failures)
    std::cout << "  MISMATCH: " << f << "\n";
}

TEST(VllmCorpusGolden, SweepV0190H100) {
  Score s;
  for (const json& run : read_jsonl("vllm-llm-d-sweep-v0.19.0.jsonl"))
    check_sweep_run(run, s);
  report("v0.19.0 H100 sweep", s);
  EXPECT_EQ(s.runs, 59);
  EXPECT_EQ(s.matched, s.checkable) << "see the MISMATCH lines above";
  // The sweep's known gaps are models without a usable config (kMissingConfigs) and the two
  // pipeline-parallel runs; fewer checkable runs means a regression (a model stopped loading).
  EXPECT_GE(s.checkable, 42);
}

// The cases of cases.jsonl that are not in the sweep's schema, each from its own log format.
struct Case {
  const char* id;
  VllmRun run;  // the command and engine; calibration filled from the log below
  const char* stand_in_why = "";
  Logged log;
  double kv_rounding = 0.005;
  bool fails = false;  // the logged run failed at startup
};

TEST(VllmCorpusGolden, CasesJsonl) {
  Score s;
  // The llm-d runs in cases.jsonl share the sweep's schema.
  std::map<std::string, json> by_id;
  for (const json& c : read_jsonl("cases.jsonl")) {
    if (c.at("engine") != "vllm")
      continue;
    by_id[c.at("id")] = c;
    if (c.at("id").get<std::string>().rfind("vllm-llmd-", 0) == 0)
      check_sweep_run(c, s);
  }
  std::vector<Case> cases;
  {
    // V0 engine log (Jan 2025): 11.12 GiB for the KV cache, 5691 blocks, 11.12x.
    Case c{"vllm-12330-llama3-8b-A100-40GB", {}};
    c.run.command = "vllm serve meta-llama/Meta-Llama-3-8B --max-model-len 8192";
    c.run.engine = "vllm@2025-01-15";
    c.run.gpu = "a100-40gb";
    c.run.model = "meta-llama/Llama-3.1-8B-Instruct";
    c.stand_in_why = "Meta-Llama-3-8B has Llama 3.1 8B's attention (32 layers, 8 KV heads of 128)";
    c.log.kv_gib = 11.12;
    c.log.blocks = 5691;
    c.log.concurrency = 11.12;
    cases.push_back(c);
  }
  {
    // RTX 3090, --max-model-len 29000: 1478 blocks hold 23,648 tokens < 29,000: startup fails.
    Case c{"vllm-10517-llama31-8b-rtx3090-29k-fail", {}};
    c.run.command = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 29k";
    c.run.engine = "vllm@2025-01-15";
    c.run.gpu = "rtx-3090";
    c.log.kv_gib = 2.89;
    c.log.blocks = 1478;
    c.log.concurrency = 0.82;
    c.fails = true;
    cases.push_back(c);
  }
  for (const auto& [id, gpu, gmu, tp, kv, tokens, blocks, x, len] :
       std::vector<std::tuple<const char*, const char*, const char*, int, double, double,
                              std::optional<double>, double, const char*>>{
           {"vllm-dennislee22-gpt-oss-120b-4xA100-80GB-tp4-multinode", "a100-80gb", "0.8", 4, 45.32,
            2640144, 330018, 284.25, "16384"},
           {"vllm-dennislee22-qwen2-7b-instruct-2xA100-40GB-tp2-multinode", "a100-40gb", "0.5", 2,
            11.03, 412944, std::nullopt, 25.2, "16384"},
           {"vllm-dennislee22-qwen2-7b-instruct-1xA100-80GB-gmu0.25", "a100-80gb", "0.25", 1, 5.01,
            93872, std::nullopt, 5.73, "16384"},
           {"vllm-dennislee22-qwen2-7b-instruct-2xA100-80GB-tp2-gmu0.25", "a100-80gb", "0.25", 2,
            12.02, 450192, 28137, 27.48, "16384"}}) {
    // v0.10.1.1 V1-engine logs: the KV line, the two headline lines.
    Case c{id, {}};
    const std::string model =
        std::string(id).find("gpt-oss") != std::string::npos ? "gpt-oss-120b" : "Qwen2-7B-Instruct";
    c.run.command = fmt::format(
        "vllm serve {} --tensor-parallel-size {} --gpu-memory-utilization {} --max-model-len {}",
        model, tp, gmu, len);
    c.run.engine = "vllm@0.10.1.1";
    c.run.gpu = gpu;
    c.log.kv_gib = kv;
    c.log.tokens = tokens;
    c.log.blocks = blocks;
    c.log.concurrency = x;
    cases.push_back(c);
  }
  {
    // V0 0.6.6.post1, 8× L40S: InternVL3-78B's language model is Qwen2.5-72B.
    Case c{"vllm-vlmdistill-internvl3-78b-8xL40S-tp8", {}};
    c.run.command =
        "vllm serve /models/internvl3-78b --tensor-parallel-size 8 --max-model-len 8192 "
        "--gpu-memory-utilization 0.92 --dtype bfloat16 --trust-remote-code";
    c.run.engine = "vllm@2025-01-15";
    c.run.gpu = "l40s";
    c.run.model = "Qwen/Qwen2.5-72B-Instruct";
    c.stand_in_why =
        "InternVL3-78B = InternViT-6B (no KV cache) + Qwen2.5-72B, whose attention sizes the KV "
        "cache";
    c.log.kv_gib = 3.09;
    c.log.blocks = 5065;
    c.log.concurrency = 9.89;
    cases.push_back(c);
  }
  for (Case& c : cases) {
    ++s.runs;
    ASSERT_TRUE(by_id.count(c.id)) << c.id << " is not in cases.jsonl";
    ++s.checkable;
    VllmRun lo = c.run, hi = c.run;
    lo.kv_memory = *c.log.kv_gib - c.kv_rounding;
    hi.kv_memory = *c.log.kv_gib + c.kv_rounding;
    std::vector<std::string> bad;
    if (c.fails) {
      auto p = try_vllm_plan(hi);
      if (!p || p->starts || !has_code(*p, "max-model-len-does-not-fit"))
        bad.push_back("expected the plan to refuse: the context does not fit the KV cache");
      auto plo = try_vllm_plan(lo);
      if (p && plo &&
          !Interval{plo->graph.value("num_gpu_blocks").as_number(),
                    p->graph.value("num_gpu_blocks").as_number()}
               .contains(*c.log.blocks)) {
        bad.push_back("num_gpu_blocks outside the rounding interval");
      }
    } else if (auto b = bounds(lo, hi); !b) {
      bad.push_back(b.message());
    } else {
      Logged without_kv = c.log;
      without_kv.kv_gib.reset();
      bad = compare(*b, without_kv, "KV line");
    }
    if (bad.empty()) {
      ++s.matched;
      if (*c.stand_in_why != 0)
        ++s.matched_stand_in;
    } else {
      std::string all;
      for (const auto& m : bad)
        all += "\n    " + m;
      s.failures.push_back(fmt::format("{} ({}){}", c.id, c.run.command, all));
    }
  }
  ++s.runs;
  s.gaps.push_back(
      "vllm-51454-dsv4-flash-0731-8xB200-dp8: DeepSeek V4 (sparse MLA with compression) is not "
      "modelled, and the log excerpt has no GPU KV cache size line");
  report("cases.jsonl (vLLM)", s);
  EXPECT_EQ(s.matched, s.checkable) << "see the MISMATCH lines above";
}

}  // namespace
}  // namespace servescope::testing
