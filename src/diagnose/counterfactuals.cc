#include "diagnose/counterfactuals.h"

#include <algorithm>

namespace servescope {

Value output_value(const Plan& plan, const std::string& output) {
  if (output == "starts")
    return plan.starts;
  const Node* n = plan.graph.find(output);
  return n == nullptr ? Value() : n->value;
}

std::string output_text(const Plan& plan, const std::string& output) {
  if (output == "starts")
    return plan.starts ? "starts" : "fails";
  Value v = output_value(plan, output);
  return v.is_none() ? "n/a" : v.to_display();
}

Counterfactuals::Counterfactuals(const Engine& engine, Scenario base,
                                 std::vector<ScenarioChange> changes)
    : engine_(engine), base_(std::move(base)), changes_(std::move(changes)) {}

std::vector<std::size_t> Counterfactuals::all_indices() const {
  std::vector<std::size_t> all(changes_.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  return all;
}

const Plan& Counterfactuals::plan(const std::vector<std::size_t>& subset_in) {
  std::vector<std::size_t> subset = subset_in;
  std::sort(subset.begin(), subset.end());
  auto it = cache_.find(subset);
  if (it != cache_.end())
    return *it->second;
  std::vector<const ScenarioChange*> picked;
  for (std::size_t i : subset)
    picked.push_back(&changes_[i]);
  const Scenario s = apply_changes(base_, picked);
  auto result = engine_.plan(s);
  auto plan = std::make_unique<Plan>();
  if (result) {
    *plan = std::move(*result);
  } else {
    // A combination the engine rejects outright (e.g. a flag value another change makes
    // invalid) behaves like a server that does not start.
    plan->starts = false;
    plan->startup_error = result.message();
  }
  const Plan& ref = *plan;
  cache_.emplace(std::move(subset), std::move(plan));
  return ref;
}

}  // namespace servescope
