#include "diagnose/fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/text.h"
#include "diagnose/fit_space.h"

namespace servescope {

namespace {

double number_of(const Plan& plan, const std::string& id) {
  if (id.empty() || !plan.has_output(id))
    return 0;
  const Value& v = plan.output(id);
  return v.is_number() ? v.as_number() : 0;
}

int int_flag(const LaunchCommand& command, const std::string& canonical) {
  const FlagSetting* f = command.find(canonical);
  return f == nullptr ? 1 : static_cast<int>(parse_int(f->value()).value_or(1));
}

// One planned candidate.
struct Evaluation {
  Scenario scenario;
  bool planned = false;
  bool starts = false;
  FitFigures figures;
  bool meets = false;
  double ratio = 0;
  std::string binding;
  std::string why_not;
  // Flags of the command that error-level findings blame for a failed start (canonical).
  std::vector<std::string> blocking_flags;
};

// Whether `options` holds one with the same settings, in any order.
bool contains_option(const std::vector<FlagOption>& options, const FlagOption& o) {
  auto key = [](const FlagOption& x) {
    std::vector<std::string> parts;
    for (const FlagOption::Setting& st : x.settings)
      parts.push_back(st.flag + (st.remove ? "-" : "=" + st.value));
    std::sort(parts.begin(), parts.end());
    std::string k;
    for (const std::string& p : parts)
      k += p + "\x1f";
    return k;
  };
  const std::string wanted = key(o);
  return std::any_of(options.begin(), options.end(),
                     [&](const FlagOption& x) { return key(x) == wanted; });
}

// The command's flags that error-level findings name, canonical, once each.
std::vector<std::string> blocking_flags(const Plan& plan, const LaunchCommand& command) {
  std::vector<std::string> out;
  for (const Finding& f : plan.findings) {
    if (f.severity != Severity::kError)
      continue;
    for (const std::string& typed : f.flags) {
      for (const FlagSetting& setting : command.flags) {
        if ((setting.spelled == typed || setting.name == typed) &&
            std::find(out.begin(), out.end(), setting.name) == out.end()) {
          out.push_back(setting.name);
        }
      }
    }
  }
  return out;
}

class FitSearch {
 public:
  FitSearch(const Engine& engine, const Scenario& base, const FitTarget& target,
            const FitSpace& space, const FitKnobs& knobs)
      : engine_(engine), base_(base), target_(target), space_(space), knobs_(knobs) {}

  std::size_t plans() const { return plans_; }

  // The least change at one hardware point that meets the target (or, in longest-context mode,
  // the longest context), and the closest miss when nothing does.
  std::vector<Evaluation> best_at(const HardwarePoint& point, Evaluation& closest_miss) {
    std::vector<FlagOption> options = flag_options(space_, knobs_, base_);
    // A command that cannot start here because of its own flags (a fusion this GPU lacks, a
    // backend it cannot run): the same options again without them.
    const Evaluation as_typed = evaluate(point, options.front(), std::nullopt, target_context());
    if (!as_typed.starts && !as_typed.blocking_flags.empty()) {
      const std::size_t n = options.size();
      for (std::size_t i = 0; i < n; ++i) {
        FlagOption without = options[i];
        bool added = false;
        for (const std::string& flag : as_typed.blocking_flags) {
          const bool there = std::any_of(
              without.settings.begin(), without.settings.end(),
              [&](const FlagOption::Setting& st) { return st.flag == flag && st.remove; });
          if (!there) {
            without.settings.push_back({flag, flag, "", true});
            added = true;
          }
        }
        // The same option without the blocking flags; one that takes them out already is
        // there (the typed-flag removals include them).
        if (added && !contains_option(options, without))
          options.push_back(std::move(without));
      }
      std::stable_sort(options.begin(), options.end(), [](const auto& a, const auto& b) {
        return a.settings.size() < b.settings.size();
      });
    }
    std::vector<Evaluation> best;
    std::size_t best_tier = 0;
    for (const FlagOption& option : options) {
      // Options come fewest changes first: every option of the first tier that meets is a
      // least change. Pruned, later tiers are not planned; unpruned they are, and the answer
      // is the same.
      if (!target_.longest_context && !best.empty() && option.settings.size() > best_tier) {
        if (space_.prune)
          break;
        (void)least_fraction_with(point, option, closest_miss);
        continue;
      }
      std::optional<Evaluation> found = target_.longest_context
                                            ? longest_context_with(point, option, closest_miss)
                                            : least_fraction_with(point, option, closest_miss);
      if (!found)
        continue;
      if (target_.longest_context) {
        // The front of (changes, context): an option is kept when it reaches a longer context
        // than every option with fewer changes before it (as typed 43,520; with FP8 KV 87,040).
        const bool longer = std::all_of(best.begin(), best.end(), [&](const Evaluation& b) {
          return found->figures.at_context > b.figures.at_context;
        });
        if (longer)
          best.push_back(std::move(*found));
        continue;
      }
      best_tier = option.settings.size();
      best.push_back(std::move(*found));
    }
    return best;
  }

