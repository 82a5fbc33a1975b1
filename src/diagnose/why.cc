#include "diagnose/why.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>

#include "diagnose/counterfactuals.h"

namespace servescope {
namespace {

// How plausible a change is before any evidence: engines are upgraded, free memory differs
// between machines (the less, the likelier: see the distance factor where hypotheses are
// scored), flags are typed on purpose; a value solved for is less likely typed than a flag
// toggled. These weights only order hypotheses that reproduce the observation equally well.
double prior(const ScenarioChange& c) {
  switch (c.kind) {
    case ScenarioChange::Kind::kVersion:
      return 0.8;
    case ScenarioChange::Kind::kFreeAfterLoad:
    case ScenarioChange::Kind::kFreeBeforeLoad:
      return 0.7;
    case ScenarioChange::Kind::kGpu:
      return 0.3;
    case ScenarioChange::Kind::kModel:
      return 0.2;
    case ScenarioChange::Kind::kEnvironment:
      return 0.4;
    case ScenarioChange::Kind::kFlag:
      return c.solved ? 0.3 : 0.5;  // a solved value is less likely typed
  }
  return 0.5;
}

class Searcher {
 public:
  Searcher(const Engine& engine, const Scenario& base, const Observation& obs)
      : engine_(engine), base_(base), obs_(obs) {}

  // The observed output under `changes` (NaN when the server would not start or the output
  // is not computed).
  double eval(const std::vector<const ScenarioChange*>& changes) {
    std::string key;
    for (const ScenarioChange* c : changes)
      key += c->label + "\x1f" + std::to_string(c->gib.value_or(-1)) + "\x1e";
    auto it = cache_.find(key);
    if (it != cache_.end())
      return it->second;
    ++evaluations_;
    auto plan = engine_.plan(apply_changes(base_, changes));
    double v = std::nan("");
    if (plan) {
      const Value value = output_value(*plan, obs_.output);
      if (value.is_bool())
        v = value.as_bool() ? 1 : 0;
      if (value.is_number())
        v = value.as_number();
    }
    cache_.emplace(std::move(key), v);
    return v;
  }

  std::vector<std::string> path_of(const std::vector<const ScenarioChange*>& changes) {
    auto before = engine_.plan(base_);
    auto after = engine_.plan(apply_changes(base_, changes));
    std::vector<std::string> path;
    if (!before || !after)
      return path;
    // Nodes are added after their inputs, so graph order runs from causes to the output.
    const std::vector<std::string> closure = after->graph.closure_of(obs_.output);
    for (const Node& a : after->graph.nodes()) {
      if (a.inputs.empty() || a.rule.empty())
        continue;
      if (std::find(closure.begin(), closure.end(), a.id) == closure.end())
        continue;
      const Node* b = before->graph.find(a.id);
      if (b != nullptr && b->value == a.value)
        continue;
      if (std::find(path.begin(), path.end(), a.rule) == path.end())
        path.push_back(a.rule);
    }
    return path;
  }

