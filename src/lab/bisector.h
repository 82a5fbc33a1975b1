// `bisect` end to end: launch the two endpoints (the good and the bad configuration), decide
// what "reproduces the bad value" means for the metric, run the chosen strategy over real
// launches (each configuration launched at most once: finished experiments come from the
// journal), ask the model for its prediction of every experiment, and gather the result the
// report shows. The metric becomes `startup` when the bad configuration does not start.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lab/experiment.h"
#include "lab/flag_changes.h"
#include "lab/journal.h"
#include "lab/metric.h"
#include "lab/predictor.h"
#include "lab/runner.h"
#include "lab/search.h"

namespace servescope {

enum class StrategyKind { kOneAtATime, kDdmin, kGuided };
std::optional<StrategyKind> parse_strategy(std::string_view name);
std::string_view strategy_name(StrategyKind kind);

struct BisectOptions {
  std::vector<TypedFlag> good;
  std::vector<TypedFlag> bad;
  MetricSpec metric;
  StrategyKind strategy = StrategyKind::kDdmin;
  double tolerance = 0;  // noisy metrics: the smallest relative good–bad difference that counts
  int parallel = 1;
  std::vector<std::string> device_groups;  // one per parallel slot, for {gpus}
  std::string out_dir;
  // The model: scenario options for the engine's plan. Without calibration figures, the good
  // launch's log calibrates it.
  ScenarioOptions model;
  bool use_model = true;
};

/// Builds the predictor once the endpoints have run (the good launch's log may calibrate it).
using PredictorFactory =
    std::function<Result<std::unique_ptr<Predictor>>(const ScenarioOptions&, const MetricSpec&)>;

struct ExperimentView {
  ExperimentRecord record;
  Subset subset;
  bool reused = false;  // finished in an earlier run, read from the journal
  std::string role;     // "good", "bad" or ""
  DdminOutcome verdict = DdminOutcome::kUnresolved;  // kFail: reproduces the bad value
  Prediction prediction;
  std::optional<DdminOutcome> predicted_verdict;
  std::string gap;  // the model's disagreement with this observation, "" when none
};

struct BisectResult {
  MetricSpec metric;  // as bisected
  std::vector<FlagChange> changes;
  std::vector<Subset> culprits;
  std::vector<ExperimentView> experiments;  // in the order the search used them
  std::optional<double> good_value;
  std::optional<double> bad_value;
  bool bad_starts = true;
  std::string model;  // the model's description, "" when there is none
  std::vector<std::string> notes;
  std::vector<std::string> model_gaps;
  std::string error;  // why the bisection could not proceed, "" when it did
  int launched = 0;   // launches made by this run
  int reused = 0;     // experiments reused from the journal
  int rounds = 0;     // batches of launches run at once (--parallel): wall-clock rounds
  double wall_seconds = 0;
  bool interrupted = false;

  /// Experiments used, launched now or reused: the launches this bisection cost.
  int launches() const { return launched + reused; }
  const ExperimentView* experiment_for(const Subset& subset) const;
};

class Bisector {
 public:
  Bisector(ProcessHost& host, ExperimentRunner& runner, Journal& journal, BisectOptions options,
           const std::atomic<bool>* interrupted = nullptr);
  void set_predictor_factory(PredictorFactory factory) { factory_ = std::move(factory); }
  /// Called after each experiment finishes or is reused.
  void set_progress(std::function<void(const ExperimentView&)> progress) {
    progress_ = std::move(progress);
  }

  BisectResult run();

  // The search's view of real launches.
  std::vector<DdminOutcome> evaluate(const std::vector<Subset>& subsets);

 private:
  bool stopped() const { return interrupted_ != nullptr && interrupted_->load(); }
  /// Interrupted, or an experiment ended without a verdict (cancelled, queue timeout).
  bool halted() const { return stopped() || any_interrupted_ || !halt_reason_.empty(); }
  DdminOutcome verdict(const ExperimentRecord& record) const;
  DdminOutcome predicted_verdict(const Prediction& p) const;
  bool setup_endpoints(BisectResult& result);
  void make_model(BisectResult& result);
  void compare_with_model(BisectResult& result);
  int next_id();

  ProcessHost& host_;
  ExperimentRunner& runner_;
  Journal& journal_;
  BisectOptions options_;
  const std::atomic<bool>* interrupted_;
  PredictorFactory factory_;
  std::function<void(const ExperimentView&)> progress_;

  std::vector<FlagChange> changes_;
  MetricSpec metric_;
  std::vector<ExperimentView> views_;
  std::map<std::string, std::size_t> by_key_;
  int next_id_ = 0;
  int launched_ = 0;
  int reused_ = 0;
  int rounds_ = 0;
  bool any_interrupted_ = false;
  std::string halt_reason_;
  std::map<std::size_t, std::string> attach_;  // view → job id of an earlier run to re-attach
  // The endpoints, once measured.
  std::optional<double> good_value_, bad_value_;
  bool bad_starts_ = true;
  // The model.
  std::unique_ptr<Predictor> predictor_;
  std::map<std::string, Prediction> predictions_;
  std::optional<Prediction> predicted_good_, predicted_bad_;

  friend class ModelTrials;
};

}  // namespace servescope
