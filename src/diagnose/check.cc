#include "diagnose/check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "core/text.h"
#include "diagnose/check_estimates.h"
#include "diagnose/check_inputs.h"
#include "diagnose/counterfactuals.h"
#include "evidence/log_reader.h"

namespace servescope {
namespace {

struct Plans {
  Plan nominal;
  std::vector<Plan> corners;  // the plan at every corner of the calibration's rounding box
};

// Capacity is monotone in each memory figure, so its extremes over the rounding box are at
// the box's corners: 2^k plans for k rounded figures (k ≤ 8, usually 2). A figure may also lie
// further below (LogScenario::below_gib).
Result<Plans> plan_with_rounding(const Engine& engine, Scenario s, const LogScenario& log) {
  Plans out;
  auto nominal = engine.plan(s);
  if (!nominal)
    return nominal.error();
  out.nominal = std::move(*nominal);
  struct Spread {
    std::optional<double>* field;
    double low, high;
  };
  std::vector<Spread> fields;
  for (const std::string& name : calibration_field_names()) {
    std::optional<double>* f = calibration_field(s.calibration, name);
    if (f == nullptr || !f->has_value())
      continue;
    const auto d = log.rounding_gib.find(name);
    const auto below = log.below_gib.find(name);
    const double up = d != log.rounding_gib.end() ? d->second : 0.0;
    const double down = up + (below != log.below_gib.end() ? below->second : 0.0);
    if (down > 0)
      fields.push_back({f, **f - down, **f + up});
  }
  const std::size_t corners = std::size_t{1} << fields.size();
  for (std::size_t mask = 0; mask < corners && !fields.empty(); ++mask) {
    for (std::size_t i = 0; i < fields.size(); ++i)
      *fields[i].field = (mask >> i) & 1 ? fields[i].high : fields[i].low;
    auto plan = engine.plan(s);
    if (!plan)
      return plan.error();
    out.corners.push_back(std::move(*plan));
  }
  return out;
}

bool depends_on(const Plan& plan, const std::string& output, std::string_view leaf) {
  for (const std::string& id : plan.graph.closure_of(output)) {
    if (id == leaf)
      return true;
  }
  return false;
}

constexpr char kNeedsGpu[] = "--gpu NAME: the GPU, for its memory";
constexpr char kNeedsCommand[] =
    "-- CMD or --from FILE: the run's launch command, to tell a typed value from a default";

// What would replace an estimate the figure rests on: the GPU for its memory (a catalog GPU's
// device total), else the log's own memory lines, which no option supplies.
std::string needs_for_estimate(std::string_view leaf, bool gpu_known) {
  if (!gpu_known || leaf.find("gpu") != std::string_view::npos ||
      leaf.find("total") != std::string_view::npos)
    return kNeedsGpu;
  if (leaf.find("weights") != std::string_view::npos)
    return "--model PATH|ID: the checkpoint's config.json with its quantization, or the log's "
           "weight-load lines";
  return fmt::format("the log's memory lines ({}): a log cut before them cannot say it", leaf);
}

void compare(const LoggedFigure& f, const Plans& plans, bool gpu_known, Comparison& c) {
  const auto plan_bound = plans.nominal.upper_bounds.find(f.output);
  const std::string bounded_above = !f.bounded_above.empty() ? f.bounded_above
                                    : plan_bound != plans.nominal.upper_bounds.end()
                                        ? plan_bound->second
                                        : std::string();
  c.field = f.output;
  c.logged = f.value;
  c.log_line = f.line;
  c.log_raw = f.raw;
  c.from_defaults = f.from_defaults;
  // "count:NODE": the length of a list the plan computes (a capture progress bar's total).
  constexpr std::string_view kCount = "count:";
  const bool count = f.output.rfind(kCount, 0) == 0;
  const std::string id = count ? f.output.substr(kCount.size()) : f.output;
  const Node* found = plans.nominal.graph.find(id);
  Node counted;
  if (count && found != nullptr && found->value.is_list()) {
    counted = *found;
    counted.value = Value(static_cast<std::int64_t>(found->value.as_list().size()));
  }
  const Node* n = count ? (found != nullptr && found->value.is_list() ? &counted : nullptr) : found;
  if (n == nullptr) {
    c.checked = false;
    c.note = plans.nominal.starts
                 ? "the plan does not compute it"
                 : "the plan predicts a failed start: " + plans.nominal.startup_error;
    return;
  }
  c.predicted = n->value;
  for (const std::string& leaf_id : plans.nominal.graph.closure_of(id)) {
    const Node* leaf = plans.nominal.graph.find(leaf_id);
    if (leaf != nullptr && leaf->inputs.empty() && leaf->origin == Origin::kEstimate) {
      c.checked = false;
      c.note = fmt::format("depends on an estimate ({}) where the log gives no figure", leaf_id);
      c.needs = needs_for_estimate(leaf_id, gpu_known);
      if (gpu_known)
        c.estimated.emplace();  // predicted over the estimates' intervals (check_estimates.h)
      return;
    }
  }
  if (!gpu_known && depends_on(plans.nominal, id, "gpu_memory_mib")) {
    c.checked = false;
    c.note = "depends on the GPU's memory, and the log does not name the GPU (pass --gpu)";
    c.needs = kNeedsGpu;
    return;
  }
  if (n->value.is_number() && f.value.is_number()) {
    double lo = n->value.as_number(), hi = lo;
    for (const Plan& corner : plans.corners) {
      const Node* m = corner.graph.find(id);
      if (m != nullptr && count && m->value.is_list()) {
        const auto size = static_cast<double>(m->value.as_list().size());
        lo = std::min(lo, size);
        hi = std::max(hi, size);
      } else if (m != nullptr && m->value.is_number()) {
        lo = std::min(lo, m->value.as_number());
        hi = std::max(hi, m->value.as_number());
      }
    }
    c.predicted_low = lo;
    c.predicted_high = hi;
    const double logged = f.value.as_number();
    // A fraction is printed to a few decimals in the dump: compare to 1e-6 relative.
    const double tol = (n->value.is_double() ? 1e-6 * std::max(1.0, std::fabs(logged)) : 0.0) +
                       f.printed_half_step;
    if (!bounded_above.empty()) {
      c.bound = true;
      c.match = logged <= hi + tol;
      c.note = fmt::format("{}: logged {} ≤ {}, the most the log's memory figures allow",
                           bounded_above, logged, hi);
      return;
    }
    c.match = logged >= lo - tol && logged <= hi + tol;
    if (hi > lo) {
      c.note = fmt::format(
          "the logged memory figures allow {} … {} (±{:.3g}%: their rounding, and "
          "any spread the inferences name)",
          lo, hi, (hi - lo) / 2 / std::max(1.0, std::fabs(n->value.as_number())) * 100);
    } else {
      c.note = "exact: rounding cannot move it";
    }
    return;
  }
  if (f.value.is_list() && n->value.is_list() && list_goes_on(f.value.as_list())) {
    // An excerpt shortened the list: its first elements are compared, the rest is unknown.
    const IntList& logged = f.value.as_list();
    const IntList& predicted = n->value.as_list();
    const std::size_t shown = logged.size() - 1;
    c.match = predicted.size() >= shown &&
              std::equal(logged.begin(), logged.begin() + static_cast<std::ptrdiff_t>(shown),
                         predicted.begin());
    c.note = fmt::format("the log shortened the list to its first {}: compared as a prefix", shown);
    return;
  }
  c.match = f.value == n->value;
  c.note = "exact";
}

}  // namespace

std::vector<std::pair<std::string, std::size_t>> inputs_that_would_check(
    const std::vector<const Comparison*>& unchecked) {
  std::map<std::string, std::size_t> by_option;
  for (const Comparison* c : unchecked) {
    if (!c->checked && !c->needs.empty())
      ++by_option[c->needs.substr(0, c->needs.find(':'))];
  }
  std::vector<std::pair<std::string, std::size_t>> out(by_option.begin(), by_option.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

std::size_t CheckResult::matched() const {
  return static_cast<std::size_t>(
      std::count_if(comparisons.begin(), comparisons.end(),
                    [](const Comparison& c) { return c.checked && c.match; }));
}
std::size_t CheckResult::mismatched() const {
  return static_cast<std::size_t>(
      std::count_if(comparisons.begin(), comparisons.end(),
                    [](const Comparison& c) { return c.checked && !c.match; }));
}
std::size_t CheckResult::unchecked() const {
  return static_cast<std::size_t>(std::count_if(comparisons.begin(), comparisons.end(),
                                                [](const Comparison& c) { return !c.checked; }));
}
std::size_t CheckResult::predicted() const {
  return static_cast<std::size_t>(
      std::count_if(comparisons.begin(), comparisons.end(), [](const Comparison& c) {
        return !c.checked && c.estimated && c.estimated->low.has_value();
      }));
}
std::size_t CheckResult::predicted_outside() const {
  return static_cast<std::size_t>(
      std::count_if(comparisons.begin(), comparisons.end(), [](const Comparison& c) {
        return !c.checked && c.estimated && c.estimated->low.has_value() && !c.estimated->within;
      }));
}
bool CheckResult::ok() const {
  // A log that contradicts itself fails the check as a mismatch does.
  return mismatched() == 0 &&
         std::none_of(consistency.begin(), consistency.end(),
                      [](const Finding& f) { return f.severity != Severity::kInfo; });
}

Result<CheckResult> check_log(const LogFacts& facts, const CheckOptions& options) {
  CheckResult out;
  // The engine: the one the log proves, or the one given.
  std::string engine_name = options.engine, version_spec;
  if (auto at = engine_name.find('@'); at != std::string::npos) {
    version_spec = engine_name.substr(at + 1);
    engine_name.resize(at);
  }
  if (engine_name.empty())
    engine_name = std::string(facts.engine());
  auto engine = find_engine(engine_name);
  if (!engine)
    return engine.error();
  out.engine = *engine;
  out.inferred = facts.version();
  auto ls = out.engine->scenario_from_log(facts.all());
  if (!ls)
    return ls.error();
  out.log = std::move(*ls);
  out.inferences = out.log.inferred;
  LaunchInput given;
  if (Status st = join_user_input(options, out, given); !st)
    return st.error();
  if (!options.tp) {
    if (Status st = infer_parallelism(facts, out); !st)
      return st.error();
  }
  const LogScenario& log = out.log;
  if (!log.missing.empty() &&
      (log.model_path.empty() || log.figures.empty() || log.capacity_command.empty())) {
    return fail(fmt::format(
        "the log cannot be checked: it lacks {}; give the run's launch command (-- CMD, or "
        "--from FILE, or a file with the log's stem beside it) or at least --model ID",
        fmt::join(log.missing, "; ")));
  }
  if (!log.calibration_complete) {
    out.notes.push_back(
        fmt::format("the log lacks {}: figures that depend on free memory are not checked",
                    fmt::join(log.missing, "; ")));
  }

  // Scenario parts.
  Scenario s;
  s.engine = engine_name;
  const std::string model_spec = options.model.empty() ? log.model_path : options.model;
  auto model = load_model(model_spec);
  if (!model) {
    // load_model's message names the path, the fix and the closest bundled configs.
    if (!options.model.empty())
      return fail("--model " + model.message());
    return fail("the log's " + model.message());
  }
  s.model = std::move(*model);
  s.calibration = log.calibration;
  // The free memory before the load sizes a stand-in GPU when none is named.
  const double p = log.calibration.free_before_load_gib.value_or(
      log.calibration.total_memory_gib.value_or(log.memory_at_least_gib.value_or(0)));
  const bool p_is_bound = !log.calibration.free_before_load_gib &&
                          !log.calibration.total_memory_gib && log.memory_at_least_gib;
  std::string unknown_gpu;  // named by the log, not in the catalog
  if (!options.gpu.empty()) {
    auto gpu = find_device(options.gpu, log.calibration.total_memory_gib);
    if (!gpu)
      return gpu.error();
    s.hardware.gpu = gpu->spec;
  } else if (!log.gpu_name.empty()) {
    if (auto gpu = find_device(log.gpu_name, log.calibration.total_memory_gib))
      s.hardware.gpu = gpu->spec;
    else
      unknown_gpu = log.gpu_name;
  }
  // A GPU the log does not name (or the catalog lacks): its own memory figures narrow it to
  // the catalog's smallest memory class that holds them; each GPU of that class is tried.
  std::vector<GpuSpec> candidates;
  // (A GPU the log names but the catalog lacks is not replaced by another: a stand-in below.)
  if (options.gpu.empty() && log.gpu_name.empty() && p > 0)
    candidates = gpus_holding(p, log.calibration.free_before_load_gib.has_value());
  if (!candidates.empty()) {
    std::vector<std::string> keys;
    for (const GpuSpec& g : candidates)
      keys.push_back(g.key);
    const std::string figure =
        p_is_bound ? fmt::format("memory profile ({}) needs at least", log.memory_at_least_why)
        : log.calibration.free_before_load_gib ? std::string("free memory before the load of")
                                               : std::string("total memory of");
    out.notes.push_back(fmt::format(
        "the log does not name the GPU; its {} {:.2f} GiB, which rules out every smaller GPU of "
        "the catalog: checked as {} (the smallest class that holds it{})",
        figure, p, fmt::join(keys, " or "),
        keys.size() > 1 ? "; the one whose figures all match and compare the most" : ""));
    s.hardware.gpu = candidates.front();
  } else if (options.gpu.empty() && (log.gpu_name.empty() || !unknown_gpu.empty())) {
    // No memory figure either: a stand-in, and the figures that depend on the GPU's memory
    // are reported as not checked.
    out.gpu_known = false;
    s.hardware.gpu.key = "unknown";
    s.hardware.gpu.smi_name = "GPU not named in the log";
    s.hardware.gpu.memory_mib = static_cast<std::int64_t>(std::ceil((p + 0.85) * 1024));
    s.hardware.gpu.compute_capability = "?";
    out.notes.push_back(
        unknown_gpu.empty()
            ? "the log does not name the GPU: pass --gpu to check the figures that depend on its "
              "memory"
            : fmt::format("the log names the GPU '{}', which the GPU catalog does not have "
                          "(`servescope gpus` lists the catalog): a stand-in is used; pass --gpu "
                          "to check the figures that depend on the GPU's memory",
                          unknown_gpu));
  }
  s.calibration.source = "log";
  // The environment of the command pasted in the log, then --env over it.
  s.environment = log.environment;
  if (!log.environment.empty()) {
    std::vector<std::string> set;
    for (const auto& [name, value] : log.environment)
      set.push_back(name + "=" + value);
    out.notes.push_back(fmt::format("the launch command ({}) sets {}: the engine's environment",
                                    log.launch_origin, fmt::join(set, " ")));
  }
  for (const std::string& kv : options.env) {
    auto eq = kv.find('=');
    if (eq != std::string::npos)
      s.environment[kv.substr(0, eq)] = kv.substr(eq + 1);
  }

  // A container image's tag names the release when neither --engine nor the log does.
  if (version_spec.empty() && out.inferred.printed_version.empty() &&
      !given.image_version.empty()) {
    version_spec = given.image_version;
    out.notes.push_back(fmt::format("version {} from the image {} in {}", given.image_version,
                                    given.image, out.command_origin));
  }
  // Versions to try: the one given, else the inferred range's newest date first, then every
  // date inside the range where a rule changed.
  std::vector<EngineVersion> versions;
  if (!version_spec.empty()) {
    auto v = out.engine->resolve_version(version_spec);
    if (!v)
      return v.error();
    versions.push_back(*v);
  } else {
    auto newest = out.engine->resolve_version("");
    if (!newest)
      return newest.error();
    const std::string until = out.inferred.until_date.empty()
                                  ? newest->main_date
                                  : std::min(out.inferred.until_date, newest->main_date);
    auto top = out.engine->resolve_version(until);
    versions.push_back(top ? *top : *newest);
    // Without a lower bound the range is the whole history: searching it would fit the
    // figures rather than test them, so only a bounded range is searched.
    for (const ScenarioChange& c : out.inferred.from_date.empty()
                                       ? std::vector<ScenarioChange>{}
                                       : out.engine->candidate_changes(s)) {
      if (c.kind != ScenarioChange::Kind::kVersion || !c.version)
        continue;
      const std::string& d = c.version->main_date;
      if (d < until && (out.inferred.from_date.empty() || d >= out.inferred.from_date))
        versions.push_back(*c.version);
    }
    if (!out.inferred.from_date.empty() && out.inferred.from_date < until) {
      if (auto v = out.engine->resolve_version(out.inferred.from_date))
        versions.push_back(*v);
    }
    std::stable_sort(
        versions.begin() + 1, versions.end(),
        [](const EngineVersion& x, const EngineVersion& y) { return x.main_date > y.main_date; });
  }

  auto parse = [&](const std::vector<std::string>& words) {
    return out.engine->parse_command(words);
  };
  auto cap_cmd = parse(log.capacity_command);
  if (!cap_cmd)
    return fail("the settings the log shows do not form a valid command: " + cap_cmd.message());
  auto def_cmd = parse(log.defaults_command);
  if (!def_cmd)
    return fail("the log's launch command is not valid: " + def_cmd.message());

  infer_checkpoint_quantization(*cap_cmd, s.model, out);
  const bool assumed_gpu = !candidates.empty();
  if (candidates.empty())
    candidates.push_back(s.hardware.gpu);
  std::optional<CheckResult> kept_first;
  // Of the candidate GPUs whose compared figures all match, the one that lets the most figures
  // be compared (a catalog GPU whose device total is known checks more than one estimated).
  std::optional<CheckResult> best;
  std::size_t best_checked = 0;
  std::size_t best_g = 0;
  const CheckResult base = out;
  for (std::size_t g = 0; g < candidates.size(); ++g) {
    out = base;
    s.hardware.gpu = candidates[g];
    bool first = true;
    bool all_matched = false;
    for (const EngineVersion& version : versions) {
      Scenario cap = s, def = s;
      cap.version = def.version = version;
      cap.command = *cap_cmd;
      def.command = *def_cmd;
      cap.hardware.gpus_per_node = def.hardware.gpus_per_node =
          options.gpus.value_or(given.gpu_count.value_or(out.engine->gpus_needed(cap.command)));
      auto cap_plans = plan_with_rounding(*out.engine, cap, log);
      if (!cap_plans)
        return cap_plans.error();
      auto def_plans = plan_with_rounding(*out.engine, def, log);
      if (!def_plans)
        return def_plans.error();
      std::vector<Comparison> comparisons;
      for (const LoggedFigure& f : log.figures) {
        Comparison c;
        compare(f, f.from_defaults ? *def_plans : *cap_plans, out.gpu_known, c);
        if (f.from_defaults && c.checked && !c.match && !log.typed_command_known) {
          c.checked = false;
          c.needs = kNeedsCommand;
          c.note =
              "differs from the engine's default; the dump cannot tell a typed value from a "
              "default "
              "(no launch "
              "command in the log)";
        }
        comparisons.push_back(std::move(c));
      }
      const bool all_match = std::all_of(comparisons.begin(), comparisons.end(),
                                         [](const Comparison& c) { return !c.checked || c.match; });
      if (first || all_match) {
        out.comparisons = std::move(comparisons);
        out.scenario = cap;
        out.defaults_scenario = def;
        out.plan = std::move(cap_plans->nominal);
        out.defaults_plan = std::move(def_plans->nominal);
        out.version_basis = out.plan.version_basis;
        if (!first) {
          out.notes.push_back(fmt::format(
              "the figures match the rules of main {} inside the inferred range {} (the newest "
              "date of the range does not)",
              version.main_date, out.inferred.range_text()));
        }
      }
      if (all_match) {
        all_matched = true;
        break;
      }
      first = false;
    }
    if (all_matched) {
      const auto checked =
          static_cast<std::size_t>(std::count_if(out.comparisons.begin(), out.comparisons.end(),
                                                 [](const Comparison& c) { return c.checked; }));
      if (!best || checked > best_checked) {
        best = out;
        best_checked = checked;
        best_g = g;
      }
    }
    if (g == 0)
      kept_first = out;  // the smallest class's first GPU answers when none matches
  }
  if (best) {
    out = std::move(*best);
    if (assumed_gpu && candidates.size() > 1) {
      out.notes.push_back(
          fmt::format("every compared figure matches as {}{}", candidates[best_g].key,
                      best_checked > 0 ? " (the candidate that compares the most)" : ""));
    }
  } else if (kept_first) {
    out = std::move(*kept_first);
  }
  predict_from_estimates(*out.engine, out, out.comparisons);
  // The rules the engine applies only because the GPU shares its memory with the CPU: they
  // decide what the log's memory figures mean, so check names them.
  for (const Finding* f : out.plan.unified_memory_findings())
    out.notes.push_back(fmt::format("{} is integrated: {} [{}]: {}",
                                    out.scenario.hardware.gpu.smi_name, f->code, f->rule,
                                    f->message));
  std::vector<Fact> all = facts.all();
  if (!given.argv.empty()) {
    // The given command joins the facts as the log's own launch line would.
    Fact launch;
    launch.kind = "launch_command";
    std::string words;
    for (const std::string& w : given.argv)
      words += (words.empty() ? "" : " ") + w;
    launch.set("command", words);
    launch.raw = "(given: " + out.command_origin + ") " + words;
    all.push_back(std::move(launch));
  }
  out.consistency = out.engine->check_log_consistency(all);
  if (out.matched() + out.mismatched() == 0 && out.consistency.empty()) {
    return fail(fmt::format("nothing in the log can be checked{}",
                            log.missing.empty()
                                ? std::string()
                                : fmt::format(": it lacks {}", fmt::join(log.missing, "; "))));
  }
  return out;
}

Result<BuiltScenario> scenario_of_log_file(const std::string& path, const CheckOptions& options) {
  auto facts = read_log_file(path);
  if (!facts)
    return facts.error();
  auto checked = check_log(*facts, options);
  if (!checked)
    return fail(path + ": " + checked.message());
  return BuiltScenario{std::move(checked->scenario), checked->engine};
}

}  // namespace servescope
