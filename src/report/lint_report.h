// `lint` output: findings, errors first; JSON with the ARCHITECTURE.md finding fields.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "diagnose/lint.h"
#include "engines/scenario.h"

namespace servescope {

std::string render_lint_text(const Scenario& scenario, const LintResult& result);
nlohmann::json lint_to_json(const LintResult& result);
nlohmann::json finding_to_json(const Finding& f);

}  // namespace servescope
