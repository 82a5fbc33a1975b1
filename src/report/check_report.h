// `check` output: predicted vs logged per figure (✓ / ✗ / not checked), the derivation of each
// mismatch and the log line it disagrees with; JSON with the "comparisons" of the issue.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "diagnose/check.h"

namespace servescope {

std::string render_check_text(const std::string& file, const CheckResult& r);
/// "To check more:" and each option with the figures it would check ("" when none would).
std::string render_inputs_that_would_check(const std::vector<Comparison>& comparisons);
std::string render_inputs_that_would_check(const std::vector<const Comparison*>& unchecked);
/// "To check more:" for options already counted.
std::string render_would_check(const std::vector<std::pair<std::string, std::size_t>>& inputs);
/// The same as JSON: [{"option", "figures"}].
nlohmann::json inputs_json(const std::vector<const Comparison*>& unchecked);
nlohmann::json inputs_json(const std::vector<Comparison>& comparisons);
nlohmann::json check_to_json(const std::string& file, const CheckResult& r);

}  // namespace servescope
