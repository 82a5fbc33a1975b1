// The derivation graph: every number a plan states is a node that says what it is, which
// rule produced it, why, which engine source it mirrors, and what it was computed from.
// Leaves are inputs that remember their origin (a flag at argv position N, an engine
// default, a catalog fact, a config.json field, a calibration fact or an estimate).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/value.h"

namespace servescope {

enum class Origin {
  kDerived,        // computed by a rule from other nodes
  kFlag,           // a flag on the launch command
  kEngineDefault,  // the engine's default when the flag is absent
  kCatalog,        // GPU catalog fact
  kModelConfig,    // a config.json field
  kCalibration,    // a fact read from a real log or given as --free-*-load
  kEstimate,       // an estimate servescope made (says so in the output)
  kEnvironment,    // an environment variable the engine reads
  kScenario,       // a scenario option (GPU count, engine version)
};

std::string_view origin_name(Origin origin);

struct Node {
  std::string id;
  Value value;
  std::string unit;
  std::string rule;    // rule id, e.g. "R2.5"; empty for inputs
  std::string why;     // one sentence
  std::string source;  // engine file::function the rule mirrors, or where an input came from
  std::vector<std::string> inputs;
  Origin origin = Origin::kDerived;
  // An estimate's stated interval (its basis in `why`): the values the estimate's own evidence
  // spans, which check plans at both ends for a figure it cannot compare exactly.
  std::optional<std::pair<double, double>> range;
};

class Derivation {
 public:
  /// Adds or replaces a node (a later rule may refine an earlier value under the same id).
  const Node& add(Node node);
  /// Records an input leaf.
  const Node& input(std::string id, Value value, std::string unit, Origin origin,
                    std::string source, std::string why = {});
  /// Records an estimate (origin kEstimate) with the interval its evidence spans, low ≤ value ≤
  /// high, and returns the value the plan goes on with: `value`, or the pin set for its id.
  double estimate(Node node, double low, double high);
  /// Plans with estimates at given values (check: the ends of their intervals), by node id.
  void pin_estimates(std::map<std::string, double> pins) { pins_ = std::move(pins); }

  const Node* find(std::string_view id) const;
  const std::vector<Node>& nodes() const { return nodes_; }
  /// The value of a node that must exist (rules only read what they wrote).
  const Value& value(std::string_view id) const;

  /// Ids of every leaf reachable from `id`, each once, in first-visit order.
  std::vector<std::string> leaves_of(std::string_view id) const;
  /// Ids of every node reachable from `id` (itself included).
  std::vector<std::string> closure_of(std::string_view id) const;

 private:
  std::vector<Node> nodes_;
  std::unordered_map<std::string, std::size_t> index_;
  std::map<std::string, double> pins_;
};

}  // namespace servescope
