#include "lab/bisector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <thread>

#include "core/text.h"
#include "load/run_compare.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

bool started(const ExperimentRecord& r) {
  return r.outcome == ExperimentOutcome::kReady || r.outcome == ExperimentOutcome::kCrashed;
}

// Equal as a log states them: integers exactly, fractions to the digits a log prints.
bool same_value(double a, double b) {
  const bool integral = a == std::floor(a) && b == std::floor(b);
  const double scale = std::max({1.0, std::fabs(a), std::fabs(b)});
  return std::fabs(a - b) <= (integral ? 1e-9 : 1e-3) * scale;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v)
    sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

std::string outcome_text(const ExperimentRecord& r) {
  switch (r.outcome) {
    case ExperimentOutcome::kReady:
      return "started";
    case ExperimentOutcome::kFailedStart:
      return "did not start";
    case ExperimentOutcome::kTimeout:
      return "was not ready in time";
    case ExperimentOutcome::kCrashed:
      return "crashed after it was ready";
    case ExperimentOutcome::kInterrupted:
      return "was interrupted";
    case ExperimentOutcome::kCancelled:
      return "was cancelled outside servescope";
    case ExperimentOutcome::kQueueTimeout:
      return "waited in the queue past --queue-timeout";
  }
  return "?";
}

class RealTrials final : public Trials {
 public:
  RealTrials(Bisector& b, int parallel, std::function<bool()> stopped)
      : b_(b), parallel_(parallel), stopped_(std::move(stopped)) {}
  std::vector<DdminOutcome> run(const std::vector<Subset>& subsets) override {
    return b_.evaluate(subsets);
  }
  int parallel() const override { return parallel_; }
  bool stopped() const override { return stopped_(); }

 private:
  Bisector& b_;
  int parallel_;
  std::function<bool()> stopped_;
};

}  // namespace

// The model's answers, as trials: the plan of each configuration, judged against the model's
// own endpoints (the model is consistent with itself even where it is off).
class ModelTrials final : public Trials {
 public:
  explicit ModelTrials(Bisector& b) : b_(b) {}
  std::vector<DdminOutcome> run(const std::vector<Subset>& subsets) override {
    std::vector<DdminOutcome> out;
    for (const Subset& s : subsets) {
      const auto flags = apply_flag_changes(b_.options_.good, b_.changes_, s);
      out.push_back(b_.predicted_verdict(b_.predictor_->predict(flags)));
    }
    return out;
  }

 private:
  Bisector& b_;
};

std::optional<StrategyKind> parse_strategy(std::string_view name) {
  if (name == "one-at-a-time")
    return StrategyKind::kOneAtATime;
  if (name == "ddmin")
    return StrategyKind::kDdmin;
  if (name == "guided")
    return StrategyKind::kGuided;
  return std::nullopt;
}

std::string_view strategy_name(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::kOneAtATime:
      return "one-at-a-time";
    case StrategyKind::kDdmin:
      return "ddmin";
    case StrategyKind::kGuided:
      return "guided";
  }
  return "?";
}

const ExperimentView* BisectResult::experiment_for(const Subset& subset) const {
  for (const ExperimentView& v : experiments) {
    if (v.subset == subset)
      return &v;
  }
  return nullptr;
}

Bisector::Bisector(ProcessHost& host, ExperimentRunner& runner, Journal& journal,
                   BisectOptions options, const std::atomic<bool>* interrupted)
    : host_(host),
      runner_(runner),
      journal_(journal),
      options_(std::move(options)),
      interrupted_(interrupted) {
  // A scheduler's job is journaled when submitted, so --resume can re-attach to it.
  runner_.set_on_launched([this](const ExperimentRecord& r) {
    if (!r.job_id.empty() && !r.reattached)
      (void)journal_.append_launched(r);
  });
  factory_ = [this](const ScenarioOptions& o, const MetricSpec& m) {
    return make_plan_predictor(o, runner_.options().launch, m);
  };
  // Run folders continue after the journal's and after any folder an interrupted run left.
  next_id_ = journal_.last_id();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(options_.out_dir) / "runs", ec)) {
    if (auto n = parse_int(entry.path().filename().string()))
      next_id_ = std::max(next_id_, static_cast<int>(*n));
  }
}

int Bisector::next_id() {
  return ++next_id_;
}

