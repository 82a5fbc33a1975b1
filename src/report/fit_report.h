// `fit` output: the ranked configurations that meet the target, each with the figures that
// decide it and its launch command, and the closest that miss.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "diagnose/fit.h"
#include "engines/fit_knobs.h"

namespace servescope {

/// `latency`: the latency target's description ("" without one).
std::string render_fit_text(const FitResult& r, const FitKnobs& knobs,
                            const std::string& latency = "");
/// The --json document as Markdown (report layer; `servescope report` and fit --markdown).
std::string fit_markdown(const nlohmann::json& doc);
/// Figures under the engine's own output names (knobs), best first.
nlohmann::json fit_to_json(const FitResult& r, const FitKnobs& knobs,
                           const std::string& latency = "");

}  // namespace servescope
