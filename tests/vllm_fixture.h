// Test helper: a vLLM plan for a command typed as a user would, with the memory-profile
// figures a vLLM log prints as calibration.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/text.h"
#include "diagnose/scenario_builder.h"
#include "engines/plan.h"

namespace servescope::testing {

struct VllmRun {
  std::string command;  // "vllm serve MODEL ..."
  std::string gpu = "h100-sxm";
  // The rules as docs/research/vllm-capacity.md describes them (main 2026-05-27); vllm@0.19.0, ...
  // for others.
  std::string engine = "vllm@2026-05-27";
  std::string model;  // --model override (a stand-in config)
  std::optional<double> total, weights, activation, non_torch, cuda_graph, kv_memory, free;
  std::vector<std::string> env;
};

inline Result<Plan> try_vllm_plan(const VllmRun& r) {
  ScenarioOptions o;
  o.engine = r.engine;
  o.gpu = r.gpu;
  o.model = r.model;
  o.total_memory_gib = r.total;
  o.weights_gib = r.weights;
  o.activation_peak_gib = r.activation;
  o.non_torch_gib = r.non_torch;
  o.cuda_graph_gib = r.cuda_graph;
  o.kv_memory_gib = r.kv_memory;
  o.free_before_load_gib = r.free;
  o.env = r.env;
  o.command = split_command_line(r.command).value_or(std::vector<std::string>{});
  auto built = build_scenario(o);
  if (!built)
    return built.error();
  return built->engine->plan(built->scenario);
}

inline Plan vllm_plan(const VllmRun& r) {
  auto p = try_vllm_plan(r);
  if (!p)
    ADD_FAILURE() << "plan failed: " << p.message();
  return p ? std::move(*p) : Plan{};
}

/// The numeric value of a node (fails the test when absent).
inline double value_of(const Plan& p, const std::string& id) {
  const Node* n = p.graph.find(id);
  if (n == nullptr) {
    ADD_FAILURE() << "no node " << id;
    return -1;
  }
  return n->value.as_number();
}

inline std::string text_of(const Plan& p, const std::string& id) {
  const Node* n = p.graph.find(id);
  if (n == nullptr) {
    ADD_FAILURE() << "no node " << id;
    return {};
  }
  return n->value.to_string();
}

inline bool has_code(const Plan& p, const std::string& code) {
  for (const Finding& f : p.findings) {
    if (f.code == code)
      return true;
  }
  return false;
}

/// The §11 setup: 1× H100 SXM, T = 79.19 GiB, W/A/N as docs/research/vllm-capacity.md §11.A
/// assumes.
inline VllmRun llama8b_h100(const std::string& extra = "") {
  VllmRun r;
  r.command = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 " + extra;
  r.total = 79.19;
  r.weights = 14.99;
  r.activation = 2.5;
  r.non_torch = 0.25;
  r.cuda_graph = 0.6;
  return r;
}

}  // namespace servescope::testing
