// servescope's vLLM plans of a target served with a speculative drafter, against the KV cache
// vLLM's own code plans for the two together: every case of tests/oracle/drafters/vllm-*.jsonl
// was built by that release's model and drafter code on the meta device (the drafter by the
// release's own speculator loader) and planned by its EngineCore KV planning
// (tools/engine-sync/vllm_drafters.py; each file's first line names the command and seed).
// servescope plans the same command, the drafter's config written to a folder the speculative
// config names, with the case's available memory as its "Available KV cache memory".
// A case the engine refuses is compared on that alone: servescope's plan must refuse it too.
// A disagreement is a named gap (tests/oracle/known-gaps.tsv, figures prefixed "drafters.") or a
// failure.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/oracle/oracle_cases.h"

namespace servescope::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// vLLM's spec classes as servescope names the layer kinds (kv_spec.cc::kind_name).
std::string kind_of(const std::string& spec_class) {
  static const std::map<std::string, std::string> kKinds = {
      {"FullAttentionSpec", "full"},
      {"SlidingWindowSpec", "sliding_window"},
      {"ChunkedLocalAttentionSpec", "chunked_local"},
      {"MLAAttentionSpec", "mla"},
      {"MambaSpec", "mamba"},
  };
  const auto it = kKinds.find(spec_class);
  return it == kKinds.end() ? spec_class : it->second;
}

// "36 full, 5 sliding_window" from the engine's groups: layers per kind, in name order.
std::string engine_layers(const json& groups) {
  std::map<std::string, long long> n;
  for (const json& g : groups)
    n[kind_of(g["spec"].get<std::string>())] += g["layers"].get<long long>();
  std::string out;
  for (const auto& [kind, count] : n)
    out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + kind;
  return out;
}

// servescope's kv_layers text ("34 full + 34 sliding_window") in the same order.
std::string our_layers(const std::string& text) {
  std::map<std::string, long long> n;
  for (std::string_view part : split(text, '+')) {
    part = trim(part);
    const auto space = part.find(' ');
    if (space == std::string_view::npos)
      continue;
    n[std::string(part.substr(space + 1))] += std::stoll(std::string(part.substr(0, space)));
  }
  std::string out;
  for (const auto& [kind, count] : n)
    out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + kind;
  return out;
}

// The case's command with the drafter's config written to `dir` and named in the speculative
// config; from 0.34 the profile-sized path (the oracle plans from a given memory, see
// vllm_oracle_test.cc).
json command_of(const json& c, const std::string& placeholder, const fs::path& dir) {
  json planned = c;
  if (!c["drafter_config"].is_null()) {
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << c["drafter_config"].dump(1);
    for (json& w : planned["argv"]) {
      std::string s = w.get<std::string>();
      const auto at = s.find(placeholder);
      if (at != std::string::npos)
        w = s.replace(at, placeholder.size(), dir.string());
    }
  }
  planned["argv"].push_back("--no-enable-extensible-kv-cache");
  return planned;
}

struct Figure {
  std::string engine_key, node;
  double tolerance = 0;
};

const std::vector<Figure>& figures() {
  static const std::vector<Figure> kFigures = {
      {"num_blocks", "num_gpu_blocks"},
      {"kv_cache_size_tokens", "gpu_kv_cache_size_tokens"},
      {"max_concurrency", "maximum_concurrency", 0.005 + 1e-9},
      {"block_size", "block_size.reported"},
  };
  return kFigures;
}

// One case's figures: a case the engine refused is compared on that alone; otherwise the KV
// figures, the layers by kind and the number of groups.
void compare_case(Comparison& cmp, const std::string& release, const std::string& key,
                  const json& c, const Plan& plan) {
  auto compare = [&](const std::string& figure, const std::string& theirs, const Node* ours_node,
                     const std::string& ours, bool match) {
    cmp.record(release, "drafters." + figure, c, theirs, match, [&] {
      return fmt::format("{}: {} engine {} servescope {}{}", key, figure, theirs, ours,
                         ours_node == nullptr ? "" : " (" + ours_node->why + ")");
    });
  };
  // A refusal the engine's code gave must be servescope's too. Not the other way: the oracle
  // stops at the KV planning, before checks servescope also models (the Mamba blocks a FULL
  // CUDA graph needs, compilation.py).
  if (c.contains("error")) {
    const std::string ours = plan.starts ? "starts" : "refuses: " + plan.startup_error;
    compare("refusals", "refuses: " + c["error"].get<std::string>().substr(0, 160), nullptr, ours,
            !plan.starts);
    return;
  }
  const json& result = c["result"];
  for (const Figure& f : figures()) {
    if (!result.contains(f.engine_key) || result[f.engine_key].is_null())
      continue;
    const Node* ours = plan.graph.find(f.node);
    const json& theirs = result[f.engine_key];
    const std::string b = ours == nullptr ? "None" : canonical(ours->value);
    bool match = canonical(theirs) == b;
    if (!match && f.tolerance > 0 && ours != nullptr && ours->value.is_number())
      match = std::fabs(theirs.get<double>() - ours->value.as_number()) <= f.tolerance;
    compare(f.engine_key, canonical(theirs), ours, b, match);
  }
  const Node* layers = plan.graph.find("kv_layers");
  const std::string theirs_layers = engine_layers(result["groups"]);
  const std::string ours_layers =
      layers == nullptr ? "None" : our_layers(layers->value.to_string());
  compare("layers", theirs_layers, layers, ours_layers, theirs_layers == ours_layers);
  const Node* groups = plan.graph.find("kv_cache_groups");
  const std::string theirs_groups = std::to_string(result["groups"].size());
  const std::string ours_groups = groups == nullptr ? "None" : canonical(groups->value);
  compare("groups", theirs_groups, groups, ours_groups, theirs_groups == ours_groups);
}

TEST(VllmDrafters, EveryPlannedFigureAgreesOrIsANamedGap) {
  const std::vector<OracleFile> files = read_oracle_files("vllm", "drafters");
  ASSERT_FALSE(files.empty()) << "no tests/oracle/drafters/vllm-*.jsonl: run "
                                 "tools/engine-sync/vllm_drafters.py";
  const fs::path tmp =
      fs::temp_directory_path() / fmt::format("servescope-drafters-{}", ::getpid());
  Comparison cmp;
  int planned_cases = 0;
  for (const OracleFile& file : files) {
    const std::string placeholder = file.header.value("drafter_placeholder", "{drafter}");
    for (const json& c : file.cases) {
      if (!c.contains("error") && !c.contains("result"))
        continue;
      const json planned = command_of(c, placeholder, tmp / c["drafter"].get<std::string>());
      const std::string key =
          fmt::format("{} case {} ({} + {} on {}: {})", file.release, c["case"].get<long long>(),
                      c["model"].get<std::string>(), c["drafter"].get<std::string>(),
                      c["gpu"].get<std::string>(), case_argv(planned));
      auto plan = plan_command("vllm", file.release, planned,
                               c["available_bytes"].get<double>() / (1024.0 * 1024.0 * 1024.0));
      if (!plan) {
        cmp.unexplained.push_back(key + ": servescope could not plan it: " + plan.message());
        continue;
      }
      ++planned_cases;
      compare_case(cmp, file.release, key, c, *plan);
    }
  }
  fs::remove_all(tmp);
  EXPECT_GT(planned_cases, 0);
  cmp.finish("vllm drafters", "drafters.", "SERVESCOPE_ORACLE_DRAFTERS_DUMP");
}

}  // namespace
}  // namespace servescope::testing
