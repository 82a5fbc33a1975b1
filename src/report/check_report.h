// `check` output: predicted vs logged per figure (✓ / ✗ / not checked), the derivation of each
// mismatch and the log line it disagrees with; JSON with the "comparisons" of the issue.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "diagnose/check.h"

namespace servescope {

std::string render_check_text(const std::string& file, const CheckResult& r);
nlohmann::json check_to_json(const std::string& file, const CheckResult& r);

}  // namespace servescope
