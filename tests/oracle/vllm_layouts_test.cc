// servescope's layer layout and weights against vLLM's own model code: every record of
// tests/oracle/layouts/vllm-RELEASE.jsonl is one registered architecture that the release built
// on the meta device from a config (tools/engine-sync/vllm_layouts.py): the KV-cache spec each
// attention or mamba layer returns from get_kv_cache_spec, and the bytes of its parameters.
// servescope plans `vllm serve CONFIG` on that release with the same config and compares, per
// architecture it models (data/model-layouts.tsv):
//   layers.KIND      how many layers have a spec of that kind (full, sliding_window, mla, ...)
//   bytes_per_token.KIND  the cache bytes per token of one attention layer of that kind
//   window           the sliding window of windowed layers
//   state_bytes      the bytes of one mamba layer's state (conv + ssm), unpadded
//   weights          the weight bytes, within 1%
// A disagreement is a named gap (data/model-layout-gaps.tsv: engine, architecture, figure,
// cause), which `models --coverage` reports, or a failure; a vllm row no record shows fails too.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "catalog/embedded_data.h"
#include "catalog/model_layouts.h"
#include "core/text.h"
#include "diagnose/scenario_builder.h"
#include "engines/architecture_coverage.h"
#include "engines/plan.h"
#include "tests/oracle/oracle_cases.h"

namespace servescope::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct Gap {
  std::string architecture, figure, cause;
  int used = 0;
};

std::vector<Gap> vllm_gaps() {
  std::vector<Gap> out;
  for (const auto& cols : embedded_tsv("model-layout-gaps.tsv")) {
    if (cols.size() >= 4 && (cols[0] == "vllm" || cols[0] == "*"))
      out.push_back({std::string(cols[1]), std::string(cols[2]), std::string(cols[3])});
  }
  return out;
}

// vLLM's spec classes as servescope's kv_layers names them.
std::string spec_kind(const std::string& spec_class, const std::string& cache_role) {
  if (cache_role == "indexer")
    return "mla_indexer";  // a sparse-attention indexer's key cache
  if (spec_class.find("Mamba") != std::string::npos)
    return "mamba";
  if (spec_class.find("MLA") != std::string::npos)
    return "mla";
  if (spec_class.find("SlidingWindow") != std::string::npos)
    return "sliding_window";
  if (spec_class.find("ChunkedLocal") != std::string::npos)
    return "chunked_local";
  if (spec_class == "FullAttentionSpec")
    return "full";
  return spec_class;  // a kind servescope has no name for: never equal to one of its counts
}

double dtype_size(const std::string& dtype) {
  static const std::map<std::string, double> kSizes = {
      {"torch.float32", 4}, {"torch.float16", 2}, {"torch.bfloat16", 2}, {"torch.float8_e4m3fn", 1},
      {"torch.uint8", 1},   {"torch.int8", 1},    {"float32", 4},        {"float16", 2},
      {"bfloat16", 2}};
  auto it = kSizes.find(dtype);
  return it == kSizes.end() ? 0 : it->second;
}

// What the engine's record says, per figure (the names of the file header's comment).
std::map<std::string, std::string> engine_figures(const json& record) {
  std::map<std::string, std::string> out;
  std::map<std::string, long long> counts;
  for (const json& group : record["layers"]) {
    const json& spec = group["spec"];
    const std::string kind = spec_kind(spec.value("class", std::string()),
                                       spec.contains("cache_role") && spec["cache_role"].is_string()
                                           ? spec["cache_role"].get<std::string>()
                                           : std::string());
    counts[kind] += group["count"].get<long long>();
    if (kind == "mamba") {
      double bytes = 0;
      for (std::size_t i = 0; i < spec["shapes"].size(); ++i) {
        double elems = 1;
        for (const json& d : spec["shapes"][i])
          elems *= d.get<double>();
        bytes += elems * dtype_size(spec["dtypes"][i].get<std::string>());
      }
      out["state_bytes"] = fmt::format("{:.0f}", bytes);
    } else {
      const double per_token =
          spec["page_size_bytes"].get<double>() / spec["block_size"].get<double>();
      const std::string key = "bytes_per_token." + kind;
      const std::string value = fmt::format("{:.0f}", per_token);
      // Layers of one kind with different shapes: servescope has one shape per kind.
      out[key] = out.count(key) && out[key] != value ? out[key] + "|" + value : value;
      if (kind == "sliding_window" || kind == "chunked_local") {
        const json& w = spec.contains("sliding_window") && !spec["sliding_window"].is_null()
                            ? spec["sliding_window"]
                            : spec["attention_chunk_size"];
        out["window"] = fmt::format("{}", w.get<long long>());
      }
    }
  }
  for (const auto& [kind, n] : counts)
    out["layers." + kind] = std::to_string(n);
  return out;
}

