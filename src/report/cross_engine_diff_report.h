// Cross-engine `diff` output: the two engines' KV arithmetic side by side, term by term, with
// the tokens each term moves; JSON with the same fields.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "diagnose/cross_engine_diff.h"

namespace servescope {

std::string render_cross_engine_diff_text(const CrossEngineDiff& d);
nlohmann::json cross_engine_diff_to_json(const CrossEngineDiff& d);

}  // namespace servescope
