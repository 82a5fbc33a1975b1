// servescope's SGLang KV pool against SGLang's own, architecture by architecture: every case of
// tests/oracle/layouts/sglang-RELEASE.jsonl is a config vLLM's model code was built from
// (vllm_layouts.py) whose architecture that SGLang release lists, resolved by the release's own
// ServerArgs at tp 1 and tp 2 on a faked H100, its KVCacheConfigurator driven with a fixed byte
// budget per GPU (tools/engine-sync/sglang_layouts.py, the machinery of oracle_pool.py). Here
// servescope plans the same config with calibration figures that give the same budget, as
// sglang_oracle_test.cc does for its pool cases, and compares what SGLang keeps per token, the
// tokens and requests the budget gives and the mamba state slots. A disagreement is a named gap
// (data/model-layout-gaps.tsv, engine sglang) or a failure; a named gap that every case agrees
// on fails too. Configs servescope reads as sliding-window ones are not compared: the oracle's
// hand-built configurator has no hybrid-SWA pool.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalog/embedded_data.h"
#include "catalog/model_layouts.h"
#include "tests/oracle/oracle_cases.h"

namespace servescope::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct NamedGap {
  std::string architecture, figure;
  int used = 0;
};

// The gaps of the figures this test compares: SGLang's own, and those named for every engine
// (weights, which both engines' plans share, are held by vllm_layouts_test.cc).
std::vector<NamedGap> sglang_gaps() {
  std::vector<NamedGap> out;
  for (const auto& cols : embedded_tsv("model-layout-gaps.tsv")) {
    if (cols.size() >= 4 && cols[0] == "sglang")
      out.push_back({std::string(cols[1]), std::string(cols[2])});
  }
  return out;
}

// The layout family servescope reads the case's config with, if any row covers it.
std::optional<LayoutFamily> family_of(const json& config) {
  const std::string arch = config.contains("architectures") && !config["architectures"].empty()
                               ? config["architectures"][0].get<std::string>()
                               : "";
  return layout_family(arch, config.value("model_type", ""));
}

// The pool figures a case records and the derivation node servescope gives each.
const std::vector<std::pair<std::string, std::string>>& pool_figures() {
  static const std::vector<std::pair<std::string, std::string>> kFigures = {
      {"cell_bytes_per_token", "kv_cell_bytes"},
      {"max_total_num_tokens", "max_total_num_tokens"},
      {"max_mamba_cache_size", "max_mamba_cache_size"},
      {"max_running_requests", "max_running_requests"},
      {"swa_max_total_num_tokens", "swa_max_total_num_tokens"},
  };
  return kFigures;
}

// Every case of every file, with the named gaps that explain disagreements.
class PoolComparison {
 public:
  PoolComparison() : gaps_(sglang_gaps()) { fs::create_directories(dir_); }
  ~PoolComparison() { fs::remove_all(dir_); }

  void compare(const std::string& release, json c) {
    const std::string arch = c["architecture"].get<std::string>();
    auto& tally = by_release_[release];
    if (!family_of(c["config"])) {
      ++tally["not compared: servescope has no layout row"].compared;
      return;
    }
    if (c.contains("error") || !c.contains("pool") || c["pool"].contains("error")) {
      ++tally["not compared: the engine did not size a pool"].compared;
      return;
    }
    const fs::path model = dir_ / c["model"].get<std::string>();
    fs::create_directories(model);
    std::ofstream(model / "config.json") << c["config"].dump();
    c["model"] = model.string();
    const std::string key = fmt::format("{} {} ({})", release, arch, case_argv(c));
    auto first = plan_case("sglang", release, c);
    if (!first) {
      agrees_[arch] = false;
      if (named(arch, "plan"))
        ++tally["not compared: servescope refuses it (a named gap)"].compared;
      else
        unexplained_.push_back(key + ": servescope could not plan it: " + first.message());
      return;
    }
    auto plan = plan_case("sglang", release, c, usable_memory_gib(c), free_after_load(c, *first));
    if (!plan) {
      unexplained_.push_back(key + ": servescope could not plan it calibrated: " + plan.message());
      agrees_[arch] = false;
      return;
    }
    agrees_.try_emplace(arch, true);
    if (c.contains("hf_param_bytes") && case_argv(c) == "--tp-size 1")
      compare_weights(c, *first, arch, key, tally);
    for (const auto& [engine_key, node] : pool_figures()) {
      const json& pool = c["pool"];
      if (!pool.contains(engine_key) || pool[engine_key].is_null())
        continue;
      const Node* ours = plan->graph.find(node);
      const std::string a = canonical(pool[engine_key]);
      const std::string b = ours == nullptr ? "None" : canonical(ours->value);
      record(tally[engine_key], arch, engine_key, a == b,
             fmt::format("{}: {} engine {} servescope {}", key, engine_key, a, b));
    }
  }

