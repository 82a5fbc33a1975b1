#include "engines/twin_profile.h"

#include <algorithm>

#include "core/text.h"

namespace servescope {

void Histogram::observe(double value) {
  // Prometheus buckets are cumulative: every bucket whose bound is ≥ value counts it.
  const auto first = std::lower_bound(bounds.begin(), bounds.end(), value);
  for (auto i = static_cast<std::size_t>(first - bounds.begin()); i < counts.size(); ++i)
    ++counts[i];
  sum += value;
  ++count;
}

void Histogram::observe_many(double value, std::uint64_t times, double sum_increment) {
  const auto first = std::lower_bound(bounds.begin(), bounds.end(), value);
  for (auto i = static_cast<std::size_t>(first - bounds.begin()); i < counts.size(); ++i)
    counts[i] += times;
  sum += sum_increment;
  count += times;
}

std::int64_t int_node(const Plan& plan, std::string_view id, std::int64_t fallback) {
  const Node* n = plan.graph.find(id);
  if (n == nullptr || !n->value.is_number())
    return fallback;
  return n->value.is_int() ? n->value.as_int() : static_cast<std::int64_t>(n->value.as_number());
}

double number_node(const Plan& plan, std::string_view id, double fallback) {
  const Node* n = plan.graph.find(id);
  return n != nullptr && n->value.is_number() ? n->value.as_number() : fallback;
}

bool bool_node(const Plan& plan, std::string_view id, bool fallback) {
  const Node* n = plan.graph.find(id);
  return n != nullptr && n->value.is_bool() ? n->value.as_bool() : fallback;
}

std::string text_node(const Plan& plan, std::string_view id) {
  const Node* n = plan.graph.find(id);
  return n != nullptr && n->value.is_string() ? n->value.as_string() : std::string();
}

Endpoint endpoint_of(const LaunchCommand& command, std::string default_host, int default_port) {
  Endpoint e{std::move(default_host), default_port};
  if (const FlagSetting* f = command.find("--host"))
    e.host = f->value();
  if (const FlagSetting* f = command.find("--port"))
    e.port = static_cast<int>(parse_int(f->value()).value_or(default_port));
  return e;
}

std::string served_model_name_of(const Scenario& scenario, std::string_view model_flag) {
  if (const FlagSetting* f = scenario.command.find("--served-model-name"))
    return f->value();
  if (const FlagSetting* f = scenario.command.find(std::string(model_flag)))
    return f->value();
  return scenario.model.source;
}

}  // namespace servescope
