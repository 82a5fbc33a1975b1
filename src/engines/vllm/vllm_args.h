// Reads EngineArgs fields, JSON-valued config flags and the environment variables the rules
// read from a launch command into the derivation graph: each value becomes a leaf that
// remembers whether it came from a flag (and its argv position), the environment, or vLLM's
// default. Leaves are named arg.<field>, arg.<field>.<key> (JSON keys) and env.<NAME>.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/derivation.h"
#include "core/result.h"
#include "engines/launch_command.h"

namespace servescope::vllm {

class VllmArgs {
 public:
  VllmArgs(const LaunchCommand& command, const std::map<std::string, std::string>& environment,
           Derivation& graph)
      : command_(command), environment_(environment), graph_(graph) {}

  /// The flag setting that last wrote `field` (a dotted JSON part counts), or nullptr.
  const FlagSetting* setting_for(std::string_view field) const;
  /// The flag as typed that set `field`, or "".
  std::string typed(std::string_view field) const;

  std::int64_t integer(std::string_view field, std::int64_t default_value, std::string unit = "");
  /// Integers vLLM parses with human_readable_int ("32k"); max_model_len's -1/auto is -1.
  std::optional<std::int64_t> optional_integer(std::string_view field, std::string unit = "");
  double real(std::string_view field, double default_value, std::string unit = "");
  /// A BooleanOptionalAction flag: true (--x), false (--no-x) or unset.
  std::optional<bool> optional_boolean(std::string_view field);
  std::string text(std::string_view field, std::string_view default_value);
  std::optional<std::string> optional_text(std::string_view field);
  std::optional<std::vector<std::int64_t>> int_list(std::string_view field);

  /// A JSON-valued flag assembled as FlexibleArgumentParser does: dotted parts merged into one
  /// object, which replaces a whole-JSON value given earlier. Null when absent.
  /// Fails naming the flag when the JSON is invalid or not an object.
  Result<nlohmann::json> json_flag(std::string_view field) const;
  /// A key of a JSON-valued flag, recorded as a leaf arg.<field>.<path>; nullopt when absent.
  std::optional<nlohmann::json> json_value(std::string_view field, std::string_view path,
                                           std::string unit = "");

  /// An environment variable, recorded as env.<NAME> (its vLLM default when unset).
  std::optional<std::string> env(std::string_view name, std::string_view default_note);

 private:
  void record(std::string_view field, Value value, std::string unit, const FlagSetting* from,
              std::string_view default_note);

  const LaunchCommand& command_;
  const std::map<std::string, std::string>& environment_;
  Derivation& graph_;
};

/// A JSON scalar as a derivation Value (numbers, booleans and strings; lists of integers).
Value json_to_value(const nlohmann::json& j);

}  // namespace servescope::vllm