 private:
  // The scenario of a hardware point with a flag option, a fraction (nullopt: as the command
  // has it) and a context length (0: as the command has it).
  Scenario scenario_for(const HardwarePoint& p, const FlagOption& option,
                        std::optional<double> fraction) const {
    Scenario s = base_;
    // Figures measured on another GPU, or with the model split otherwise, do not carry over.
    if (p.gpu->key != base_.hardware.gpu.key ||
        p.tensor_parallel != int_flag(base_.command, knobs_.tensor_parallel) ||
        p.pipeline_parallel != int_flag(base_.command, knobs_.pipeline_parallel)) {
      s.calibration = Calibration{};
    }
    s.hardware.gpu = *p.gpu;
    s.hardware.gpus_per_node = p.gpus / p.nodes;
    if (space_.vary_parallelism) {
      set_int(s, knobs_.tensor_parallel, p.tensor_parallel);
      set_int(s, knobs_.pipeline_parallel, p.pipeline_parallel);
    }
    if (space_.vary_data_parallel)
      set_int(s, knobs_.data_parallel, p.data_parallel);
    if (p.nodes > 1 || int_flag(s.command, knobs_.nodes) != 1) {
      set_int(s, knobs_.nodes, p.nodes);
      if (p.nodes > 1)
        set_flag(s, knobs_.node_rank, "0");
    }
    for (const FlagOption::Setting& setting : option.settings) {
      if (setting.remove)
        remove_flag_change(setting.flag, s).apply(s);
      else
        set_flag(s, setting.flag, setting.value, setting.spelled);
    }
    if (fraction)
      set_flag(s, knobs_.memory_fraction, format_fraction(*fraction));
    return s;
  }

  static std::string format_fraction(double f) {
    std::string t = fmt::format("{:.3f}", f);
    while (t.back() == '0')
      t.pop_back();
    if (t.back() == '.')
      t.pop_back();
    return t;
  }

  // Sets a flag, keeping the spelling the user typed it with; a value the command already has
  // changes nothing, and an absent integer flag at its default of 1 stays absent.
  void set_int(Scenario& s, const std::string& canonical, int value) const {
    const FlagSetting* typed = s.command.find(canonical);
    if (typed == nullptr && value == 1)
      return;
    set_flag(s, canonical, std::to_string(value));
  }

  static void set_flag(Scenario& s, const std::string& canonical, const std::string& value,
                       const std::string& spelled = "") {
    const FlagSetting* typed = s.command.find(canonical);
    if (typed != nullptr && typed->value() == value)
      return;
    const std::string spelling =
        typed != nullptr ? typed->spelled : (spelled.empty() ? canonical : spelled);
    std::vector<std::string> values;
    if (!value.empty())
      values.push_back(value);
    set_flag_change(canonical, spelling, values, s).apply(s);
  }

