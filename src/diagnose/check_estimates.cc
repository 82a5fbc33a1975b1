#include "diagnose/check_estimates.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace servescope {
namespace {

// 2^k plans for k estimates: six (64 plans, ~15 ms) is more than any plan states today.
constexpr std::size_t kMostEstimates = 6;

// The figure's value in a plan: a node, or the length of a list node ("count:NODE").
std::optional<double> figure_value(const Plan& plan, const std::string& figure) {
  constexpr std::string_view kCount = "count:";
  const bool count = figure.rfind(kCount, 0) == 0;
  const Node* n = plan.graph.find(count ? figure.substr(kCount.size()) : figure);
  if (n == nullptr)
    return std::nullopt;
  if (count && n->value.is_list())
    return static_cast<double>(n->value.as_list().size());
  if (!count && n->value.is_number())
    return n->value.as_number();
  return std::nullopt;
}

std::string figure_node(const std::string& figure) {
  constexpr std::string_view kCount = "count:";
  return figure.rfind(kCount, 0) == 0 ? figure.substr(kCount.size()) : figure;
}

bool estimate_of_its_own(const Derivation& g, const Node& n) {
  if (n.origin != Origin::kEstimate)
    return false;
  if (n.range)
    return true;
  // A rule's result marked estimated because an input is: its inputs are the estimates.
  for (const std::string& input : n.inputs) {
    for (const std::string& id : g.closure_of(input)) {
      const Node* m = g.find(id);
      if (m != nullptr && m->origin == Origin::kEstimate)
        return false;
    }
  }
  return true;
}

// The ends of every interval, each combination once: the plan's figures are monotone in each
// memory estimate, so their extremes over the box are at its corners.
void corner_intervals(const Engine& engine, const Scenario& scenario,
                      const std::vector<const Node*>& estimates,
                      std::vector<Comparison*>& comparisons) {
  std::map<std::string, std::pair<double, double>> bounds;
  std::map<std::string, std::size_t> failed;  // corners where the plan lacks the figure
  const std::size_t corners = std::size_t{1} << estimates.size();
  for (std::size_t mask = 0; mask < corners; ++mask) {
    Scenario s = scenario;
    for (std::size_t i = 0; i < estimates.size(); ++i) {
      const auto& [low, high] = *estimates[i]->range;
      s.estimate_pins[estimates[i]->id] = (mask >> i) & 1 ? high : low;
    }
    auto plan = engine.plan(s);
    for (Comparison* c : comparisons) {
      const std::optional<double> v =
          plan && plan->starts ? figure_value(*plan, c->field) : std::nullopt;
      if (!v) {
        ++failed[c->field];
        continue;
      }
      const auto it = bounds.try_emplace(c->field, *v, *v).first;
      it->second.first = std::min(it->second.first, *v);
      it->second.second = std::max(it->second.second, *v);
    }
  }
  for (Comparison* c : comparisons) {
    EstimatedPrediction& e = *c->estimated;
    if (failed[c->field] > 0) {
      e.note = fmt::format(
          "at {} of the {} ends of its estimates' intervals the engine would not start or "
          "the plan lacks it: no interval",
          failed[c->field], corners);
      continue;
    }
    const auto& [low, high] = bounds.at(c->field);
    e.low = low;
    e.high = high;
    const double logged = c->logged.as_number();
    const double tol = 1e-6 * std::max(1.0, std::fabs(logged));
    e.within = logged >= low - tol && logged <= high + tol;
    std::vector<std::string> spans;
    for (const Node* n : estimates) {
      if (std::find(e.estimates.begin(), e.estimates.end(), n->id) != e.estimates.end())
        spans.push_back(
            fmt::format("{} {:.2f}–{:.2f} {}", n->id, n->range->first, n->range->second, n->unit));
    }
    e.note = fmt::format("predicted over the estimates' intervals ({}): logged {} it",
                         fmt::join(spans, ", "), e.within ? "inside" : "outside");
  }
}

void predict_group(const Engine& engine, const Scenario& scenario, const Plan& plan,
                   const std::vector<Comparison*>& group) {
  std::set<std::string> ids;
  std::vector<const Node*> estimates;
  std::vector<Comparison*> cornered;
  for (Comparison* c : group) {
    EstimatedPrediction& e = *c->estimated;
    if (!c->logged.is_number()) {
      e.note = "not a number: no interval";
      continue;
    }
    std::vector<std::string> open;
    for (const Node* n : estimates_behind(plan, c->field)) {
      e.estimates.push_back(n->id);
      if (!n->range)
        open.push_back(n->id);
    }
    if (!open.empty()) {
      e.note = fmt::format("its estimate {} states no interval", fmt::join(open, ", "));
      continue;
    }
    for (const std::string& id : e.estimates) {
      if (ids.insert(id).second)
        estimates.push_back(plan.graph.find(id));
    }
    cornered.push_back(c);
  }
  if (cornered.empty())
    return;
  if (estimates.size() > kMostEstimates) {
    for (Comparison* c : cornered)
      c->estimated->note = fmt::format("rests on {} estimates, more than the {} check corners",
                                       estimates.size(), kMostEstimates);
    return;
  }
  corner_intervals(engine, scenario, estimates, cornered);
}

}  // namespace

std::vector<const Node*> estimates_behind(const Plan& plan, const std::string& figure) {
  std::vector<const Node*> out;
  for (const std::string& id : plan.graph.closure_of(figure_node(figure))) {
    const Node* n = plan.graph.find(id);
    if (n != nullptr && estimate_of_its_own(plan.graph, *n))
      out.push_back(n);
  }
  return out;
}

void predict_from_estimates(const Engine& engine, const CheckResult& result,
                            std::vector<Comparison>& comparisons) {
  std::vector<Comparison*> typed, from_defaults;
  for (Comparison& c : comparisons) {
    if (!c.checked && c.estimated)
      (c.from_defaults ? from_defaults : typed).push_back(&c);
  }
  if (!typed.empty())
    predict_group(engine, result.scenario, result.plan, typed);
  if (!from_defaults.empty())
    predict_group(engine, result.defaults_scenario, result.defaults_plan, from_defaults);
}

}  // namespace servescope
