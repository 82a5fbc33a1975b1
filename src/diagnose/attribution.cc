#include "diagnose/attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/ddmin.h"

namespace servescope {
namespace {

// Rule ids of the nodes in the output's derivation whose values differ between two plans.
void derivation_path(const Plan& before, const Plan& after, const std::string& output,
                     Attribution& a) {
  if (output == "starts")
    return;
  const std::vector<std::string> closure = after.graph.closure_of(output);
  for (auto it = closure.rbegin(); it != closure.rend(); ++it) {
    const Node* n_after = after.graph.find(*it);
    const Node* n_before = before.graph.find(*it);
    if (n_after == nullptr || n_after->inputs.empty())
      continue;
    if (n_before != nullptr && n_before->value == n_after->value)
      continue;
    a.nodes.push_back(*it);
    if (!n_after->rule.empty() &&
        std::find(a.path.begin(), a.path.end(), n_after->rule) == a.path.end()) {
      a.path.push_back(n_after->rule);
    }
  }
}

bool is_subset_of_any(const std::vector<std::size_t>& s, const std::vector<Attribution>& found) {
  for (const Attribution& f : found) {
    if (std::includes(s.begin(), s.end(), f.changes.begin(), f.changes.end()))
      return true;
  }
  return false;
}

std::string cleared_reason(const ScenarioChange& c, const Engine& engine, const Plan& a,
                           const Plan& b) {
  if (c.kind != ScenarioChange::Kind::kFlag)
    return "moves no output in this scenario";
  const FlagEffect effect = engine.flag_effect(c.subject);
  const Plan& with = c.flag ? b : a;
  const Node* leaf = effect.leaf_id.empty() ? nullptr : with.graph.find(effect.leaf_id);
  std::string reason;
  if (leaf == nullptr) {
    reason = "sizes no pool: no capacity rule reads it";
  } else {
    std::set<std::string> readers;
    for (const Node& n : with.graph.nodes()) {
      if (std::find(n.inputs.begin(), n.inputs.end(), effect.leaf_id) != n.inputs.end() &&
          !n.rule.empty()) {
        readers.insert(n.rule);
      }
    }
    std::string rules;
    for (const std::string& r : readers)
      rules += (rules.empty() ? "" : ", ") + r;
    reason = fmt::format("read by {} but moves no output here", rules.empty() ? "a rule" : rules);
  }
  if (!effect.runtime_effect.empty())
    reason += ": " + effect.runtime_effect;
  return reason;
}

}  // namespace

AttributionResult attribute(Counterfactuals& cf, const Engine& engine,
                            const std::vector<std::string>& outputs_in) {
  AttributionResult result;
  std::vector<std::string> outputs = outputs_in;
  outputs.push_back("starts");
  const std::size_t n = cf.changes().size();
  const Plan& plan_a = cf.baseline();
  const Plan& plan_b = cf.all();
  // Cleared means "sizes nothing": moves no capacity output. A change that only decides
  // whether the server starts is cleared for capacity and says so.
  std::vector<bool> moves_capacity(n, false);
  std::vector<bool> moves_startup(n, false);
  std::vector<bool> moves_setting(n, false);
  const std::vector<std::string> capacity = engine.output_names();

  for (const std::string& out : outputs) {
    const Value va = output_value(plan_a, out);
    const Value vb = output_value(plan_b, out);
    // Singles and removals are computed for every output, so a change that moves nothing at
    // all can be cleared.
    std::vector<std::size_t> movers, needed;
    const bool is_capacity = std::find(capacity.begin(), capacity.end(), out) != capacity.end();
    std::vector<bool>& moved = out == "starts" ? moves_startup
                               : is_capacity   ? moves_capacity
                                               : moves_setting;
    for (std::size_t i = 0; i < n; ++i) {
      if (!(output_value(cf.plan({i}), out) == va)) {
        movers.push_back(i);
        moved[i] = true;
      }
      std::vector<std::size_t> rest;
      for (std::size_t j = 0; j < n; ++j) {
        if (j != i)
          rest.push_back(j);
      }
      if (!(output_value(cf.plan(rest), out) == vb)) {
        needed.push_back(i);
        moved[i] = true;
      }
    }
    if (va == vb)
      continue;
    OutputChange oc;
    oc.output = out;
    oc.a = va;
    oc.b = vb;
    oc.a_text = output_text(plan_a, out);
    oc.b_text = output_text(plan_b, out);
    oc.movers = movers;
    oc.needed = needed;
    // Changes that alone reproduce B's value: single causes.
    for (std::size_t i : movers) {
      if (output_value(cf.plan({i}), out) == vb) {
        Attribution a;
        a.changes = {i};
        a.kind = "single";
        derivation_path(plan_a, cf.plan({i}), out, a);
        oc.attribution.push_back(std::move(a));
      }
    }
    // A minimal set by delta debugging (finds interactions, and confirms singles).
    auto dd = ddmin(n, [&](const std::vector<std::size_t>& subset) {
      return output_value(cf.plan(subset), out) == vb ? DdminOutcome::kFail : DdminOutcome::kPass;
    });
    if (dd.reproduced && !dd.culprits.empty() && !is_subset_of_any(dd.culprits, oc.attribution) &&
        dd.culprits.size() > 1) {
      Attribution a;
      a.changes = dd.culprits;
      a.kind = "interaction";
      derivation_path(plan_a, cf.plan(dd.culprits), out, a);
      oc.attribution.push_back(std::move(a));
    }
    oc.explained = !oc.attribution.empty();
    std::vector<std::size_t> order;
    auto take = [&](std::size_t i) {
      if (std::find(order.begin(), order.end(), i) == order.end())
        order.push_back(i);
    };
    for (const Attribution& a : oc.attribution)
      for (std::size_t i : a.changes)
        take(i);
    for (std::size_t i : movers)
      take(i);
    for (std::size_t i : needed)
      take(i);
    for (std::size_t i = 0; i < n; ++i)
      take(i);
    std::vector<std::size_t> applied;
    for (std::size_t i : order) {
      applied.push_back(i);
      std::vector<std::size_t> sorted = applied;
      std::sort(sorted.begin(), sorted.end());
      oc.waterfall.push_back({i, output_value(cf.plan(sorted), out)});
    }
    result.changes.push_back(std::move(oc));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (moves_capacity[i])
      continue;
    std::string reason = cleared_reason(cf.changes()[i], engine, plan_a, plan_b);
    if (moves_startup[i]) {
      const Plan& failing = cf.plan({i}).starts ? plan_b : cf.plan({i});
      reason += fmt::format("; but it decides whether the server starts here ({})",
                            failing.startup_error);
    }
    result.cleared.push_back({i, std::move(reason)});
  }
  result.evaluations = cf.evaluations();
  return result;
}

}  // namespace servescope
