// A systemd service unit (systemd.service(5), systemd.exec(5)): ExecStart= with backslash
// continuations and its prefixes (- @ : + !), Environment= assignments (quoted, several per
// line), EnvironmentFile= (read when it exists; "-" marks an optional one), $VAR and ${VAR}
// in ExecStart replaced from that environment, as systemd does.
#pragma once

#include <string_view>

#include "intake/launch_input.h"

namespace servescope {

/// Whether `text` looks like a unit file ([Service] or an ExecStart= line).
bool looks_like_systemd_unit(std::string_view text);

Result<LaunchInput> launch_in_systemd_unit(std::string_view text, std::string_view name,
                                           const LaunchRecognizer& launches);

}  // namespace servescope
