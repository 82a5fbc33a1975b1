// Shell text → simple commands of words, by the token rules of the POSIX shell (XCU 2.3
// Token Recognition, 2.2 Quoting): backslash-newline joins lines, single quotes keep
// everything, double quotes keep all but \" \\ \$ \`, operators (| || & && ; newline) end a
// command, redirections (> >> < 2>&1 &>file) are dropped with their target, and # starts a
// comment at the start of a word. Nothing is expanded: `$VAR` stays as typed, which is what a
// reader of someone else's script wants (wordexp(3) would expand it from our environment,
// glob file names and reject the operators, so it is not used).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

struct ShellCommand {
  std::vector<std::string> words;
  int line = 1;  // 1-based line of the first word in the text
  // The operator that ended this command: "", "|", "||", "&", "&&", ";" or "\n".
  std::string terminator;
};

/// Splits `text` into simple commands (empty commands are dropped). Fails on a quote that is
/// never closed, naming its line.
Result<std::vector<ShellCommand>> split_shell_commands(std::string_view text);

/// The words of one command line (operators end it; what follows them is ignored).
Result<std::vector<std::string>> split_shell_words(std::string_view text);

/// Quotes a word for a POSIX shell where needed ("a b" → 'a b').
std::string shell_quote(std::string_view word);

}  // namespace servescope
