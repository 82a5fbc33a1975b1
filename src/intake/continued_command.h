// A launch command pasted into a log, a README or a bug report over several lines, each but
// the last ending in a backslash (the shell's line continuation). The log grammars read a log
// line by line; this holds the lines of one command until the last, so the whole command goes
// through the intake readers (launch_in_shell_text) as one piece of shell text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace servescope {

class ContinuedCommand {
 public:
  /// Whether a line continues onto the next (its last non-blank character is a backslash).
  static bool continues(std::string_view line);

  /// Starts a command at `line` (number `number`). Returns whether more lines follow.
  bool start(std::string_view line, std::uint64_t number);
  /// Adds the next line of a pending command. Returns whether more lines follow; a command
  /// longer than a command can be (64 KiB: a text of endless backslashes) ends here.
  bool add(std::string_view line);

  bool pending() const { return pending_; }
  std::uint64_t first_line() const { return first_line_; }
  /// The command as shell text, continuations kept ("vllm serve M \\\n  --tp 2"), and ends it.
  std::string take();

 private:
  std::string text_;
  std::uint64_t first_line_ = 0;
  bool pending_ = false;
};

}  // namespace servescope