std::vector<DdminOutcome> Bisector::evaluate(const std::vector<Subset>& subsets) {
  std::vector<std::size_t> view_of(subsets.size());
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < subsets.size(); ++i) {
    const auto flags = apply_flag_changes(options_.good, changes_, subsets[i]);
    const std::string key = configuration_key(flags);
    if (auto it = by_key_.find(key); it != by_key_.end()) {
      view_of[i] = it->second;
      continue;
    }
    ExperimentView v;
    v.subset = subsets[i];
    if (const ExperimentRecord* previous = journal_.find(key)) {
      v.record = *previous;
      v.reused = true;
      ++reused_;
    } else if (const ExperimentRecord* launched = journal_.in_flight(key);
               launched != nullptr && !launched->job_id.empty()) {
      // An earlier run submitted it and died: its job may still run; re-attach to it.
      v.record.id = launched->id;
      v.record.run_dir = launched->run_dir;
      v.record.flags = flags;
      v.record.changes = change_labels(changes_, subsets[i]);
      v.record.outcome = ExperimentOutcome::kInterrupted;
      attach_[views_.size()] = launched->job_id;
      pending.push_back(views_.size());
    } else {
      v.record.id = next_id();
      v.record.run_dir = fmt::format("runs/{:03d}", v.record.id);
      v.record.flags = flags;
      v.record.changes = change_labels(changes_, subsets[i]);
      v.record.outcome = ExperimentOutcome::kInterrupted;  // until it has run
      pending.push_back(views_.size());
    }
    view_of[i] = views_.size();
    by_key_[key] = views_.size();
    views_.push_back(std::move(v));
    if (views_.back().reused && progress_)
      progress_(views_.back());
  }
  const bool uses_port = runner_.options().launch.uses("{port}");
  const std::size_t width = static_cast<std::size_t>(std::max(1, options_.parallel));
  for (std::size_t start = 0; start < pending.size() && !halted(); start += width) {
    const std::size_t end = std::min(pending.size(), start + width);
    auto run_one = [&](std::size_t slot_index, std::size_t view) {
      ExperimentSlot slot;
      slot.port = uses_port ? host_.pick_port() : 0;
      if (!options_.device_groups.empty())
        slot.gpus = options_.device_groups[slot_index % options_.device_groups.size()];
      auto attach = attach_.find(view);
      runner_.run(views_[view].record, slot, options_.out_dir,
                  attach == attach_.end() ? "" : attach->second);
    };
    ++rounds_;
    if (end - start == 1) {
      run_one(0, pending[start]);
    } else {
      std::vector<std::thread> threads;
      for (std::size_t k = start; k < end; ++k)
        threads.emplace_back(run_one, k - start, pending[k]);
      for (std::thread& t : threads)
        t.join();
    }
    for (std::size_t k = start; k < end; ++k) {
      ExperimentView& v = views_[pending[k]];
      if (v.record.outcome == ExperimentOutcome::kInterrupted) {
        any_interrupted_ = true;
        continue;
      }
      if (inconclusive(v.record.outcome)) {
        // No verdict on the configuration, and the search cannot go on without one.
        if (halt_reason_.empty())
          halt_reason_ = fmt::format("experiment {}: {}; --resume launches it again", v.record.id,
                                     v.record.failure);
        if (progress_)
          progress_(v);
        continue;
      }
      ++launched_;
      if (Status st = journal_.append(v.record); !st)
        v.record.failure += (v.record.failure.empty() ? "" : "; ") + st.message();
      if (progress_)
        progress_(v);
    }
  }
  std::vector<DdminOutcome> out;
  for (std::size_t i = 0; i < subsets.size(); ++i) {
    const ExperimentRecord& r = views_[view_of[i]].record;
    out.push_back(inconclusive(r.outcome) ? DdminOutcome::kUnresolved : verdict(r));
  }
  return out;
}

DdminOutcome Bisector::verdict(const ExperimentRecord& r) const {
  if (metric_.kind == MetricSpec::Kind::kStartup) {
    if (r.outcome != ExperimentOutcome::kFailedStart && !started(r))
      return DdminOutcome::kUnresolved;
    return started(r) == bad_starts_ ? DdminOutcome::kFail : DdminOutcome::kPass;
  }
  if (r.outcome != ExperimentOutcome::kReady || !r.value || !good_value_ || !bad_value_)
    return DdminOutcome::kUnresolved;
  const double v = *r.value;
  if (metric_.noisy())
    return std::fabs(v - *bad_value_) <= std::fabs(v - *good_value_) ? DdminOutcome::kFail
                                                                     : DdminOutcome::kPass;
  return same_value(v, *bad_value_) ? DdminOutcome::kFail : DdminOutcome::kPass;
}

