#include "core/derivation.h"

#include <functional>
#include <stdexcept>
#include <unordered_set>

namespace servescope {

std::string_view origin_name(Origin origin) {
  switch (origin) {
    case Origin::kDerived:
      return "rule";
    case Origin::kFlag:
      return "flag";
    case Origin::kEngineDefault:
      return "engine default";
    case Origin::kCatalog:
      return "GPU catalog";
    case Origin::kModelConfig:
      return "config.json";
    case Origin::kCalibration:
      return "calibration";
    case Origin::kEstimate:
      return "estimate";
    case Origin::kEnvironment:
      return "environment";
    case Origin::kScenario:
      return "scenario";
  }
  return "?";
}

const Node& Derivation::add(Node node) {
  auto it = index_.find(node.id);
  if (it != index_.end()) {
    nodes_[it->second] = std::move(node);
    return nodes_[it->second];
  }
  index_.emplace(node.id, nodes_.size());
  nodes_.push_back(std::move(node));
  return nodes_.back();
}

const Node& Derivation::input(std::string id, Value value, std::string unit, Origin origin,
                              std::string source, std::string why) {
  Node node;
  node.id = std::move(id);
  node.value = std::move(value);
  node.unit = std::move(unit);
  node.origin = origin;
  node.source = std::move(source);
  node.why = std::move(why);
  return add(std::move(node));
}

double Derivation::estimate(Node node, double low, double high) {
  node.origin = Origin::kEstimate;
  node.range = std::make_pair(low, high);
  if (auto pin = pins_.find(node.id); pin != pins_.end())
    node.value = Value(pin->second);
  const double value = node.value.as_number();
  add(std::move(node));
  return value;
}

const Node* Derivation::find(std::string_view id) const {
  auto it = index_.find(std::string(id));
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

const Value& Derivation::value(std::string_view id) const {
  const Node* node = find(id);
  if (node == nullptr)
    throw std::logic_error("derivation has no node " + std::string(id));
  return node->value;
}

std::vector<std::string> Derivation::closure_of(std::string_view id) const {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  std::function<void(const std::string&)> visit = [&](const std::string& n) {
    if (!seen.insert(n).second)
      return;
    out.push_back(n);
    if (const Node* node = find(n)) {
      for (const std::string& in : node->inputs)
        visit(in);
    }
  };
  visit(std::string(id));
  return out;
}

std::vector<std::string> Derivation::leaves_of(std::string_view id) const {
  std::vector<std::string> out;
  for (const std::string& n : closure_of(id)) {
    const Node* node = find(n);
    if (node != nullptr && node->inputs.empty())
      out.push_back(n);
  }
  return out;
}

}  // namespace servescope