  void report() const {
    print_agreement("sglang layouts", by_release_);
    std::vector<std::string> exact;
    for (const auto& [arch, ok] : agrees_) {
      if (ok)
        exact.push_back(arch);
    }
    std::printf("  %zu architectures agree on every figure: %s\n", exact.size(),
                fmt::format("{}", fmt::join(exact, " ")).c_str());
    record_accuracy("sglang-layouts-architectures", {{"kind", "architectures"},
                                                     {"oracle", "sglang layouts"},
                                                     {"exact", exact},
                                                     {"compared", agrees_.size()}});
    for (const std::string& u : unexplained_)
      ADD_FAILURE() << u;
    for (const NamedGap& g : gaps_) {
      if (g.used == 0)
        ADD_FAILURE() << "data/model-layout-gaps.tsv: sglang " << g.architecture << " " << g.figure
                      << " is named as a gap but every case agrees: remove the row";
    }
  }

 private:
  // P: the card's memory less 1 GiB, as sglang_oracle_test.cc's pool cases use.
  static double usable_memory_gib(const json& c) {
    return c["gpu_memory_mib"].get<double>() / 1024.0 - 1.0;
  }

  // The free memory after the load that gives servescope the engine's budget:
  // A − P·(1 − mfs) − the multimodal reservation (R3.4) = the case's bytes (+1 byte of slack).
  static double free_after_load(const json& c, const Plan& first) {
    const double mfs = first.graph.value("mem_fraction_static").as_number();
    const double budget = c["pool"]["kv_budget_bytes"].get<double>() / (1024.0 * 1024.0 * 1024.0);
    const Node* mm = first.graph.find("mm_reservation_gib");
    const double reservation = mm == nullptr ? 0.0 : mm->value.as_number();
    return budget + reservation + 1.0 / (1024.0 * 1024.0 * 1024.0) +
           usable_memory_gib(c) * (1 - mfs);
  }

  // Weights, for architectures vLLM no longer builds: transformers' own model class's parameter
  // bytes (hf_default_configs.py), at tp 1, within 1% as vllm_layouts_test.cc holds them.
  void compare_weights(const json& c, const Plan& first, const std::string& arch,
                       const std::string& key, std::map<std::string, Tally>& tally) {
    const double theirs = c["hf_param_bytes"].get<double>();
    const Node* w = first.graph.find("weights_gib");  // the estimate, before calibration
    const double ours = w == nullptr ? 0 : w->value.as_number() * 1024.0 * 1024 * 1024;
    record(tally["weights (transformers' model class)"], arch, "weights",
           std::fabs(ours - theirs) <= 0.01 * theirs,
           fmt::format("{}: weights transformers {:.0f} servescope {:.0f}", key, theirs, ours));
  }

  void record(Tally& t, const std::string& arch, const std::string& figure, bool match,
              const std::string& disagreement) {
    ++t.compared;
    if (match) {
      ++t.matched;
      return;
    }
    agrees_[arch] = false;
    if (named(arch, figure))
      ++t.known;
    else
      unexplained_.push_back(disagreement);
  }

  // Whether data/model-layout-gaps.tsv names `figure` of `arch` for SGLang (and counts the use).
  bool named(const std::string& arch, const std::string& figure) {
    bool found = false;
    for (NamedGap& g : gaps_) {
      if (g.architecture == arch && (g.figure == figure || g.figure == "*")) {
        ++g.used;
        found = true;
      }
    }
    return found;
  }

  const fs::path dir_ = fs::temp_directory_path() / "servescope-sglang-layouts-test";
  std::vector<NamedGap> gaps_;
  std::vector<std::string> unexplained_;
  std::map<std::string, std::map<std::string, Tally>> by_release_;
  std::map<std::string, bool> agrees_;  // architecture -> every figure of every case agreed
};

TEST(SglangLayouts, EveryModelledArchitecturesPoolAgreesWithTheEnginesOwn) {
  const auto files = read_oracle_files("sglang", "layouts");
  ASSERT_FALSE(files.empty());
  PoolComparison cmp;
  for (const OracleFile& file : files) {
    for (const json& c : file.cases)
      cmp.compare(file.release, c);
  }
  cmp.report();
}

}  // namespace
}  // namespace servescope::testing