DdminOutcome Bisector::predicted_verdict(const Prediction& p) const {
  if (!p.available || !predicted_good_ || !predicted_bad_ || !predicted_good_->available ||
      !predicted_bad_->available)
    return DdminOutcome::kUnresolved;
  if (metric_.kind == MetricSpec::Kind::kStartup) {
    if (predicted_good_->starts == predicted_bad_->starts)
      return DdminOutcome::kPass;  // the model sees no difference
    return p.starts == predicted_bad_->starts ? DdminOutcome::kFail : DdminOutcome::kPass;
  }
  if (!p.value || !predicted_good_->value || !predicted_bad_->value)
    return DdminOutcome::kUnresolved;
  if (same_value(*predicted_good_->value, *predicted_bad_->value))
    return DdminOutcome::kPass;
  return same_value(*p.value, *predicted_bad_->value) ? DdminOutcome::kFail : DdminOutcome::kPass;
}

bool Bisector::setup_endpoints(BisectResult& result) {
  Subset all;
  for (std::size_t i = 0; i < changes_.size(); ++i)
    all.push_back(i);
  evaluate({Subset{}, all});
  if (halted())
    return false;
  ExperimentView& gv =
      views_[by_key_.at(configuration_key(apply_flag_changes(options_.good, changes_, {})))];
  ExperimentView& bv =
      views_[by_key_.at(configuration_key(apply_flag_changes(options_.good, changes_, all)))];
  gv.role = "good";
  bv.role = "bad";
  const ExperimentRecord& gr = gv.record;
  const ExperimentRecord& br = bv.record;
  auto why = [](const ExperimentRecord& r) {
    return r.failure.empty() ? outcome_text(r) : outcome_text(r) + ": " + r.failure;
  };
  metric_ = options_.metric;
  if (metric_.kind != MetricSpec::Kind::kStartup) {
    if (gr.outcome != ExperimentOutcome::kReady) {
      result.error = "the good configuration " + why(gr) + "; there is nothing to compare with";
      return false;
    }
    if (br.outcome == ExperimentOutcome::kFailedStart) {
      result.notes.push_back(fmt::format(
          "the bad configuration does not start ({}); bisecting what makes it fail to start "
          "(metric startup instead of {})",
          br.failure, metric_.name));
      metric_ = MetricSpec{};
      metric_.name = "startup";
    } else if (br.outcome != ExperimentOutcome::kReady) {
      result.error = "the bad configuration " + why(br);
      return false;
    }
  }
  if (metric_.kind == MetricSpec::Kind::kStartup) {
    for (const ExperimentRecord* r : {&gr, &br}) {
      if (r->outcome == ExperimentOutcome::kTimeout) {
        result.error = fmt::format("the {} configuration {}; raise --startup-timeout",
                                   r == &gr ? "good" : "bad", why(*r));
        return false;
      }
    }
    bad_starts_ = started(br);
    if (started(gr) == bad_starts_) {
      result.error = fmt::format("both configurations {}: there is nothing to isolate",
                                 bad_starts_ ? "start" : "fail to start");
      return false;
    }
    return true;
  }
  if (!gr.value || !br.value) {
    result.error = fmt::format("the {} configuration gave no {}: {}", !gr.value ? "good" : "bad",
                               metric_.name, (!gr.value ? gr : br).failure);
    return false;
  }
  good_value_ = gr.value;
  bad_value_ = br.value;
  const double g = *gr.value, b = *br.value;
  if (metric_.noisy()) {
    const double rel = std::fabs(b - g) / std::max(std::fabs(g), 1e-12);
    if (rel <= options_.tolerance) {
      result.error = fmt::format(
          "good ({:g}) and bad ({:g}) differ by {:.1f}%, within --tolerance {:g}%: there is "
          "nothing to isolate",
          g, b, rel * 100, options_.tolerance * 100);
      return false;
    }
    // The statistics of `bench --compare`: an interval on the change over the repeats.
    if (auto ci = mean_change_interval(gr.values, br.values)) {
      const std::string interval = fmt::format(
          "bad against good over {} and {} repeats: mean {:+.1f}% (95% CI {:+.1f}% to "
          "{:+.1f}%, bootstrap)",
          gr.values.size(), br.values.size(), 100 * (mean(br.values) / mean(gr.values) - 1),
          100 * ci->first, 100 * ci->second);
      if (ci->first <= 0 && ci->second >= 0) {
        result.error = interval +
                       ": no difference beyond noise, nothing to isolate (raise "
                       "--repeat or the load point's --requests)";
        return false;
      }
      result.notes.push_back(interval + ": a real difference");
    } else {
      result.notes.push_back(fmt::format(
          "good and bad differ by {:.1f}% on {} and {} repeats: fewer than {} on a side, so no "
          "interval (--repeat {} gives one)",
          rel * 100, gr.values.size(), br.values.size(), kMinRunsForInterval, kMinRunsForInterval));
    }
  } else if (same_value(g, b)) {
    result.error = fmt::format("good and bad both give {} = {:g}: there is nothing to isolate",
                               metric_.name, g);
    return false;
  }
  return true;
}