  // Plans one scenario (cached by what distinguishes it) and judges it against the target at
  // context length `context` (0: the context the plan states).
  Evaluation plan_once(const Scenario& s, std::int64_t context) {
    const std::string key = fmt::format("{}|{}|{}|{}", s.hardware.gpu.key, s.hardware.gpus_per_node,
                                        s.command.to_string(), context);
    auto it = cache_.find(key);
    if (it != cache_.end())
      return it->second;
    Evaluation e;
    e.scenario = s;
    ++plans_;
    auto plan = engine_.plan(s);
    if (!plan) {
      e.why_not = plan.message();  // the engine refuses the command outright
    } else {
      e.planned = true;
      e.starts = plan->starts;
      e.figures = figures_of(*plan, context);
      e.figures.replicas = std::max(1, int_flag(s.command, knobs_.data_parallel));
      if (!plan->starts) {
        e.why_not = plan->startup_error;
        e.blocking_flags = blocking_flags(*plan, s.command);
      }
      judge(e, context);
    }
    cache_.emplace(key, e);
    return e;
  }

  FitFigures figures_of(const Plan& plan, std::int64_t context) const {
    FitFigures f;
    f.kv_tokens = number_of(plan, knobs_.kv_tokens_output);
    f.request_limit = number_of(plan, knobs_.request_limit_output);
    f.context = number_of(plan, knobs_.context_output);
    f.fraction = number_of(plan, knobs_.fraction_output);
    f.estimated = !plan.estimated.empty();
    const double len = context > 0 ? static_cast<double>(context) : f.context;
    // The engine's own concurrency figure where it states one at this length; else the
    // requests of that length the token capacity holds.
    double kv_requests = 0;
    if (!knobs_.concurrency_output.empty() && plan.has_output(knobs_.concurrency_output) &&
        std::abs(f.context - len) < 0.5) {
      kv_requests = number_of(plan, knobs_.concurrency_output);
    } else if (len > 0) {
      kv_requests = std::floor(f.kv_tokens / len);
    }
    f.concurrency = f.request_limit > 0 ? std::min(f.request_limit, kv_requests) : kv_requests;
    f.kv_requests = kv_requests;
    f.at_context = len;
    return f;
  }

  void judge(Evaluation& e, std::int64_t context) const {
    if (!e.starts) {
      e.ratio = 0;
      e.meets = false;
      e.binding = "does not start";
      return;
    }
    const FitFigures& f = e.figures;
    // Data-parallel replicas each hold their own requests, slots and KV cache.
    const double n = f.replicas;
    const std::string each = f.replicas > 1 ? fmt::format(" × {} replicas", f.replicas) : "";
    double worst = std::numeric_limits<double>::infinity();
    auto consider = [&](double achieved, double needed, std::string what) {
      const double r = achieved / needed;
      if (r < worst) {
        worst = r;
        e.binding = std::move(what);
      }
    };
    const std::int64_t len = context > 0 ? context : static_cast<std::int64_t>(f.context);
    // The context is a requirement, not a quantity with a margin: it binds only when short.
    if (context > 0 && f.context < static_cast<double>(context))
      consider(f.context, static_cast<double>(context), fmt::format("context {:.0f}", f.context));
    // Served at a length means one request of it fits: an engine can start with less KV cache
    // than one such request needs (vLLM 0.34 checks the capacity before measuring the size).
    if (target_.context && !target_.concurrency) {
      consider(
          n * f.kv_requests, 1,
          fmt::format("KV cache: {:.4g} requests of {} tokens{}", f.kv_requests, context, each));
    }
    const std::optional<std::int64_t> concurrency =
        target_.concurrency
            ? target_.concurrency
            : (target_.longest_context ? std::optional<std::int64_t>(1) : std::nullopt);
    if (concurrency) {
      const bool limit_binds = f.request_limit > 0 && f.request_limit < f.kv_requests;
      consider(n * f.concurrency, static_cast<double>(*concurrency),
               limit_binds ? fmt::format("running-request limit {:.0f}{}", f.request_limit, each)
                           : fmt::format("KV cache: {:.4g} requests of {} tokens{}", f.kv_requests,
                                         len, each));
    }
    if (target_.kv_tokens) {
      consider(n * f.kv_tokens, static_cast<double>(*target_.kv_tokens),
               fmt::format("KV cache: {:.0f} tokens{}", f.kv_tokens, each));
    }
    if (target_.max_running_requests) {
      consider(n * f.request_limit, static_cast<double>(*target_.max_running_requests),
               fmt::format("running-request limit {:.0f}{}", f.request_limit, each));
    }
    e.ratio = worst;
    e.meets = worst >= 1;
    if (!e.meets)
      e.why_not = e.binding;
  }