  // Finds values of a numeric input (on top of `prefix`) that reproduce the observation, by
  // bisection on the monotone output; returns the change and the range of values that do.
  std::optional<std::pair<ScenarioChange, std::string>> solve(
      const std::vector<const ScenarioChange*>& prefix,
      const std::function<ScenarioChange(double)>& make, double lo, double hi, bool integer,
      const std::string& unit) {
    auto f = [&](double v) {
      ScenarioChange c = make(integer ? std::round(v) : v);
      std::vector<const ScenarioChange*> all = prefix;
      all.push_back(&c);
      return eval(all);
    };
    const double target = obs_.observed;
    double a = lo, b = hi;
    double fa = f(a), fb = f(b);
    // An end where the server does not start (too little memory, say): move it inwards to
    // the edge of the region that starts, assuming that region is an interval.
    auto shrink = [&](double& bad, double& fbad, double good) {
      double fgood = f(good);
      if (std::isnan(fgood))
        return;
      for (int i = 0; i < 50; ++i) {
        const double mid = integer ? std::floor((bad + good) / 2) : (bad + good) / 2;
        if ((integer && (mid == bad || mid == good)) || (!integer && std::fabs(good - bad) < 1e-4))
          break;
        const double fm = f(mid);
        if (std::isnan(fm)) {
          bad = mid;
        } else {
          good = mid;
          fgood = fm;
        }
      }
      bad = good;
      fbad = fgood;
    };
    if (std::isnan(fa) && std::isnan(fb))
      return std::nullopt;
    if (std::isnan(fa))
      shrink(a, fa, b);
    if (std::isnan(fb))
      shrink(b, fb, a);
    if (std::isnan(fa) || std::isnan(fb))
      return std::nullopt;
    lo = a;
    hi = b;
    const bool increasing = fb >= fa;
    auto below = [&](double fv) { return increasing ? fv < target : fv > target; };
    if (below(fb) || (!below(fa) && fa != target))
      return std::nullopt;  // target outside [f(lo), f(hi)]
    double hit = std::nan("");
    if (fa == target)
      hit = a;
    if (fb == target)
      hit = b;
    for (int i = 0; i < 60 && std::isnan(hit); ++i) {
      const double mid = integer ? std::floor((a + b) / 2) : (a + b) / 2;
      if ((integer && (mid <= a || mid >= b)) || (!integer && b - a < 1e-6))
        break;
      const double fm = f(mid);
      if (std::isnan(fm))
        return std::nullopt;
      if (fm == target) {
        hit = mid;
      } else if (below(fm)) {
        a = mid;
      } else {
        b = mid;
      }
    }
    if (std::isnan(hit))
      return std::nullopt;
    // The range of values that give exactly the target: bisect to both edges.
    auto edge = [&](double inside, double outside) {
      for (int i = 0; i < 40; ++i) {
        const double mid = integer ? std::floor((inside + outside) / 2) : (inside + outside) / 2;
        if ((integer && (mid == inside || mid == outside)) ||
            (!integer && std::fabs(outside - inside) < 1e-4))
          break;
        if (f(mid) == target) {
          inside = mid;
        } else {
          outside = mid;
        }
      }
      return inside;
    };
    const double low = edge(hit, lo), high = edge(hit, hi);
    const double lo_edge = std::min(low, high), hi_edge = std::max(low, high);
    std::string range =
        integer ? (lo_edge == hi_edge ? fmt::format("{:.0f}", lo_edge)
                                      : fmt::format("{:.0f} … {:.0f}", lo_edge, hi_edge))
                : fmt::format("{:.3f} … {:.3f}", lo_edge, hi_edge);
    if (!unit.empty())
      range += " " + unit;
    return std::make_pair(
        make(integer ? std::round((lo_edge + hi_edge) / 2) : (lo_edge + hi_edge) / 2), range);
  }

  std::size_t evaluations() const { return evaluations_; }

