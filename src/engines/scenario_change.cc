#include "engines/scenario_change.h"

#include <fmt/format.h>

#include <algorithm>

namespace servescope {
namespace {

std::string join_values(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values)
    out += (out.empty() ? "" : " ") + v;
  return out;
}

std::string gib_text(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f} GiB", *v) : "unset";
}

}  // namespace

void ScenarioChange::apply(Scenario& s) const {
  switch (kind) {
    case Kind::kFlag:
      s.command = flag ? s.command.with_flag(*flag) : s.command.without_flag(subject);
      break;
    case Kind::kVersion:
      s.version = *version;
      break;
    case Kind::kGpu:
      s.hardware.gpu = *gpu;
      break;
    case Kind::kFreeBeforeLoad:
      s.calibration.free_before_load_gib = gib;
      break;
    case Kind::kFreeAfterLoad:
      s.calibration.free_after_load_gib = gib;
      break;
    case Kind::kEnvironment:
      if (env_value) {
        s.environment[subject] = *env_value;
      } else {
        s.environment.erase(subject);
      }
      break;
    case Kind::kModel:
      s.model = *model;
      break;
  }
}

Scenario apply_changes(const Scenario& base, const std::vector<const ScenarioChange*>& changes) {
  Scenario s = base;
  for (const ScenarioChange* c : changes)
    c->apply(s);
  return s;
}

ScenarioChange set_flag_change(const std::string& canonical, const std::string& spelled,
                               const std::vector<std::string>& values, const Scenario& on) {
  ScenarioChange c;
  c.kind = ScenarioChange::Kind::kFlag;
  c.subject = canonical;
  FlagSetting f;
  f.name = canonical;
  f.spelled = spelled.empty() ? canonical : spelled;
  f.values = values;
  f.known = true;
  f.modelled = true;
  const FlagSetting* before = on.command.find(canonical);
  c.label = before == nullptr
                ? "+ " + f.as_typed()
                : fmt::format("{} → {}", before->as_typed(),
                              join_values(values).empty() ? f.as_typed() : join_values(values));
  c.flag = f;
  return c;
}

ScenarioChange remove_flag_change(const std::string& canonical, const Scenario& on) {
  ScenarioChange c;
  c.kind = ScenarioChange::Kind::kFlag;
  c.subject = canonical;
  const FlagSetting* before = on.command.find(canonical);
  c.label = "− " + (before != nullptr ? before->as_typed() : canonical);
  return c;
}

std::vector<ScenarioChange> changes_between(const Scenario& a, const Scenario& b) {
  std::vector<ScenarioChange> out;
  if (a.version.main_date != b.version.main_date ||
      a.version.cherry_picks != b.version.cherry_picks) {
    ScenarioChange c;
    c.kind = ScenarioChange::Kind::kVersion;
    c.subject = "version";
    c.version = b.version;
    c.label = fmt::format("{} {} → {}", b.engine, a.version.label, b.version.label);
    out.push_back(std::move(c));
  }
  if (a.hardware.gpu.key != b.hardware.gpu.key) {
    ScenarioChange c;
    c.kind = ScenarioChange::Kind::kGpu;
    c.subject = "gpu";
    c.gpu = b.hardware.gpu;
    c.label = fmt::format("GPU {} → {}", a.hardware.gpu.key, b.hardware.gpu.key);
    out.push_back(std::move(c));
  }
  if (a.model.source != b.model.source) {
    ScenarioChange c;
    c.kind = ScenarioChange::Kind::kModel;
    c.subject = "model";
    c.model = b.model;
    c.label = fmt::format("model {} → {}", a.model.source, b.model.source);
    out.push_back(std::move(c));
  }
  if (a.calibration.free_before_load_gib != b.calibration.free_before_load_gib) {
    ScenarioChange c;
    c.kind = ScenarioChange::Kind::kFreeBeforeLoad;
    c.subject = "free_before_load";
    c.gib = b.calibration.free_before_load_gib;
    c.label = fmt::format("free before load {} → {}", gib_text(a.calibration.free_before_load_gib),
                          gib_text(b.calibration.free_before_load_gib));
    out.push_back(std::move(c));
  }
  if (a.calibration.free_after_load_gib != b.calibration.free_after_load_gib) {
    ScenarioChange c;
    c.kind = ScenarioChange::Kind::kFreeAfterLoad;
    c.subject = "free_after_load";
    c.gib = b.calibration.free_after_load_gib;
    c.label = fmt::format("free after load {} → {}", gib_text(a.calibration.free_after_load_gib),
                          gib_text(b.calibration.free_after_load_gib));
    out.push_back(std::move(c));
  }
  for (const auto& [key, value] : b.environment) {
    auto it = a.environment.find(key);
    if (it == a.environment.end() || it->second != value) {
      ScenarioChange c;
      c.kind = ScenarioChange::Kind::kEnvironment;
      c.subject = key;
      c.env_value = value;
      c.label = it == a.environment.end() ? fmt::format("+ {}={}", key, value)
                                          : fmt::format("{}={} → {}", key, it->second, value);
      out.push_back(std::move(c));
    }
  }
  for (const auto& [key, value] : a.environment) {
    if (b.environment.count(key) == 0) {
      ScenarioChange c;
      c.kind = ScenarioChange::Kind::kEnvironment;
      c.subject = key;
      c.label = fmt::format("− {}={}", key, value);
      out.push_back(std::move(c));
    }
  }
  // Flags: by canonical name; the last occurrence is the one the engine keeps.
  // The model path is covered by the model change (the shape is loaded from it).
  std::vector<std::string> seen = {"--model-path"};
  for (const FlagSetting& fb : b.command.flags) {
    if (std::find(seen.begin(), seen.end(), fb.name) != seen.end())
      continue;
    seen.push_back(fb.name);
    const FlagSetting* last_b = b.command.find(fb.name);
    const FlagSetting* in_a = a.command.find(fb.name);
    if (in_a != nullptr && in_a->values == last_b->values)
      continue;
    ScenarioChange c;
    c.kind = ScenarioChange::Kind::kFlag;
    c.subject = fb.name;
    c.flag = *last_b;
    c.label = in_a == nullptr
                  ? "+ " + last_b->as_typed()
                  : fmt::format("{} → {}", in_a->as_typed(), join_values(last_b->values));
    out.push_back(std::move(c));
  }
  for (const FlagSetting& fa : a.command.flags) {
    if (b.command.find(fa.name) != nullptr)
      continue;
    if (std::find(seen.begin(), seen.end(), fa.name) != seen.end())
      continue;
    seen.push_back(fa.name);
    ScenarioChange c;
    c.kind = ScenarioChange::Kind::kFlag;
    c.subject = fa.name;
    c.label = "− " + a.command.find(fa.name)->as_typed();
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace servescope