  // Plans a candidate at context length `context` (0: as the command has it), letting fit set
  // what the target itself demands: the context flag where the engine states its concurrency
  // at it or its default is shorter, and the running-request limit where it is below the
  // number of requests the target needs at once.
  Evaluation evaluate(const HardwarePoint& p, const FlagOption& option,
                      std::optional<double> fraction, std::int64_t context) {
    Scenario s = scenario_for(p, option, fraction);
    Evaluation e = plan_once(s, context);
    if (e.planned && context > 0 && space_.vary_context &&
        std::abs(e.figures.context - static_cast<double>(context)) >= 0.5 &&
        (knobs_.concurrency_at_context_flag || e.figures.context < static_cast<double>(context))) {
      set_flag(s, knobs_.context, std::to_string(context));
      e = plan_once(s, context);
    }
    // Each data-parallel replica runs its share of the requests.
    const std::int64_t total =
        std::max(target_.concurrency.value_or(0), target_.max_running_requests.value_or(0));
    const std::int64_t needed = (total + p.data_parallel - 1) / p.data_parallel;
    if (e.planned && e.starts && space_.vary_request_limit && needed > 0 &&
        e.figures.request_limit > 0 && e.figures.request_limit < static_cast<double>(needed)) {
      Scenario raised = s;
      set_flag(raised, knobs_.request_limit, std::to_string(needed));
      Evaluation r = plan_once(raised, context);
      if (r.planned && r.ratio > e.ratio)
        e = std::move(r);
    }
    return e;
  }

  void note_miss(const Evaluation& e, Evaluation& closest) const {
    // A command the engine refuses outright (its error, no plan) is kept only while nothing
    // better is known, so an impossible target still says why.
    if (!e.planned) {
      if (!closest.planned && closest.why_not.empty())
        closest = e;
      return;
    }
    if (!closest.planned || e.ratio > closest.ratio || (!closest.starts && e.starts))
      closest = e;
  }

  std::int64_t target_context() const { return target_.context.value_or(0); }

  // The smallest memory fraction (the command's own first) at which this option meets the
  // target. Monotone: on the grid (≤ 0.95), a higher fraction never shrinks the KV budget
  // nor the requests it holds, and never makes a starting engine fail (vLLM's free-memory
  // gate needs a fraction above free/total, which is above 0.95 without co-tenants), so the
  // meeting fractions are an upper interval of the grid and bisection finds its start.
  std::optional<Evaluation> least_fraction_with(const HardwarePoint& p, const FlagOption& option,
                                                Evaluation& closest) {
    Evaluation as_is = evaluate(p, option, std::nullopt, target_context());
    if (as_is.meets)
      return as_is;
    note_miss(as_is, closest);
    if (!as_is.planned)
      return std::nullopt;
    const std::vector<double> grid = fraction_grid(space_, knobs_, as_is.figures.fraction);
    if (grid.empty())
      return std::nullopt;
    if (!space_.prune) {
      std::optional<Evaluation> first;
      for (double f : grid) {
        Evaluation e = evaluate(p, option, f, target_context());
        if (e.meets && !first)
          first = e;
        if (!e.meets)
          note_miss(e, closest);
      }
      return first;
    }
    Evaluation top = evaluate(p, option, grid.back(), target_context());
    if (!top.meets) {
      note_miss(top, closest);
      return std::nullopt;
    }
    // grid[hi] meets; everything below lo does not.
    std::size_t lo = 0, hi = grid.size() - 1;
    Evaluation best = top;
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      Evaluation e = evaluate(p, option, grid[mid], target_context());
      if (e.meets) {
        hi = mid;
        best = std::move(e);
      } else {
        note_miss(e, closest);
        lo = mid + 1;
      }
    }
    return best;
  }