 private:
  const Engine& engine_;
  const Scenario& base_;
  const Observation& obs_;
  std::map<std::string, double> cache_;
  std::size_t evaluations_ = 0;
};

std::string predicted_text(double v) {
  if (std::isnan(v))
    return "fails to start";
  if (v == std::floor(v))
    return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

}  // namespace

std::string Hypothesis::label() const {
  std::vector<std::string> parts;
  for (const ScenarioChange& c : changes)
    parts.push_back(c.label);
  return fmt::format("{}", fmt::join(parts, " + "));
}

Result<WhyResult> explain_observation(const Engine& engine, const Scenario& scenario,
                                      const Observation& obs, std::size_t limit) {
  auto base_plan = engine.plan(scenario);
  if (!base_plan)
    return base_plan.error();
  const std::vector<std::string> names = engine.output_names();
  if (obs.output != "starts" && std::find(names.begin(), names.end(), obs.output) == names.end()) {
    return fail(
        fmt::format("why {}: no such output; outputs: {}", obs.output, fmt::join(names, ", ")));
  }
  WhyResult out;
  out.output = obs.output;
  out.observed = obs.observed;
  out.expected = obs.expected;
  out.baseline_starts = base_plan->starts;
  const Value bv = output_value(*base_plan, obs.output);
  out.baseline = bv.is_bool() ? (bv.as_bool() ? 1 : 0) : bv.as_number();

  Searcher search(engine, scenario, obs);
  std::vector<Hypothesis> found;
  struct Near {
    Hypothesis h;
    double distance;
  };
  std::vector<Near> near;
  auto consider = [&](std::vector<ScenarioChange> changes, double value, std::string range = {}) {
    Hypothesis h;
    h.changes = std::move(changes);
    h.predicted = value;
    h.exact = value == obs.observed;
    h.solved_range = std::move(range);
    h.score = 1.0;
    for (const ScenarioChange& c : h.changes) {
      h.score *= prior(c);
      // A small loss of free memory is more plausible than a large one.
      if (c.gib && c.kind == ScenarioChange::Kind::kFreeAfterLoad &&
          scenario.calibration.free_after_load_gib) {
        h.score *= std::exp(-std::fabs(*c.gib - *scenario.calibration.free_after_load_gib) / 40);
      }
      if (c.gib && c.kind == ScenarioChange::Kind::kFreeBeforeLoad &&
          scenario.calibration.free_before_load_gib) {
        h.score *= std::exp(-std::fabs(*c.gib - *scenario.calibration.free_before_load_gib) / 40);
      }
    }
    if (h.exact) {
      found.push_back(std::move(h));
    } else if (!std::isnan(value)) {
      near.push_back({std::move(h), std::fabs(value - obs.observed)});
    }
  };

  // 1. Single discrete changes.
  const std::vector<ScenarioChange> candidates = engine.candidate_changes(scenario);
  out.candidates = candidates.size();
  std::vector<std::size_t> movers;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const double v = search.eval({&candidates[i]});
    if (!(v == out.baseline))
      movers.push_back(i);
    consider({candidates[i]}, v);
  }
  // 2. Numeric inputs solved by bisection: the engine's numeric flags and the calibration.
  const double gpu_gib = static_cast<double>(scenario.hardware.gpu.memory_mib) / 1024;
  const double p = scenario.calibration.free_before_load_gib.value_or(gpu_gib - 0.85);
  struct NumericSolver {
    std::function<ScenarioChange(double)> make;
    double lo, hi;
    bool integer;
    std::string unit;
  };
  std::vector<NumericSolver> solvers;
  auto calibration = [&](ScenarioChange::Kind kind, std::string name, double lo, double hi) {
    solvers.push_back({[kind, name](double v) {
                         ScenarioChange c;
                         c.kind = kind;
                         c.subject = name;
                         c.gib = v;
                         c.label = fmt::format("{} {:.2f} GiB",
                                               name == "free_after_load"
                                                   ? "free memory after weight load"
                                                   : "free memory before weight load",
                                               v);
                         return c;
                       },
                       lo, hi, false, "GiB"});
  };
  calibration(ScenarioChange::Kind::kFreeAfterLoad, "free_after_load", 0.5, p);
  calibration(ScenarioChange::Kind::kFreeBeforeLoad, "free_before_load",
              scenario.calibration.free_after_load_gib.value_or(1.0) + 0.01, gpu_gib);
  const std::size_t calibration_solvers = solvers.size();
  for (const NumericInput& in : engine.numeric_inputs(scenario)) {
    solvers.push_back({[in, &scenario](double v) {
                         ScenarioChange c = set_flag_change(
                             in.subject, in.spelled,
                             {in.integer ? fmt::format("{:.0f}", v) : fmt::format("{:.4f}", v)},
                             scenario);
                         c.solved = true;
                         return c;
                       },
                       in.lo, in.hi, in.integer, ""});
  }
  for (const NumericSolver& s : solvers) {
    if (auto hit = search.solve({}, s.make, s.lo, s.hi, s.integer, s.unit))
      consider({hit->first}, obs.observed, hit->second);
  }
  // 3. Pairs: two discrete movers, and a discrete mover with the calibration solved on top.
  for (std::size_t x = 0; x < movers.size(); ++x) {
    const ScenarioChange& cx = candidates[movers[x]];
    for (std::size_t y = x + 1; y < movers.size(); ++y) {
      const ScenarioChange& cy = candidates[movers[y]];
      if (cx.subject == cy.subject)
        continue;
      consider({cx, cy}, search.eval({&cx, &cy}));
    }
    for (std::size_t k = 0; k < calibration_solvers; ++k) {
      if (auto hit =
              search.solve({&cx}, solvers[k].make, solvers[k].lo, solvers[k].hi, false, "GiB")) {
        consider({cx, hit->first}, obs.observed, hit->second);
      }
    }
  }
  // Versions that reproduce the observation the same way (same other changes, same solved
  // range) are one hypothesis over a date range.
  {
    std::vector<Hypothesis> merged;
    std::map<std::string, std::size_t> by_key;
    for (Hypothesis& h : found) {
      const ScenarioChange* version = nullptr;
      std::string key;
      for (const ScenarioChange& c : h.changes) {
        if (c.kind == ScenarioChange::Kind::kVersion) {
          version = &c;
        } else {
          key += c.label + "|";
        }
      }
      if (version == nullptr) {
        merged.push_back(std::move(h));
        continue;
      }
      key += h.solved_range;
      auto it = by_key.find(key);
      if (it == by_key.end()) {
        by_key.emplace(key, merged.size());
        merged.push_back(std::move(h));
        continue;
      }
      // Widen the kept hypothesis' version to a date range.
      for (ScenarioChange& c : merged[it->second].changes) {
        if (c.kind != ScenarioChange::Kind::kVersion)
          continue;
        const std::string first = c.version->main_date, last = version->version->main_date;
        c.label = fmt::format("sglang {} → main {} … {}", scenario.version.label,
                              std::min(first, c.subject == "version" ? first : first),
                              std::max(last, first));
        c.subject = "version-range";
      }
    }
    found = std::move(merged);
  }
  // Rank: fewer changes, then the prior; a pair whose part alone already reproduces the
  // observation adds nothing and is dropped.
  std::vector<std::string> single_subjects;
  for (const Hypothesis& h : found) {
    if (h.changes.size() == 1)
      single_subjects.push_back(h.changes[0].label);
  }
  std::erase_if(found, [&](const Hypothesis& h) {
    if (h.changes.size() < 2)
      return false;
    return std::any_of(h.changes.begin(), h.changes.end(), [&](const ScenarioChange& c) {
      return c.kind != ScenarioChange::Kind::kFreeAfterLoad &&
             c.kind != ScenarioChange::Kind::kFreeBeforeLoad &&
             std::find(single_subjects.begin(), single_subjects.end(), c.label) !=
                 single_subjects.end();
    });
  });
  std::stable_sort(found.begin(), found.end(), [](const Hypothesis& a, const Hypothesis& b) {
    if (a.changes.size() != b.changes.size())
      return a.changes.size() < b.changes.size();
    return a.score > b.score;
  });
  if (found.size() > limit)
    found.resize(limit);
  for (Hypothesis& h : found) {
    std::vector<const ScenarioChange*> ptrs;
    for (const ScenarioChange& c : h.changes)
      ptrs.push_back(&c);
    h.path = search.path_of(ptrs);
  }
  out.hypotheses = std::move(found);
  if (out.hypotheses.empty()) {
    std::stable_sort(near.begin(), near.end(), [](const Near& a, const Near& b) {
      if (a.distance != b.distance)
        return a.distance < b.distance;
      return a.h.changes.size() < b.h.changes.size();
    });
    for (std::size_t i = 0; i < near.size() && i < 5; ++i)
      out.closest.push_back(near[i].h);
  }

