// The published-results corpus (tests/published-results/*.jsonl): serving benchmarks people
// published for vLLM and SGLang on real GPUs — the engines' own `bench serve` / `bench_serving`
// blocks, docs and blog tables — each point with its source, engine release, GPU, model, launch
// command, workload and the figures printed. This reads a point into what `simulate` needs and
// measures the simulation's error on it: with the cost defaults (uncalibrated), and calibrated
// from one other point of its sweep (the sweep's middle load), as issue 36 asks.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "diagnose/scenario_builder.h"
#include "engines/plan.h"
#include "twin/calibration.h"

namespace servescope {

struct PublishedPoint {
  std::string id, sweep, source, engine, version, date, gpu, model, quantization, command;
  // The bundled config it is simulated with and the quantization that adds (model-configs.tsv:
  // a checkpoint of another's architecture), else the model itself and "".
  std::string config_model, added_quantization;
  int gpus = 1, tp = 1, dp = 1;
  MeasuredPoint measured;  // load, mean lengths and the figures printed
  double output_tokens_per_s = 0;
  double load() const { return measured.closed_loop ? measured.concurrency : measured.rate; }
};

/// Every point of the corpus's *.jsonl files, in file order, with model-configs.tsv applied.
/// `skipped` collects the points that name no load or no figure to compare, each with why.
Result<std::vector<PublishedPoint>> read_published_results(const std::string& dir,
                                                           std::vector<std::string>* skipped);

/// A point's scenario, plan and serving shape (the config of `config_model` from data/models/).
struct PublishedCase {
  const PublishedPoint* point = nullptr;
  BuiltScenario built;
  Plan plan;
  ServingShape shape;
  std::string family;        // gpu_family
  std::string engine_basis;  // how the release was chosen ("0.11.0 as stated", ...)
};

/// Fails with why the point cannot be simulated (no config, the plan does not start, ...).
Result<std::unique_ptr<PublishedCase>> prepare_published_case(const PublishedPoint& point);

/// Signed relative errors (simulated / published − 1) of one point; nullopt where the source
/// printed no such figure.
struct PointError {
  std::optional<double> tpot, throughput, ttft;
};

PointError point_error(const PublishedCase& c, const Efficiency& efficiency);

/// One point's errors: with the cost defaults of its engine and GPU family, and calibrated from
/// its sweep's middle load (none for that point itself, or for a sweep of one point).
struct PointEvaluation {
  const PublishedCase* c = nullptr;
  PointError uncalibrated;
  std::optional<PointError> calibrated;
  bool calibrates = false;  // the point its sweep was calibrated from
};

/// `defaults(case)`: the factors an uncalibrated run starts from (and a calibration too).
using DefaultsFor = std::function<Efficiency(const PublishedCase&)>;
/// `calibrate`: also calibrate from each sweep's middle load and predict the rest (a minute or
/// two for the whole corpus, on two threads).
std::vector<PointEvaluation> evaluate_published(
    const std::vector<std::unique_ptr<PublishedCase>>& cases, const DefaultsFor& defaults,
    bool calibrate);

/// The median of |error| over the values present; nullopt when none.
std::optional<double> median_abs(const std::vector<std::optional<double>>& errors);

}  // namespace servescope