  // The longest context on the grid (multiples of the step, and the model's own length) at
  // which this option meets the rest of the target, at the command's own fraction. Monotone:
  // a longer context never lets more requests of it fit, so the meeting lengths are a lower
  // interval of the grid and bisection finds its end.
  std::optional<Evaluation> longest_context_with(const HardwarePoint& p, const FlagOption& option,
                                                 Evaluation& closest) {
    Evaluation native = evaluate(p, option, std::nullopt, 0);
    if (!native.planned || native.figures.context < 1) {
      note_miss(native, closest);
      return std::nullopt;
    }
    const auto model_len = static_cast<std::int64_t>(native.figures.context);
    std::vector<std::int64_t> grid;
    for (std::int64_t l = space_.context_step; l < model_len; l += space_.context_step)
      grid.push_back(l);
    grid.push_back(model_len);
    if (!space_.prune) {
      std::optional<Evaluation> last;
      for (std::int64_t l : grid) {
        Evaluation e = evaluate(p, option, std::nullopt, l);
        if (e.meets)
          last = e;
        else
          note_miss(e, closest);
      }
      return last;
    }
    Evaluation longest = evaluate(p, option, std::nullopt, grid.back());
    if (longest.meets)
      return longest;
    Evaluation shortest = evaluate(p, option, std::nullopt, grid.front());
    if (!shortest.meets) {
      note_miss(shortest, closest);
      return std::nullopt;
    }
    // grid[lo] meets; grid[hi] does not.
    std::size_t lo = 0, hi = grid.size() - 1;
    Evaluation best = shortest;
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      Evaluation e = evaluate(p, option, std::nullopt, grid[mid]);
      if (e.meets) {
        lo = mid;
        best = std::move(e);
      } else {
        hi = mid;
      }
    }
    return best;
  }

  const Engine& engine_;
  const Scenario& base_;
  const FitTarget& target_;
  const FitSpace& space_;
  const FitKnobs& knobs_;
  std::size_t plans_ = 0;
  std::map<std::string, Evaluation> cache_;
};

FitConfiguration configuration_of(const HardwarePoint& p, Evaluation e, const Scenario& base) {
  FitConfiguration c;
  c.gpu = p.gpu->key;
  c.gpus = p.gpus;
  c.nodes = p.nodes;
  c.tensor_parallel = p.tensor_parallel;
  c.pipeline_parallel = p.pipeline_parallel;
  c.data_parallel = p.data_parallel;
  c.cost = p.cost;
  for (const ScenarioChange& change : changes_between(base, e.scenario)) {
    if (change.kind == ScenarioChange::Kind::kFlag)
      c.changes.push_back(change.label);
  }
  c.command = e.scenario.command.to_string();
  c.scenario = std::move(e.scenario);
  c.figures = e.figures;
  c.meets = e.meets;
  c.starts = e.starts;
  c.ratio = e.ratio;
  c.binding = std::move(e.binding);
  c.why_not = std::move(e.why_not);
  return c;
}