  // 4. The isolation plan: flag experiments whose predicted outcome differs between the
  // hypotheses, chosen greedily until every pair is told apart.
  const std::size_t k = std::min<std::size_t>(out.hypotheses.size(), 6);
  if (k >= 2) {
    std::vector<std::vector<bool>> separated(k, std::vector<bool>(k, false));
    std::vector<Experiment> pool;
    for (const ScenarioChange& c : candidates) {
      if (c.kind != ScenarioChange::Kind::kFlag)
        continue;
      Experiment e;
      e.description = "launch with " + c.label;
      e.changes = {c};
      for (std::size_t h = 0; h < k; ++h) {
        std::vector<const ScenarioChange*> all;
        for (const ScenarioChange& hc : out.hypotheses[h].changes)
          all.push_back(&hc);
        all.push_back(&c);
        e.predicted.push_back(predicted_text(search.eval(all)));
      }
      pool.push_back(std::move(e));
    }
    // The baseline launch itself, read for its logged figures.
    Experiment observe;
    observe.description =
        fmt::format("launch the baseline and read the log's \"Load weight begin/end\" and {} lines",
                    obs.output);
    for (std::size_t h = 0; h < k; ++h) {
      const Hypothesis& hyp = out.hypotheses[h];
      std::string calib;
      for (const ScenarioChange& c : hyp.changes) {
        if (c.gib)
          calib = fmt::format(" at {} {}", c.subject, hyp.solved_range);
      }
      observe.predicted.push_back(calib.empty() ? "logged memory as calibrated"
                                                : "free memory" + calib);
    }
    pool.insert(pool.begin(), std::move(observe));
    while (true) {
      std::size_t best = pool.size(), best_gain = 0;
      for (std::size_t i = 0; i < pool.size(); ++i) {
        std::size_t gain = 0;
        for (std::size_t x = 0; x < k; ++x) {
          for (std::size_t y = x + 1; y < k; ++y) {
            if (!separated[x][y] && pool[i].predicted[x] != pool[i].predicted[y])
              ++gain;
          }
        }
        if (gain > best_gain) {
          best_gain = gain;
          best = i;
        }
      }
      if (best == pool.size())
        break;
      Experiment& e = pool[best];
      e.pairs_separated = best_gain;
      for (std::size_t x = 0; x < k; ++x) {
        for (std::size_t y = x + 1; y < k; ++y) {
          if (e.predicted[x] != e.predicted[y])
            separated[x][y] = true;
        }
      }
      out.experiments.push_back(e);
      pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(best));
    }
  }
  out.evaluations = search.evaluations();
  return out;
}

}  // namespace servescope
