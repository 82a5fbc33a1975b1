// servescope's resolved SGLang settings against SGLang's own: every case of
// tests/oracle/sglang-RELEASE.jsonl was resolved by that release's real
// `sglang.srt.server_args.ServerArgs` on a CPU with the GPU faked (tools/engine-sync/oracle.py;
// each file's first line names the command and seed that made it). Here the same launch
// command, model and GPU go through servescope's planner for `--engine sglang@RELEASE`, and
// every recorded figure servescope models is compared. A disagreement is either a named known
// gap (tests/oracle/known-gaps.tsv: the release, figure and case condition, with the cause) or
// a failure; a known gap that no longer disagrees fails too, so the list stays true.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.h"
#include "diagnose/scenario_builder.h"
#include "tests/oracle/oracle_cases.h"

namespace servescope::testing {
namespace {

using nlohmann::json;

struct Figure {
  std::string engine_key;          // the field of the oracle record
  std::vector<std::string> nodes;  // servescope's derivation nodes, the first present wins
  bool numeric_tolerance = false;  // a float the engine rounds (mem_fraction_static)
  // An engine value ServerArgs leaves for later (kv_cache_dtype "auto" is resolved at model
  // load, after the record): not a figure of this record.
  std::string unresolved_value;
  // Compared only where servescope's node exists: mamba_strategy only for hybrid (mamba)
  // models, the only ones it sizes a pool for.
  bool only_with_node = false;
};

const std::vector<Figure>& figures() {
  static const std::vector<Figure> kFigures = {
      {"mem_fraction_static", {"mem_fraction_static"}, true},
      {"chunked_prefill_size", {"chunked_prefill_size"}},
      {"page_size", {"page_size.resolved"}},
      {"attention_backend", {"attention_backend.resolved"}},
      {"kv_cache_dtype", {"kv_cache_dtype.resolved"}, false, "auto"},
      {"cuda_graph_decode_max_bs", {"cuda_graph_max_bs_decode.resolved", "cuda_graph_max_bs"}},
      {"cuda_graph_decode_bs", {"cuda_graph_bs_decode.resolved", "cuda_graph_bs"}},
      {"cuda_graph_prefill_backend", {"cuda_graph_backend_prefill.resolved"}},
      {"cuda_graph_prefill_max_bs", {"cuda_graph_max_bs_prefill.resolved"}},
      {"cuda_graph_prefill_bs", {"cuda_graph_bs_prefill.resolved"}},
      {"speculative_num_steps", {"speculative_num_steps.resolved"}},
      {"speculative_eagle_topk", {"speculative_eagle_topk.resolved"}},
      {"speculative_num_draft_tokens", {"speculative_num_draft_tokens.resolved"}},
      {"max_running_requests", {"max_running_requests.requested"}},
      {"mamba_strategy", {"mamba_radix_cache_strategy.resolved"}, false, "", true},
  };
  return kFigures;
}

TEST(SglangOracle, EveryRecordedFigureAgreesOrIsANamedGap) {
  const std::vector<OracleFile> files = read_oracle_files("sglang");
  ASSERT_FALSE(files.empty()) << "no tests/oracle/sglang-*.jsonl: run `make oracle`";
  Comparison cmp;
  for (const OracleFile& file : files) {
    for (const json& c : file.cases) {
      if (c.contains("error"))
        continue;  // the engine refused the command: no figures (counted in the summary)
      const std::string key = case_key(file.release, c);
      auto plan = plan_case("sglang", file.release, c);
      if (!plan) {
        cmp.unexplained.push_back(key + ": servescope could not plan it: " + plan.message());
        continue;
      }
      const json& resolved = c["resolved"];
      for (const Figure& f : figures()) {
        if (!resolved.contains(f.engine_key))
          continue;
        const Node* ours = nullptr;
        for (const std::string& id : f.nodes) {
          if ((ours = plan->graph.find(id)) != nullptr)
            break;
        }
        const json& theirs = resolved[f.engine_key];
        if ((ours == nullptr && f.only_with_node) ||
            (!f.unresolved_value.empty() && theirs == f.unresolved_value))
          continue;
        std::string a = canonical(theirs);
        // 0.5.9's opt-in piecewise prefill graph is the backend later releases name
        // tc_piecewise (the oracle records it as "piecewise").
        if (f.engine_key == "cuda_graph_prefill_backend" && a == "piecewise")
          a = "tc_piecewise";
        const std::string b = ours == nullptr ? "None" : canonical(ours->value);
        bool match = a == b;
        if (!match && f.numeric_tolerance && theirs.is_number() && ours != nullptr &&
            ours->value.is_number())
          match = std::fabs(theirs.get<double>() - ours->value.as_number()) < 1e-9;
        cmp.record(file.release, f.engine_key, c, a, match, [&] {
          return fmt::format("{}: {} engine {} servescope {}{}", key, f.engine_key, a, b,
                             ours == nullptr ? "" : " (" + ours->why + ")");
        });
      }
    }
  }
  cmp.finish("sglang", "", "SERVESCOPE_ORACLE_DUMP");
}

// The pool arithmetic (0.5.16+): the oracle drove the release's KVCacheConfigurator with a
// byte budget per GPU in place of the measured free memory (tools/engine-sync/oracle_pool.py).
// servescope's budget is A − P·(1 − mem_fraction_static) − the multimodal reservation (R3.4),
// so the case is planned with calibration figures that give exactly that budget: P the card's
// memory less 1 GiB, and A = budget + reservation + P·(1 − mfs) with servescope's own figures.
TEST(SglangOracle, PoolFiguresFromTheSameBudgetAgreeOrAreNamedGaps) {
  const std::vector<OracleFile> files = read_oracle_files("sglang");
  ASSERT_FALSE(files.empty());
  struct PoolFigure {
    std::string engine_key;
    std::string node;
  };
  const std::vector<PoolFigure> pool_figures = {
      {"cell_bytes_per_token", "kv_cell_bytes"},
      {"max_total_num_tokens", "max_total_num_tokens"},
      {"max_mamba_cache_size", "max_mamba_cache_size"},
      {"max_running_requests", "max_running_requests"},
  };
  Comparison cmp;
  for (const OracleFile& file : files) {
    for (const json& c : file.cases) {
      if (!c.contains("pool") || c["pool"].contains("error") || c.contains("error"))
        continue;
      const json& pool = c["pool"];
      const std::string key = case_key(file.release, c);
      auto first = plan_case("sglang", file.release, c);
      if (!first) {
        cmp.unexplained.push_back(key + ": servescope could not plan it: " + first.message());
        continue;
      }
      const double mfs = first->graph.value("mem_fraction_static").as_number();
      const double p = c["gpu_memory_mib"].get<double>() / 1024.0 - 1.0;
      const double budget = pool["kv_budget_bytes"].get<double>() / (1024.0 * 1024.0 * 1024.0);
      // One byte more than the budget: the generated budgets are multiples of the cell size, so
      // the engine's floor sits exactly on a boundary that A − P·(1 − mfs) in doubles can miss
      // by a rounding error of ~1e-15 GiB.
      constexpr double kOneByteGib = 1.0 / (1024.0 * 1024.0 * 1024.0);
      // The oracle's budget is what reaches the mamba solve and the cell arithmetic: after the
      // multimodal reservation (0.5.18+, S23), which servescope subtracts from A − slack.
      const Node* mm = first->graph.find("mm_reservation_gib");
      const double reservation = mm == nullptr ? 0.0 : mm->value.as_number();
      const double free_after = budget + reservation + kOneByteGib + p * (1 - mfs);
      if (free_after > p) {
        // The generated budget (up to 60% of the card) plus this fraction's headroom exceeds the
        // card: no real start has it, and servescope rejects the calibration as impossible.
        ++cmp.by_release[file.release]["pool (budget impossible on this card: not compared)"]
              .compared;
        continue;
      }
      auto plan = plan_case("sglang", file.release, c, p, free_after);
      if (!plan) {
        cmp.unexplained.push_back(key +
                                  ": servescope could not plan it calibrated: " + plan.message());
        continue;
      }
      for (const PoolFigure& f : pool_figures) {
        if (!pool.contains(f.engine_key) || pool[f.engine_key].is_null())
          continue;
        const Node* ours = plan->graph.find(f.node);
        const std::string a = canonical(pool[f.engine_key]);
        const std::string b = ours == nullptr ? "None" : canonical(ours->value);
        cmp.record(file.release, "pool." + f.engine_key, c, a, a == b, [&] {
          return fmt::format("{}: pool.{} engine {} servescope {}{}", key, f.engine_key, a, b,
                             ours == nullptr ? "" : " (" + ours->why + ")");
        });
      }
    }
  }
  cmp.finish("sglang", "pool.", "SERVESCOPE_ORACLE_POOL_DUMP");
}

}  // namespace
}  // namespace servescope::testing
