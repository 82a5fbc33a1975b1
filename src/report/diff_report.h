// `diff` output: one line per changed output with its cause, then the evidence; JSON as
// ARCHITECTURE.md ("changes" with attribution, "cleared").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "diagnose/diff.h"

namespace servescope {

std::string render_diff_text(const DiffResult& d);
nlohmann::json diff_to_json(const DiffResult& d);

}  // namespace servescope
