// A launch command as typed, split into the program, environment assignments and flags.
// Engine-neutral: each engine's parser fills it using its own flag table.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace servescope {

struct FlagSetting {
  std::string name;                 // canonical flag, e.g. "--tp-size"
  std::string spelled;              // as typed, e.g. "--tp"
  std::vector<std::string> values;  // none for store-true flags
  int argv_index = 0;               // position of the flag in the command's words
  bool known = false;               // the engine's CLI has this flag (in the modelled version)
  bool modelled = false;            // a capacity rule reads it

  /// "--tp 4", "--enable-dp-attention", "--cuda-graph-bs 1 2 4"
  std::string as_typed() const;
  const std::string& value() const;  // first value, or "" for store-true flags
};

struct LaunchCommand {
  std::vector<std::string> words;                  // the command exactly as typed, split into words
  std::string program;                             // e.g. "python -m sglang.launch_server"
  std::map<std::string, std::string> environment;  // K=V words before the program
  std::vector<FlagSetting> flags;                  // in order of appearance

  /// The last occurrence of a canonical flag (argparse keeps the last), or nullptr.
  const FlagSetting* find(const std::string& canonical) const;
  bool has(const std::string& canonical) const { return find(canonical) != nullptr; }
  std::vector<const FlagSetting*> unmodelled() const;

  /// The command with one flag set (replacing any occurrence) or removed; used by diff
  /// and why to build counterfactual commands.
  LaunchCommand with_flag(const FlagSetting& flag) const;
  LaunchCommand without_flag(const std::string& canonical) const;
  /// The words joined back with shell quoting where needed.
  std::string to_string() const;
};

}  // namespace servescope
