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

struct LayoutsFile {
  std::string release;
  std::vector<json> cases;
};

std::vector<LayoutsFile> read_sglang_layouts() {
  std::vector<LayoutsFile> out;
  const fs::path dir = fs::path(SERVESCOPE_SOURCE_DIR) / "tests" / "oracle" / "layouts";
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("sglang-", 0) != 0 || entry.path().extension() != ".jsonl")
      continue;
    LayoutsFile f;
    f.release = name.substr(7, name.size() - 7 - 6);
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      json j = json::parse(line);
      if (!j.contains("generated_by"))
        f.cases.push_back(std::move(j));
    }
    out.push_back(std::move(f));
  }
  return out;
}

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

TEST(SglangLayouts, EveryModelledArchitecturesPoolAgreesWithTheEnginesOwn) {
  const auto files = read_sglang_layouts();
  ASSERT_FALSE(files.empty());
  const fs::path dir = fs::temp_directory_path() / "servescope-sglang-layouts-test";
  fs::create_directories(dir);
  std::vector<NamedGap> gaps = sglang_gaps();
  std::vector<std::string> unexplained;
  std::map<std::string, std::map<std::string, Tally>> by_release;
  std::map<std::string, bool> agrees;  // architecture -> every figure of every case agreed
  const std::vector<std::pair<std::string, std::string>> figures = {
      {"cell_bytes_per_token", "kv_cell_bytes"},
      {"max_total_num_tokens", "max_total_num_tokens"},
      {"max_mamba_cache_size", "max_mamba_cache_size"},
      {"max_running_requests", "max_running_requests"},
      {"swa_max_total_num_tokens", "swa_max_total_num_tokens"},
  };
  // Whether data/model-layout-gaps.tsv names `figure` of `arch` for SGLang (and counts the use).
  auto named = [&](const std::string& arch, const std::string& figure) {
    bool found = false;
    for (NamedGap& g : gaps) {
      if (g.architecture == arch && (g.figure == figure || g.figure == "*")) {
        ++g.used;
        found = true;
      }
    }
    return found;
  };
  for (const LayoutsFile& file : files) {
    for (json c : file.cases) {
      const std::string arch = c["architecture"].get<std::string>();
      auto& tally = by_release[file.release];
      const auto family = family_of(c["config"]);
      if (!family) {
        ++tally["not compared: servescope has no layout row"].compared;
        continue;
      }
      if (c.contains("error") || !c.contains("pool") || c["pool"].contains("error")) {
        ++tally["not compared: the engine did not size a pool"].compared;
        continue;
      }
      const fs::path model = dir / c["model"].get<std::string>();
      fs::create_directories(model);
      std::ofstream(model / "config.json") << c["config"].dump();
      c["model"] = model.string();
      const std::string key = fmt::format("{} {} ({})", file.release, arch, case_argv(c));
      auto first = plan_case("sglang", file.release, c);
      if (!first) {
        agrees[arch] = false;
        if (named(arch, "plan"))
          ++tally["not compared: servescope refuses it (a named gap)"].compared;
        else
          unexplained.push_back(key + ": servescope could not plan it: " + first.message());
        continue;
      }
      // The same budget as the engine's: A − P·(1 − mfs) − the multimodal reservation (R3.4).
      const double mfs = first->graph.value("mem_fraction_static").as_number();
      const double p = c["gpu_memory_mib"].get<double>() / 1024.0 - 1.0;
      const json& pool = c["pool"];
      const double budget = pool["kv_budget_bytes"].get<double>() / (1024.0 * 1024.0 * 1024.0);
      const Node* mm = first->graph.find("mm_reservation_gib");
      const double reservation = mm == nullptr ? 0.0 : mm->value.as_number();
      const double free_after =
          budget + reservation + 1.0 / (1024.0 * 1024.0 * 1024.0) + p * (1 - mfs);
      auto plan = plan_case("sglang", file.release, c, p, free_after);
      if (!plan) {
        unexplained.push_back(key + ": servescope could not plan it calibrated: " + plan.message());
        agrees[arch] = false;
        continue;
      }
      agrees.try_emplace(arch, true);
      // Weights, for architectures vLLM no longer builds: transformers' own model class's
      // parameter bytes (hf_default_configs.py), at tp 1, within 1% as vllm_layouts_test.cc.
      if (c.contains("hf_param_bytes") && case_argv(c) == "--tp-size 1") {
        const double theirs = c["hf_param_bytes"].get<double>();
        const Node* w = first->graph.find("weights_gib");  // the estimate, before calibration
        const double ours = w == nullptr ? 0 : w->value.as_number() * 1024.0 * 1024 * 1024;
        Tally& t = tally["weights (transformers' model class)"];
        ++t.compared;
        if (std::fabs(ours - theirs) <= 0.01 * theirs) {
          ++t.matched;
        } else {
          agrees[arch] = false;
          if (named(arch, "weights"))
            ++t.known;
          else
            unexplained.push_back(
                fmt::format("{}: weights transformers {:.0f} servescope {:.0f}", key, theirs, ours));
        }
      }
      for (const auto& [engine_key, node] : figures) {
        if (!pool.contains(engine_key) || pool[engine_key].is_null())
          continue;
        const Node* ours = plan->graph.find(node);
        const std::string a = canonical(pool[engine_key]);
        const std::string b = ours == nullptr ? "None" : canonical(ours->value);
        Tally& t = tally[engine_key];
        ++t.compared;
        if (a == b) {
          ++t.matched;
          continue;
        }
        agrees[arch] = false;
        if (named(arch, engine_key))
          ++t.known;
        else
          unexplained.push_back(
              fmt::format("{}: {} engine {} servescope {}", key, engine_key, a, b));
      }
    }
  }
  fs::remove_all(dir);
  print_agreement("sglang layouts", by_release);
  std::vector<std::string> exact;
  for (const auto& [arch, ok] : agrees) {
    if (ok)
      exact.push_back(arch);
  }
  std::printf("  %zu architectures agree on every figure: %s\n", exact.size(),
              fmt::format("{}", fmt::join(exact, " ")).c_str());
  for (const std::string& u : unexplained)
    ADD_FAILURE() << u;
  for (const NamedGap& g : gaps) {
    if (g.used == 0)
      ADD_FAILURE() << "data/model-layout-gaps.tsv: sglang " << g.architecture << " " << g.figure
                    << " is named as a gap but every case agrees: remove the row";
  }
}

}  // namespace
}  // namespace servescope::testing
