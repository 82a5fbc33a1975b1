// The launch command template of `bisect`: the command as typed, with placeholders {flags}
// (the configuration's flag words), {port}, {run_dir} and {gpus} (a device list such as
// "0,1"). Executed as an argv list — {flags} must then be a word of its own and expands to
// one word per flag word — or, with --shell, as one `sh -c` string with the flags quoted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "intake/shell_words.h"  // shell_quote, used by callers that print commands

namespace servescope {

struct Placeholders {
  std::vector<std::string> flags;
  int port = 0;
  std::string run_dir;
  std::string gpus;
  std::string host = "127.0.0.1";  // where the server listens: known once it runs (a job's node)
};

class LaunchTemplate {
 public:
  /// Fails (one line naming the fix) on an empty template, a missing {flags}, {flags} glued
  /// to other text in argv mode, an unknown {placeholder}, or unbalanced quotes.
  static Result<LaunchTemplate> parse(std::string_view text, bool shell);

  const std::string& text() const { return text_; }
  bool shell() const { return shell_; }
  /// The template's words (argv mode: as split; shell mode: split for reading only).
  const std::vector<std::string>& words() const { return words_; }
  /// Whether the template uses "{port}", "{gpus}", ... anywhere.
  bool uses(std::string_view placeholder) const;

  /// The argv to execute: argv mode substitutes each word; shell mode returns
  /// {"/bin/sh", "-c", the substituted text}.
  std::vector<std::string> expand(const Placeholders& values) const;
  /// The words as the engine would see them, for the model: argv mode's expansion, or the
  /// shell text's expansion split into words (no shell expansion of any kind).
  std::vector<std::string> expand_words(const Placeholders& values) const;

 private:
  std::string text_;
  bool shell_ = false;
  std::vector<std::string> words_;
};

/// Replaces {port}, {run_dir}, {gpus} and {host} in one string (an environment value, a
/// readiness URL).
std::string substitute_placeholders(std::string_view text, const Placeholders& values);

}  // namespace servescope
