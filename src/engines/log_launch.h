// The launch command a log carries (a `launch_command` fact: a command pasted above the log,
// or printed by a test harness), read by the same intake rules as `--from FILE` and `-- CMD`:
// its argv, the environment set before it, the GPUs it is given and the image it runs in.
#pragma once

#include <optional>

#include "engines/log_grammar.h"
#include "intake/launch_input.h"

namespace servescope {

/// The launch command of `fact` for the engine `launches` recognises, or nullopt when its
/// text holds none (prose that mentions the program).
std::optional<LaunchInput> launch_in_fact(const Fact& fact, const LaunchRecognizer& launches);

}  // namespace servescope
