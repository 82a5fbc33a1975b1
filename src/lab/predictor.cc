#include "lab/predictor.h"

#include <fmt/format.h>

namespace servescope {
namespace {

class PlanPredictor final : public Predictor {
 public:
  PlanPredictor(ScenarioOptions base, const LaunchTemplate& launch, MetricSpec metric,
                std::string description)
      : base_(std::move(base)),
        launch_(launch),
        metric_(std::move(metric)),
        description_(std::move(description)) {}

  Prediction predict(const std::vector<std::string>& flags) override {
    Prediction p;
    ScenarioOptions options = base_;
    options.command = launch_.expand_words({flags, 30000, "/tmp/run", "0"});
    auto built = build_scenario(options);
    if (!built) {
      p.note = built.message();
      return p;
    }
    auto plan = built->engine->plan(built->scenario);
    if (!plan) {
      p.note = plan.message();
      return p;
    }
    p.available = true;
    p.starts = plan->starts;
    if (!plan->starts) {
      p.note = plan->startup_error;
      return p;
    }
    switch (metric_.kind) {
      case MetricSpec::Kind::kStartup:
        p.value = 1;
        break;
      case MetricSpec::Kind::kCapacity:
        if (plan->has_output(metric_.figure) && plan->output(metric_.figure).is_number())
          p.value = plan->output(metric_.figure).as_number();
        else
          p.note = fmt::format("the plan has no {}", metric_.figure);
        break;
      case MetricSpec::Kind::kBench:
        p.note = "bench figures are not predicted";
        break;
    }
    return p;
  }

  std::string description() const override { return description_; }

 private:
  ScenarioOptions base_;
  LaunchTemplate launch_;
  MetricSpec metric_;
  std::string description_;
};

}  // namespace

Result<std::unique_ptr<Predictor>> make_plan_predictor(const ScenarioOptions& base,
                                                       const LaunchTemplate& launch,
                                                       const MetricSpec& metric) {
  ScenarioOptions options = base;
  options.command = launch.expand_words({{}, 30000, "/tmp/run", "0"});
  auto built = build_scenario(options);
  if (!built)
    return fail("the model cannot plan this command: " + built.message());
  const Scenario& s = built->scenario;
  std::string description = fmt::format("{} {} plan, {} × {}", s.engine, s.version.label,
                                        s.hardware.gpus_per_node, s.hardware.gpu.key);
  if (s.calibration.free_before_load_gib && s.calibration.free_after_load_gib)
    description +=
        fmt::format(", calibrated ({:g} → {:g} GiB free around the weight load{})",
                    *s.calibration.free_before_load_gib, *s.calibration.free_after_load_gib,
                    base.calibrate_from.empty() ? "" : ", from the good launch's log");
  else
    description += ", memory figures estimated (no calibration)";
  return std::unique_ptr<Predictor>(
      std::make_unique<PlanPredictor>(base, launch, metric, std::move(description)));
}

}  // namespace servescope
