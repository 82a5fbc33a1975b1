// Parses an SGLang launch command as typed: `python -m sglang.launch_server ...`,
// `python3.12 -m sglang.launch_server ...`, `sglang serve ...`, with K=V environment words
// in front, `--flag value` and `--flag=value`, store-true flags, aliases, deprecated names
// and argparse's unique-prefix abbreviations (`--tp 4` is `--tp-size 4`).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "engines/launch_command.h"

namespace servescope::sglang {

/// Whether the words launch SGLang.
bool launches_sglang(const std::vector<std::string>& words);

/// Notes the parser made that are not errors: an abbreviation argparse would reject as
/// ambiguous, a flag the newest SGLang no longer accepts. Reported as findings.
struct ParseNote {
  std::string code;
  std::string flag;  // as typed
  std::string message;
};

struct ParsedSglangCommand {
  LaunchCommand command;
  std::vector<ParseNote> notes;
};

/// Fails with one line naming the flag for a bad value (`--tp 0`, `--tp abc`,
/// `--mem-fraction-static 1.7`), a missing value, or an empty command.
Result<ParsedSglangCommand> parse_sglang_command(const std::vector<std::string>& words);

}  // namespace servescope::sglang
