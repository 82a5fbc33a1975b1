// A launch command given beside a log (`logs --from FILE`, `logs LOG -- CMD`): what it adds to
// the log and where the two disagree, as text and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "diagnose/log_command_merge.h"

namespace servescope {

std::string render_given_command(const GivenCommand& given);
nlohmann::json given_command_to_json(const GivenCommand& given);

}  // namespace servescope
