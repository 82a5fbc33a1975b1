// Test helper: the plan for a launch command as a user would type it.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/text.h"
#include "diagnose/scenario_builder.h"
#include "engines/plan.h"

namespace servescope::testing {

struct PlanRequest {
  std::string command;
  std::string gpu = "rtx-pro-6000";
  std::optional<double> before;
  std::optional<double> after;
  std::string engine;
  std::string model;
  std::vector<std::string> env;
};

inline Result<Plan> try_plan(const PlanRequest& r) {
  ScenarioOptions o;
  o.engine = r.engine;
  o.gpu = r.gpu;
  o.model = r.model;
  o.free_before_load_gib = r.before;
  o.free_after_load_gib = r.after;
  o.env = r.env;
  o.command = split_command_line(r.command).value_or(std::vector<std::string>{});
  auto built = build_scenario(o);
  if (!built)
    return built.error();
  return built->engine->plan(built->scenario);
}

inline Plan plan_of(const PlanRequest& r) {
  auto p = try_plan(r);
  if (!p)
    ADD_FAILURE() << "plan failed: " << p.message();
  return p ? std::move(*p) : Plan{};
}

/// The numeric value of a derivation node (fails the test when absent).
inline double num(const Plan& p, const std::string& id) {
  const Node* n = p.graph.find(id);
  if (n == nullptr) {
    ADD_FAILURE() << "no node " << id;
    return -1;
  }
  return n->value.as_number();
}

inline std::string text(const Plan& p, const std::string& id) {
  const Node* n = p.graph.find(id);
  if (n == nullptr) {
    ADD_FAILURE() << "no node " << id;
    return {};
  }
  return n->value.to_string();
}

inline bool has_finding(const Plan& p, const std::string& code) {
  for (const Finding& f : p.findings) {
    if (f.code == code)
      return true;
  }
  return false;
}

/// The founding model on 4× RTX PRO 6000, calibrated as in docs/research/sglang-capacity.md §12.4.
/// On the release the worked example was written for: v0.5.16 (= main 2026-07-20).
inline PlanRequest qwen35_tp4(const std::string& extra = "", double after = 64.6) {
  PlanRequest r;
  r.engine = "sglang@0.5.16";
  r.command =
      "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 " + extra;
  r.before = 94.6;
  r.after = after;
  return r;
}

}  // namespace servescope::testing
