// Scenario: everything a plan is computed from — engine and version, model, hardware, the
// launch command as typed, the environment the engine reads, and calibration facts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/model_shape.h"
#include "engines/launch_command.h"

namespace servescope {

struct EngineVersion {
  std::string label;  // as the user gave it or as servescope inferred it: "0.5.15", "2026-07-20"
  std::string main_date;  // the engine's main branch date the rules follow, "YYYY-MM-DD"
  std::string basis;      // how the date was chosen ("newest modelled", "release table: ...")
  std::vector<std::string> cherry_picks;  // changes a release branch carries beyond its cut date
  // The published release whose own argument parser judges the command's flags
  // (data/<engine>/flags-RELEASE.tsv): the release named, or the newest one for a default;
  // "" for a main-branch date.
  std::string release;
  // Set when the rules are older than the version: "sglang 0.5.23 is newer than the newest
  // modelled rules (main 2026-07-20 = 0.5.16)"; `newer_than_known` when no release servescope
  // knows is that new; `unmodelled_changes` when a reading of the release's own code found
  // capacity changes the rules lack (the gap then names them).
  std::string rules_gap;
  bool newer_than_known = false;
  bool unmodelled_changes = false;
};

/// Free memory the engine reported around the weight load, in GiB ("Load weight begin/end").
/// `rounding_gib` is half the last printed digit (0.005 for "64.60 GB"); 0 when exact.
struct Calibration {
  std::optional<double> free_before_load_gib;
  std::optional<double> free_after_load_gib;
  // Memory-profile figures an engine may log at startup (vLLM's profiling lines), in GiB:
  // the device total its CUDA runtime reports, the weights it measured, the activation peak
  // and the non-torch growth of the profile run, the CUDA-graph estimate, and the memory it
  // gave the KV cache. Each, when given, replaces the engine pack's estimate.
  std::optional<double> total_memory_gib;
  std::optional<double> weights_gib;
  std::optional<double> activation_peak_gib;
  std::optional<double> non_torch_gib;
  std::optional<double> cuda_graph_gib;
  std::optional<double> kv_memory_gib;
  // vLLM 0.34's 'Memory after warmup' line (extensible KV cache): free memory after warmup,
  // the bytes committed to the KV cache, the transient peak and torch's reservation growth.
  std::optional<double> free_after_warmup_gib;
  std::optional<double> kv_committed_gib;
  std::optional<double> transient_peak_gib;
  std::optional<double> torch_growth_gib;
  // What a log shows of the extensible KV cache: true with 'Memory after warmup', false when it
  // shows the cache sized from the profile instead (the KV size line or the CUDA-graph estimate
  // without it); unset without a log.
  std::optional<bool> kv_measured_after_warmup;
  double rounding_gib = 0;
  std::string source;  // "--free-before-load/--free-after-load" or "log FILE:LINE"
};

/// The calibration figures by name ("free_before_load", "free_after_load", "total_memory",
/// "weights", "activation_peak", "non_torch", "cuda_graph", "kv_memory"), for code that
/// varies them generically (check's rounding intervals); nullptr for an unknown name.
std::optional<double>* calibration_field(Calibration& c, std::string_view name);
const std::vector<std::string>& calibration_field_names();

struct Hardware {
  GpuSpec gpu;
  std::string gpu_note;   // e.g. an ambiguous truncated nvidia-smi name
  int gpus_per_node = 0;  // 0: what the command's parallelism needs
  bool gpu_from_user = true;
};

struct Scenario {
  std::string engine;  // "sglang", "vllm"
  EngineVersion version;
  ModelShape model;
  // The drafter's own config (--speculative-config's "model"), when it could be read; else
  // draft_model_note says why not.
  std::optional<ModelShape> draft_model;
  std::string draft_model_note;
  Hardware hardware;
  LaunchCommand command;
  std::map<std::string, std::string> environment;  // --env K=V and the command's prefix
  Calibration calibration;
  // Estimates to plan with at given values, by node id (check plans a figure that rests on
  // estimates at the ends of their stated intervals); empty: every estimate at its own value.
  std::map<std::string, double> estimate_pins;
  // Where the inputs were read, one line each ("command: deploy/sglang.service:7, ExecStart",
  // "model: Hugging Face cache …"), shown by plan, explain and lint.
  std::vector<std::string> inputs_read;
};

}  // namespace servescope
