// Test helper: the scenario, plan, serving shape and cost model of a launch command, as the
// twin and `simulate` build them.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "core/text.h"
#include "diagnose/scenario_builder.h"
#include "engines/twin_profile.h"
#include "twin/cost_model.h"

namespace servescope::testing {

struct TwinCase {
  BuiltScenario built;
  Plan plan;
  const TwinProfile* profile = nullptr;
  ServingShape shape;
  std::optional<CostModel> cost;
};

/// The founding case: Qwen3.5-122B-A10B-FP8 on 4× RTX PRO 6000 with MTP, calibrated.
inline constexpr char kFoundingCommand[] =
    "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
    "--speculative-algorithm NEXTN";
inline constexpr char kLlamaCommand[] =
    "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct";

/// The twin of any scenario: its plan, the engine's twin profile, the serving shape and the
/// cost model (a test failure, and null, where one of them cannot be made).
inline std::unique_ptr<TwinCase> twin_case_of(const ScenarioOptions& o,
                                              const Efficiency& efficiency = {}) {
  auto built = build_scenario(o);
  if (!built) {
    ADD_FAILURE() << built.message();
    return nullptr;
  }
  auto c = std::make_unique<TwinCase>();
  c->built = std::move(*built);
  auto plan = c->built.engine->plan(c->built.scenario);
  if (!plan) {
    ADD_FAILURE() << plan.message();
    return nullptr;
  }
  c->plan = std::move(*plan);
  c->profile = c->built.engine->twin_profile();
  if (c->profile == nullptr) {
    ADD_FAILURE() << "no twin profile";
    return nullptr;
  }
  auto shape = c->profile->serving_shape(c->built.scenario, c->plan);
  if (!shape) {
    ADD_FAILURE() << shape.message();
    return nullptr;
  }
  c->shape = *shape;
  auto cost = CostModel::build(c->built.scenario, c->shape, efficiency);
  if (!cost) {
    ADD_FAILURE() << cost.message();
    return nullptr;
  }
  c->cost = std::move(*cost);
  return c;
}

inline std::unique_ptr<TwinCase> twin_case(const std::string& command, const std::string& gpu,
                                           std::optional<int> gpus = std::nullopt,
                                           std::optional<double> before = std::nullopt,
                                           std::optional<double> after = std::nullopt,
                                           const Efficiency& efficiency = {}) {
  ScenarioOptions o;
  o.engine = "sglang@0.5.16";  // the release the founding case was found on (as the twin tests)
  o.gpu = gpu;
  o.gpus = gpus;
  o.free_before_load_gib = before;
  o.free_after_load_gib = after;
  o.command = split_command_line(command).value_or(std::vector<std::string>{});
  return twin_case_of(o, efficiency);
}

inline std::unique_ptr<TwinCase> founding_case(const Efficiency& efficiency = {}) {
  return twin_case(kFoundingCommand, "rtx-pro-6000", 4, 94.6, 64.6, efficiency);
}

inline std::unique_ptr<TwinCase> llama_case(const Efficiency& efficiency = {}) {
  return twin_case(kLlamaCommand, "h100-sxm", std::nullopt, std::nullopt, std::nullopt, efficiency);
}

}  // namespace servescope::testing
