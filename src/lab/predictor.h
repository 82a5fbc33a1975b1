// The model's side of `bisect`: what the engine's rules predict for a configuration — whether
// it starts and the metric's value — without launching anything. `guided` asks it for the
// likely culprit; every strategy shows its prediction next to each observation, and each
// disagreement is a model gap.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "diagnose/scenario_builder.h"
#include "lab/launch_template.h"
#include "lab/metric.h"

namespace servescope {

struct Prediction {
  bool available = false;  // false: the model has nothing to say (see note)
  bool starts = true;
  std::optional<double> value;  // the metric; nullopt when it does not start or is not modelled
  std::string note;             // the engine's startup error, or why there is no prediction
};

class Predictor {
 public:
  virtual ~Predictor() = default;
  /// The prediction for the configuration with these flag words.
  virtual Prediction predict(const std::vector<std::string>& flags) = 0;
  /// One line: what the model is ("sglang 2026-07-20 on 4 × rtx-pro-6000, calibrated ...").
  virtual std::string description() const = 0;
};

/// The engine's plan as the predictor: the scenario options (GPU, calibration, ...) with the
/// template's words for the command. Fails when the template launches no modelled engine or
/// the scenario cannot be built (the message says which option would fix it).
Result<std::unique_ptr<Predictor>> make_plan_predictor(const ScenarioOptions& base,
                                                       const LaunchTemplate& launch,
                                                       const MetricSpec& metric);

}  // namespace servescope
