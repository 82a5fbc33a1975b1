// `why` output: the observation, the ranked hypotheses, and the isolation plan.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "diagnose/why.h"

namespace servescope {

std::string render_why_text(const WhyResult& w);
nlohmann::json why_to_json(const WhyResult& w);

}  // namespace servescope
