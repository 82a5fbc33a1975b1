// The plan as the JSON document of ARCHITECTURE.md (stable field names; fields are only added).
#pragma once

#include <nlohmann/json.hpp>

#include "core/derivation.h"
#include "engines/plan.h"

namespace servescope {

nlohmann::json value_to_json(const Value& v);
nlohmann::json derivation_to_json(const Derivation& graph);
nlohmann::json plan_to_json(const Plan& plan);

}  // namespace servescope