// Best first: cheapest, fewest nodes, fewest changes, shortest pipeline, widest margin; in
// longest-context mode the longest context before all of these.
bool ranks_before(const FitConfiguration& a, const FitConfiguration& b, bool longest) {
  if (longest && a.figures.at_context != b.figures.at_context)
    return a.figures.at_context > b.figures.at_context;
  if (a.cost != b.cost)
    return a.cost < b.cost;
  if (a.nodes != b.nodes)
    return a.nodes < b.nodes;
  if (a.changes.size() != b.changes.size())
    return a.changes.size() < b.changes.size();
  // Tensor parallelism inside a node before pipeline stages: a pipeline adds a bubble to
  // every step, so at equal cost and changes the shorter pipeline ranks first.
  if (a.pipeline_parallel != b.pipeline_parallel)
    return a.pipeline_parallel < b.pipeline_parallel;
  return a.ratio > b.ratio;
}

}  // namespace

Result<FitResult> fit_configurations(const Engine& engine, const Scenario& base,
                                     const FitTarget& target, const FitSpace& space) {
  const FitKnobs* knobs = engine.fit_knobs();
  if (knobs == nullptr)
    return fail(fmt::format("fit: {} has no fit knobs", engine.name()));
  if (!target.any()) {
    return fail(
        "fit: no target; give --concurrency N --context L, --kv-tokens T, "
        "--max-running-requests N or --context L|max");
  }
  if (space.gpus.empty())
    return fail("fit: no GPU to search; give --gpu KEY[,KEY...]");
  FitResult out;
  out.engine = std::string(engine.name());
  out.version = base.version.label;
  out.model = base.model.source;
  out.target = target;
  out.cost_unit = space.price_per_gpu_hour.empty() ? "GPUs" : "USD/h";
  out.multi_node_note = knobs->multi_node_note;
  const std::vector<HardwarePoint> points =
      hardware_points(space, int_flag(base.command, knobs->tensor_parallel),
                      int_flag(base.command, knobs->pipeline_parallel),
                      int_flag(base.command, knobs->data_parallel));
  out.hardware_points = points.size();
  FitSearch search(engine, base, target, space, *knobs);
  std::vector<FitConfiguration> misses;
  double last_cost = -1;
  for (const HardwarePoint& p : points) {
    // Cost bound: points come cheapest first and rank by cost before anything else, so once
    // `limit` configurations meet at a lower cost, no costlier point can enter the table.
    if (space.prune && !target.longest_context && out.configurations.size() >= space.limit &&
        p.cost > last_cost) {
      break;
    }
    last_cost = p.cost;
    Evaluation closest;
    std::vector<Evaluation> best = search.best_at(p, closest);
    for (Evaluation& e : best)
      out.configurations.push_back(configuration_of(p, std::move(e), base));
    if (best.empty() && (closest.planned || !closest.why_not.empty())) {
      misses.push_back(configuration_of(p, std::move(closest), base));
    }
  }
  out.plans = search.plans();
  const bool longest = target.longest_context;
  std::stable_sort(out.configurations.begin(), out.configurations.end(),
                   [&](const auto& a, const auto& b) { return ranks_before(a, b, longest); });
  if (out.configurations.size() > space.limit)
    out.configurations.resize(space.limit);
  // The misses worth showing: those that start and come closest, cheaper than the best that
  // meets (what one fewer GPU would lack); when nothing meets, the closest of all.
  const double cheapest = out.configurations.empty() ? std::numeric_limits<double>::infinity()
                                                     : out.configurations.front().cost;
  std::erase_if(misses, [&](const FitConfiguration& m) { return m.cost >= cheapest; });
  std::stable_sort(misses.begin(), misses.end(), [](const auto& a, const auto& b) {
    if (a.starts != b.starts)
      return a.starts;
    if (a.ratio != b.ratio)
      return a.ratio > b.ratio;
    return a.cost < b.cost;
  });
  if (misses.size() > 3)
    misses.resize(3);
  out.closest = std::move(misses);
  return out;
}

}  // namespace servescope
