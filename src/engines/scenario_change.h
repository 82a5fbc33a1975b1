// One change to a scenario — a flag set, changed or removed, another engine version, GPU,
// calibration figure or environment variable — that can be applied to any scenario. `diff`
// finds the changes between two scenarios and applies subsets of them (counterfactuals);
// `why` generates candidate changes and searches them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engines/scenario.h"

namespace servescope {

struct ScenarioChange {
  enum class Kind { kFlag, kVersion, kGpu, kFreeBeforeLoad, kFreeAfterLoad, kEnvironment, kModel };
  Kind kind = Kind::kFlag;
  std::string
      subject;        // canonical flag, env key, or "version" / "gpu" / "free_after_load" / "model"
  std::string label;  // as a person reads it: "+ --tp 8", "− --disable-radix-cache", "--tp 4 → 8"
  std::optional<FlagSetting> flag;  // kFlag: the setting to apply; nullopt removes the flag
  std::optional<EngineVersion> version;
  std::optional<GpuSpec> gpu;
  std::optional<double> gib;             // calibration figures
  std::optional<std::string> env_value;  // nullopt removes the variable
  std::optional<ModelShape> model;
  bool solved = false;  // the value was solved for (by `why`), not taken from a command

  void apply(Scenario& scenario) const;
};

/// The changes that turn `a` into `b`, one per differing input, in a stable order (version,
/// GPU, model, calibration, environment, then flags in B's order, then flags only A had).
std::vector<ScenarioChange> changes_between(const Scenario& a, const Scenario& b);

/// `base` with the given changes applied, in order.
Scenario apply_changes(const Scenario& base, const std::vector<const ScenarioChange*>& changes);

/// The flag change that sets `flag` to `values` (store-true flags: empty values).
ScenarioChange set_flag_change(const std::string& canonical, const std::string& spelled,
                               const std::vector<std::string>& values, const Scenario& on);
/// The change that removes `canonical` from the command.
ScenarioChange remove_flag_change(const std::string& canonical, const Scenario& on);

}  // namespace servescope