void Bisector::make_model(BisectResult& result) {
  if (!options_.use_model || !factory_)
    return;
  ScenarioOptions o = options_.model;
  const bool calibrated =
      (o.free_before_load_gib && o.free_after_load_gib) || !o.calibrate_from.empty();
  if (!calibrated) {
    for (const ExperimentView& v : views_) {
      if (v.role == "good" || (v.role == "bad" && o.calibrate_from.empty())) {
        const std::string log = fs::path(options_.out_dir) / v.record.run_dir / "stderr.log";
        if (started(v.record) || o.calibrate_from.empty())
          o.calibrate_from = log;
      }
    }
  }
  auto made = factory_(o, metric_);
  if (!made) {
    // Calibration from a log is a convenience: without it the model still plans, estimated.
    if (!calibrated && !o.calibrate_from.empty()) {
      o.calibrate_from.clear();
      made = factory_(o, metric_);
    }
    if (!made) {
      result.notes.push_back("no model predictions: " + made.message());
      return;
    }
  }
  predictor_ = std::move(*made);
  result.model = predictor_->description();
  Subset all;
  for (std::size_t i = 0; i < changes_.size(); ++i)
    all.push_back(i);
  predicted_good_ = predictor_->predict(apply_flag_changes(options_.good, changes_, {}));
  predicted_bad_ = predictor_->predict(apply_flag_changes(options_.good, changes_, all));
}

void Bisector::compare_with_model(BisectResult& result) {
  for (ExperimentView& v : views_) {
    const ExperimentRecord& r = v.record;
    if (inconclusive(r.outcome))
      continue;
    if (!predictor_)
      continue;
    const Prediction p = predictor_->predict(r.flags);
    v.prediction = p;
    v.predicted_verdict = predicted_verdict(p);
    if (!p.available)
      continue;
    if (r.outcome == ExperimentOutcome::kFailedStart && p.starts) {
      v.gap = "the model predicts it starts; it did not (" + r.failure + ")";
    } else if (started(r) && !p.starts) {
      v.gap = "the model predicts it does not start (" + p.note + "); it started";
    } else if (r.outcome == ExperimentOutcome::kReady &&
               metric_.kind == MetricSpec::Kind::kCapacity && r.value && p.value &&
               !same_value(*p.value, *r.value)) {
      v.gap = fmt::format("the model predicts {} = {:g}; the log says {:g}", metric_.name, *p.value,
                          *r.value);
    }
    if (!v.gap.empty())
      result.model_gaps.push_back(fmt::format("experiment {} ({}): {}", r.id,
                                              r.changes.empty()
                                                  ? "the good configuration"
                                                  : fmt::format("{}", fmt::join(r.changes, " ")),
                                              v.gap));
  }
}

BisectResult Bisector::run() {
  BisectResult result;
  const double t0 = host_.now();
  changes_ = flag_changes(options_.good, options_.bad);
  result.changes = changes_;
  metric_ = options_.metric;
  if (changes_.empty()) {
    result.error =
        "the good and bad configurations have the same flags: there is nothing to isolate";
  } else if (setup_endpoints(result)) {
    make_model(result);
    std::vector<std::string> labels;
    for (const FlagChange& c : changes_)
      labels.push_back(c.label());
    RealTrials real(*this, options_.parallel, [this] { return halted(); });
    SearchResult found;
    switch (options_.strategy) {
      case StrategyKind::kOneAtATime:
        found = search_one_at_a_time(labels, real);
        break;
      case StrategyKind::kDdmin:
        found = search_ddmin(labels, real);
        break;
      case StrategyKind::kGuided:
        if (predictor_) {
          ModelTrials model(*this);
          found = search_guided(labels, real, model);
        } else {
          result.notes.push_back("guided without a model is ddmin");
          found = search_ddmin(labels, real);
        }
        break;
    }
    result.culprits = found.culprits;
    result.notes.insert(result.notes.end(), found.notes.begin(), found.notes.end());
    result.model_gaps = found.model_gaps;
  }
  compare_with_model(result);
  result.metric = metric_;
  result.good_value = good_value_;
  result.bad_value = bad_value_;
  result.bad_starts = bad_starts_;
  for (ExperimentView& v : views_) {
    if (v.record.outcome == ExperimentOutcome::kInterrupted)
      continue;
    v.verdict = verdict(v.record);
    result.experiments.push_back(v);
  }
  result.launched = launched_;
  result.reused = reused_;
  result.rounds = rounds_;
  result.interrupted = stopped() || any_interrupted_;
  if (!halt_reason_.empty() && result.error.empty())
    result.error = halt_reason_;
  result.wall_seconds = host_.now() - t0;
  return result;
}

}  // namespace servescope