// servescope's plan of the same config: `vllm serve CONFIG` on the release, KV memory given so
// the plan does not depend on a weight estimate fitting a GPU.
Result<Plan> plan_config(const std::string& release, const json& record, int tp,
                         const fs::path& dir) {
  const fs::path path = dir / "config.json";
  std::ofstream(path) << record["config"].dump();
  ScenarioOptions o;
  o.engine = "vllm@" + release;
  o.gpu = "b200";
  o.model = path.string();
  o.kv_memory_gib = 16;
  // The engine built the record with this context (a default config may have less than 4096).
  o.command = {"vllm", "serve", path.string(), "--max-model-len",
               std::to_string(record.value("max_model_len", 4096)), "--tensor-parallel-size",
               std::to_string(tp),
               // The record's KV dtype is the CPU platform's; a GPU's own auto rules (GLM-5's
               // fp8 on SM 10.x) are unit-tested (vllm_sparse_mla_test.cc).
               "--kv-cache-dtype", record.value("dtype", std::string("auto"))};
  auto built = build_scenario(o);
  if (!built)
    return built.error();
  return built->engine->plan(built->scenario);
}

std::map<std::string, std::string> servescope_figures(const Plan& plan) {
  std::map<std::string, std::string> out;
  auto number = [&](const std::string& id) -> std::optional<double> {
    const Node* n = plan.graph.find(id);
    if (n == nullptr || !n->value.is_number())
      return std::nullopt;
    return n->value.as_number();
  };
  if (const Node* layers = plan.graph.find("kv_layers")) {
    // "28 full + 4 sliding_window"
    for (std::string_view part : split(layers->value.as_string(), '+')) {
      const std::string p(trim(part));
      const auto space = p.find(' ');
      if (space != std::string::npos)
        out["layers." + p.substr(space + 1)] = p.substr(0, space);
    }
  }
  // Bytes per token of each attention kind (a model whose layers all keep a recurrent state
  // has none).
  for (const char* kind : {"full", "mla", "mla_indexer", "sliding_window", "chunked_local"}) {
    if (auto b = number(fmt::format("kv_bytes_per_token.{}", kind)))
      out[fmt::format("bytes_per_token.{}", kind)] = fmt::format("{:.0f}", *b);
  }
  if (auto window = number("kv_window"))
    out["window"] = fmt::format("{:.0f}", *window);
  auto conv = number("mamba_conv_state_bytes");
  auto ssm = number("mamba_ssm_state_bytes");
  if (conv && ssm)
    out["state_bytes"] = fmt::format("{:.0f}", *conv + *ssm);
  return out;
}

// Every figure of every run (tp 1, and tp 2 where the record has one) of the modelled
// architectures, with the gaps that explain disagreements.
class LayoutComparison {
 public:
  explicit LayoutComparison(std::vector<Gap> gaps) : gaps_(std::move(gaps)) {
    fs::create_directories(dir_);
  }
  ~LayoutComparison() { fs::remove_all(dir_); }

  // One engine run: `run` holds its layers and param_bytes (the record itself for tp 1).
  void compare(const std::string& release, const json& record, const json& run, int tp) {
    const std::string prefix = tp == 1 ? "" : fmt::format("tp{}.", tp);
    arch_ = record["architecture"].get<std::string>();
    const std::string variant = record.value("variant", std::string());
    where_ = fmt::format("{} {}{} ({}, tp {})", release, arch_,
                         variant.empty() ? "" : " variant " + variant,
                         record.value("config_source", ""), tp);
    auto plan = plan_config(release, record, tp, dir_);
    if (!plan) {
      check(prefix + "plan", "built", plan.message(), false);
      return;
    }
    const auto theirs = engine_figures(run);
    const auto ours = servescope_figures(*plan);
    std::set<std::string> names;
    for (const auto& [k, v] : theirs)
      names.insert(k);
    for (const auto& [k, v] : ours)
      names.insert(k);
    for (const std::string& name : names) {
      const auto a = theirs.find(name), b = ours.find(name);
      const std::string av = a == theirs.end() ? "None" : a->second;
      const std::string bv = b == ours.end() ? "None" : b->second;
      check(prefix + name, av, bv, av == bv);
    }
    const double engine_bytes = run["param_bytes"].get<double>();
    const Node* w = plan->graph.find("weights_gib");
    const double ours_bytes = w == nullptr ? 0 : w->value.as_number() * 1024.0 * 1024 * 1024;
    check(prefix + "weights", fmt::format("{:.0f}", engine_bytes),
          fmt::format("{:.0f}", ours_bytes),
          std::fabs(ours_bytes - engine_bytes) <= 0.01 * engine_bytes);
  }

