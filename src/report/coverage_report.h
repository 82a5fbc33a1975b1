// `servescope models --coverage`: the architectures an engine release serves and whether
// servescope plans each, as text for people and JSON for programs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engines/architecture_coverage.h"

namespace servescope {

/// {"engine", "release", "source", "summary": {"text"|"multimodal": {"registered",
/// "modelled", "gaps", "not_modelled"}}, "architectures": [{"architecture", "kind", "status",
/// "reason", "model_type", "family", "module"}]}
nlohmann::json coverage_to_json(const ArchitectureRegistry& registry,
                                const std::vector<ArchitectureCoverage>& coverage);

/// A summary line per kind, then one row per architecture (`all`) or only the summary and the
/// not-modelled count per reason.
std::string coverage_to_text(const ArchitectureRegistry& registry,
                             const std::vector<ArchitectureCoverage>& coverage, bool all);

}  // namespace servescope
