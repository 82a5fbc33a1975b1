// How far an uncalibrated vLLM prediction is from the logged truth: each checkable run of the
// v0.19.0 H100 sweep (the corpus at $SERVESCOPE_CORPUS) planned from its command alone (no log
// figures), its KV memory and token count against the log, and each non-KV term against the term
// the log states. docs/accuracy.md renders this test's figures (`make accuracy`); the bounds
// below are what it promises, so a rule change that makes the estimate worse fails here.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

#include "catalog/model_catalog.h"
#include "tests/accuracy_record.h"
#include "tests/golden/vllm_sweep_runs.h"
#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

struct Row {
  std::string id;
  double kv_error;                        // predicted / logged − 1, GPU KV cache size in tokens
  double kv_gib;                          // predicted − logged "Available KV cache memory", GiB
  double weights, activation, non_torch;  // predicted − logged, GiB
};

std::optional<double> number(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number())
    return std::nullopt;
  return it->get<double>();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

TEST(VllmUncalibrated, SweepV0190H100) {
  std::vector<Row> rows;
  for (const json& run : read_jsonl("vllm-llm-d-sweep-v0.19.0.jsonl")) {
    const json args = non_default_args(run.at("server_args"));
    if (args.is_null() || run.value("pp", 1) > 1)
      continue;
    VllmRun r;
    r.command = command_of(args);
    r.engine = "vllm@" + run.at("engine_version").get<std::string>();
    // A stand-in config has the checkpoint's attention but not its quantization, so its weights
    // are not the checkpoint's: only the calibrated test can use those runs.
    const bool stand_in = std::any_of(std::begin(kStandIns), std::end(kStandIns),
                                      [&](const StandIn& s) { return run.at("model") == s.model; });
    if (stand_in || !load_model(run.at("model").get<std::string>()))
      continue;
    const json& o = run.at("outcomes");
    const auto tokens = number(o, "gpu_kv_cache_size_tokens");
    auto plan = try_vllm_plan(r);
    ASSERT_TRUE(plan) << run.at("id") << ": " << plan.message();
    const Node* predicted = plan->graph.find("gpu_kv_cache_size_tokens");
    if (!tokens || predicted == nullptr)
      continue;
    auto term = [&](const char* node, const char* logged) {
      const Node* n = plan->graph.find(node);
      return (n ? n->value.as_number() : 0.0) - number(o, logged).value_or(0.0);
    };
    rows.push_back({run.at("id"), predicted->value.as_number() / *tokens - 1,
                    term("available_kv_cache_memory_gib", "available_kv_cache_gib"),
                    term("weights_gib", "weight_mem_per_gpu_gb"),
                    term("activation_peak_gib", "peak_activation_gib"),
                    term("non_torch_gib", "non_torch_gib")});
  }
  ASSERT_GE(rows.size(), 30u) << "fewer sweep runs could be planned than before";
  std::vector<double> abs_kv, abs_gib, abs_w, abs_a, abs_n;
  std::cout << fmt::format("{:<66} {:>8} {:>7} {:>7} {:>7} {:>7}\n",
                           "run (uncalibrated, vllm@0.19.0)", "KV tok", "ΔKV GiB", "ΔW", "ΔA",
                           "ΔN");
  for (const Row& r : rows) {
    std::cout << fmt::format("{:<66} {:>+7.1f}% {:>+7.2f} {:>+7.2f} {:>+7.2f} {:>+7.2f}\n", r.id,
                             100 * r.kv_error, r.kv_gib, r.weights, r.activation, r.non_torch);
    abs_kv.push_back(std::fabs(r.kv_error));
    abs_gib.push_back(std::fabs(r.kv_gib));
    abs_w.push_back(std::fabs(r.weights));
    abs_a.push_back(std::fabs(r.activation));
    abs_n.push_back(std::fabs(r.non_torch));
  }
  const double worst = *std::max_element(abs_kv.begin(), abs_kv.end());
  std::cout << fmt::format(
      "{} runs: |KV tokens error| median {:.1f}%, worst {:.1f}%; |ΔKV| median {:.2f} GiB, worst "
      "{:.2f} GiB; |ΔW| median {:.2f} GiB, |ΔA| median {:.2f} GiB, |ΔN| median {:.2f} GiB\n",
      rows.size(), 100 * median(abs_kv), 100 * worst, median(abs_gib),
      *std::max_element(abs_gib.begin(), abs_gib.end()), median(abs_w), median(abs_a),
      median(abs_n));
  record_accuracy("vllm-uncalibrated-v0.19.0-sweep",
                  {{"kind", "uncalibrated"},
                   {"runs", rows.size()},
                   {"kv_tokens_error_median", median(abs_kv)},
                   {"kv_tokens_error_worst", worst},
                   {"kv_gib_median", median(abs_gib)},
                   {"kv_gib_worst", *std::max_element(abs_gib.begin(), abs_gib.end())},
                   {"weights_gib_median", median(abs_w)},
                   {"activation_gib_median", median(abs_a)},
                   {"non_torch_gib_median", median(abs_n)}});
  // What docs/accuracy.md promises for an uncalibrated prediction of a dense or small-MoE model
  // on a catalog GPU with the release's own rules ("What an uncalibrated vLLM prediction
  // promises").
  EXPECT_LE(median(abs_kv), 0.01);
  EXPECT_LE(worst, 0.20);
  EXPECT_LE(*std::max_element(abs_gib.begin(), abs_gib.end()), 3.5);
}

}  // namespace
}  // namespace servescope::testing