  void print(const std::string& release, int built, int modelled, int variants) const {
    Tally all;
    for (const auto& [name, t] : by_figure_) {
      all.compared += t.compared;
      all.matched += t.matched;
      all.known += t.known;
    }
    std::printf(
        "vllm %s layouts: %d architectures built by the engine, %d modelled (and %d more "
        "configs of them); %d / %d figures agree (%.2f%%), %d named gaps\n",
        release.c_str(), built, modelled, variants, all.matched, all.compared,
        100.0 * all.matched / std::max(1, all.compared), all.known);
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& [name, t] : by_figure_) {
      std::printf("  %-28s %5d / %5d\n", name.c_str(), t.matched, t.compared);
      rows.push_back(
          {{"figure", name}, {"agree", t.matched}, {"total", t.compared}, {"gaps", t.known}});
    }
    record_accuracy("vllm-layouts-" + release, {{"kind", "oracle"},
                                                {"oracle", "vllm layouts"},
                                                {"release", release},
                                                {"agree", all.matched},
                                                {"total", all.compared},
                                                {"gaps", all.known},
                                                {"architectures_built", built},
                                                {"architectures_modelled", modelled},
                                                {"variants", variants},
                                                {"figures", rows}});
  }

  void report_failures() const {
    for (const std::string& u : unexplained_)
      ADD_FAILURE() << u;
    for (const Gap& g : gaps_) {
      if (g.used == 0)
        ADD_FAILURE() << "data/model-layout-gaps.tsv: " << g.architecture << " " << g.figure
                      << " is named as a gap but every record agrees: remove the row";
    }
  }

 private:
  void check(const std::string& figure, const std::string& theirs, const std::string& ours,
             bool match) {
    Tally& t = by_figure_[figure];
    ++t.compared;
    if (match) {
      ++t.matched;
      return;
    }
    for (Gap& g : gaps_) {
      if (g.architecture == arch_ && (g.figure == figure || g.figure == "*")) {
        ++g.used;
        ++t.known;
        return;
      }
    }
    unexplained_.push_back(
        fmt::format("{}: {} engine {} servescope {}", where_, figure, theirs, ours));
  }

  std::vector<Gap> gaps_;
  std::map<std::string, Tally> by_figure_;
  std::vector<std::string> unexplained_;
  std::string arch_, where_;
  const fs::path dir_ = fs::temp_directory_path() / "servescope-layouts-test";
};

TEST(VllmLayouts, EveryModelledArchitectureAgreesWithTheEnginesOwnModelCode) {
  const std::vector<OracleFile> files = read_oracle_files("vllm", "layouts");
  ASSERT_FALSE(files.empty()) << "no tests/oracle/layouts/vllm-*.jsonl: run "
                                 "tools/engine-sync/vllm_layouts.py";
  LayoutComparison cmp(vllm_gaps());
  for (const OracleFile& file : files) {
    int built = 0, modelled = 0, variants = 0;
    for (const json& record : file.cases) {
      if (record.contains("error") || !record.contains("layers"))
        continue;
      // A variant (layout_configs.json) is another config of an architecture counted already.
      const bool variant = record.contains("variant");
      built += variant ? 0 : 1;
      const std::string arch = record["architecture"].get<std::string>();
      // Modelled as `models --coverage` says: by the architecture's row, or the model_type
      // transformers or vLLM's config registry gives it (a stand-in config of another type does
      // not make it modelled).
      if (!layout_family(arch, registered_model_type(arch)))
        continue;
      modelled += variant ? 0 : 1;
      variants += variant ? 1 : 0;
      cmp.compare(file.release, record, record, 1);
      if (record.contains("tp2") && record["tp2"].contains("layers"))
        cmp.compare(file.release, record, record["tp2"], 2);
    }
    cmp.print(file.release, built, modelled, variants);
  }
  cmp.report_failures();
}

// A config whose architecture has a named gap plans with a warning that names it, so a user sees
// that its weights (here: the uncounted vision tower) are not the engine's.
TEST(VllmLayouts, APlanOfAnArchitectureWithANamedGapSaysSo) {
  const auto files = read_oracle_files("vllm", "layouts");
  ASSERT_FALSE(files.empty());
  const fs::path dir = fs::temp_directory_path() / "servescope-layout-gap-test";
  fs::create_directories(dir);
  int planned = 0;
  for (const json& record : files.front().cases) {
    const std::string arch = record.value("architecture", "");
    if (record.contains("error") || record.contains("variant") ||
        layout_gap_note("vllm", arch).empty())
      continue;
    auto plan = plan_config(files.front().release, record, 1, dir);
    if (!plan)
      continue;  // a gap in the plan itself (KimiVL's default config)
    ++planned;
    bool named = false;
    for (const Finding& f : plan->findings)
      named = named || (f.code == "layout-gap" && f.message.find(arch) != std::string::npos);
    EXPECT_TRUE(named) << arch << ": no layout-gap finding";
  }
  fs::remove_all(dir);
  EXPECT_GT(planned, 5);
}

}  // namespace
}  // namespace servescope::testing
