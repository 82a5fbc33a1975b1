// servescope's vLLM figures against vLLM's own code: every case of tests/oracle/vllm-RELEASE.jsonl
// was resolved by that release's real Python on a CPU with a faked CUDA platform
// (tools/engine-sync/vllm_oracle.py; each file's first line names the command and seed).
//   kind "kv":     the release's get_kv_cache_configs (kv_cache_planning from 0.33) on KV specs of
//                  a catalog model, with an available-memory figure per GPU: num_blocks, the KV
//                  cache size in tokens and the maximum concurrency vLLM logs. servescope plans
//                  the same command with that figure as its "Available KV cache memory".
//   kind "config": EngineArgs(...).create_engine_config() for a generated `vllm serve` command on
//                  a catalog GPU: the scheduler and compilation defaults, and the block size
//                  EngineCore sets from the KV groups once the worker's backend has chosen.
// A disagreement is a named gap (tests/oracle/known-gaps.tsv, figure names prefixed "vllm.") or
// a failure; a gap no case shows fails too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/oracle/oracle_cases.h"

namespace servescope::testing {
namespace {

using nlohmann::json;

struct Figure {
  std::string engine_key;  // the field of the record's "result"
  std::string node;        // servescope's derivation node
  double tolerance = 0;    // absolute, for floats the engine prints rounded
  // Compared only where servescope has the node: the mamba cache mode of hybrid models (vLLM
  // records "none" for every other model, which has no mamba state).
  bool only_with_node = false;
  // Taken where servescope has no `node`: the block vLLM reports needs the KV groups, which
  // servescope plans only when the model fits its memory estimate; the engine's record had room.
  std::string fallback_node = {};
};

const std::vector<Figure>& kv_figures() {
  static const std::vector<Figure> kFigures = {
      {"num_blocks", "num_gpu_blocks"},
      {"kv_cache_size_tokens", "gpu_kv_cache_size_tokens"},
      // servescope's node is the figure vLLM prints ("%.2f"); the record keeps the raw float.
      {"max_concurrency", "maximum_concurrency", 0.005 + 1e-9},
      {"block_size", "block_size.reported"},
      {"max_model_len", "max_model_len"},
  };
  return kFigures;
}

const std::vector<Figure>& config_figures() {
  static const std::vector<Figure> kFigures = {
      {"max_num_seqs", "max_num_seqs"},
      {"max_num_batched_tokens", "max_num_batched_tokens"},
      {"gpu_memory_utilization", "gpu_memory_utilization", 1e-9},
      // The block size the engine serves with: EngineCore's, from the KV groups after planning.
      {"engine_block_size", "block_size.reported", 0, false, "block_size"},
      {"max_model_len", "max_model_len"},
      {"cudagraph_mode", "cudagraph_mode"},
      {"cudagraph_capture_sizes", "cudagraph_capture_sizes"},
      {"enable_prefix_caching", "enable_prefix_caching"},
      {"mamba_cache_mode", "mamba_cache_mode", 0, true},
  };
  return kFigures;
}

bool has_extensible_kv_cache(const std::string& release) {
  int major = 0, minor = 0;
  return std::sscanf(release.c_str(), "%d.%d", &major, &minor) == 2 && (major > 0 || minor >= 34);
}

TEST(VllmOracle, EveryRecordedFigureAgreesOrIsANamedGap) {
  const std::vector<OracleFile> files = read_oracle_files("vllm");
  ASSERT_FALSE(files.empty()) << "no tests/oracle/vllm-*.jsonl: run `make oracle`";
  Comparison cmp;
  for (const OracleFile& file : files) {
    for (const json& c : file.cases) {
      if (c.contains("error") || !c.contains("result"))
        continue;  // the engine refused the command
      const std::string kind = c.value("kind", "kv");
      const json& result = c["result"];
      std::optional<double> kv;
      if (kind == "kv")
        kv = c["available_bytes"].get<double>() / (1024.0 * 1024.0 * 1024.0);
      const std::string key = fmt::format("{} {} case {} ({} on {}: {})", file.release, kind,
                                          c["case"].get<long long>(), c["model"].get<std::string>(),
                                          c["gpu"].get<std::string>(), case_argv(c));
      // From 0.34.0 the cache is sized again after warmup (V2.9), which no CPU run measures:
      // the kv cases hold the planning from a given memory, the code both paths share, so
      // servescope plans them with the profile-sized path (the measurement is unit-tested from
      // its inputs: extensible_kv_cache_test.cc).
      json planned = c;
      if (kind == "kv" && has_extensible_kv_cache(file.release))
        planned["argv"].push_back("--no-enable-extensible-kv-cache");
      auto plan = plan_command("vllm", file.release, planned, kv);
      if (!plan) {
        cmp.unexplained.push_back(key + ": servescope could not plan it: " + plan.message());
        continue;
      }
      for (const Figure& f : kind == "kv" ? kv_figures() : config_figures()) {
        if (!result.contains(f.engine_key) || result[f.engine_key].is_null())
          continue;
        const std::string figure = "vllm." + kind + "." + f.engine_key;
        const Node* ours = plan->graph.find(f.node);
        if (ours == nullptr && !f.fallback_node.empty())
          ours = plan->graph.find(f.fallback_node);
        if (ours == nullptr && f.only_with_node)
          continue;
        const json& theirs = result[f.engine_key];
        const std::string a = canonical(theirs);
        const std::string b = ours == nullptr ? "None" : canonical(ours->value);
        bool match = a == b;
        if (!match && f.tolerance > 0 && theirs.is_number() && ours != nullptr &&
            ours->value.is_number())
          match = std::fabs(theirs.get<double>() - ours->value.as_number()) <= f.tolerance;
        cmp.record(file.release, figure, c, a, match, [&] {
          return fmt::format("{}: {} engine {} servescope {}{}", key, figure, a, b,
                             ours == nullptr ? "" : " (" + ours->why + ")");
        });
      }
    }
  }
  cmp.finish("vllm", "vllm.", "SERVESCOPE_ORACLE_VLLM_DUMP");
}

}  // namespace
}  // namespace servescope::testing
