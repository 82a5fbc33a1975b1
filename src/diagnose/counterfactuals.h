// Plans of a baseline scenario with subsets of changes applied, computed once each.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/value.h"
#include "engines/engine.h"
#include "engines/scenario_change.h"

namespace servescope {

/// The value of one output in a plan; the pseudo-output "starts" is whether the server would
/// start. An output the plan did not compute (sizing stopped) is None.
Value output_value(const Plan& plan, const std::string& output);
/// Displays an output value for people: "117", "n/a" for None, "fails" / "starts".
std::string output_text(const Plan& plan, const std::string& output);

class Counterfactuals {
 public:
  Counterfactuals(const Engine& engine, Scenario base, std::vector<ScenarioChange> changes);

  const std::vector<ScenarioChange>& changes() const { return changes_; }
  /// The plan with exactly the changes at `subset` (indices into changes()) applied.
  const Plan& plan(const std::vector<std::size_t>& subset);
  const Plan& baseline() { return plan({}); }
  const Plan& all() { return plan(all_indices()); }
  std::vector<std::size_t> all_indices() const;
  std::size_t evaluations() const { return cache_.size(); }

 private:
  const Engine& engine_;
  Scenario base_;
  std::vector<ScenarioChange> changes_;
  std::map<std::vector<std::size_t>, std::unique_ptr<Plan>> cache_;
};

}  // namespace servescope
