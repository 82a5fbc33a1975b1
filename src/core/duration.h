// Durations as people type them on the command line: "90" (seconds), "90s", "500ms", "2m",
// "1.5h".
#pragma once

#include <optional>
#include <string_view>

namespace servescope {

/// Seconds, or nullopt for anything that is not a non-negative finite duration.
std::optional<double> parse_duration_seconds(std::string_view text);

}  // namespace servescope
