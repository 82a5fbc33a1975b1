// Reads ServerArgs fields from the launch command into the derivation graph: each value
// becomes a leaf that remembers whether it came from a flag (and its argv position) or
// from SGLang's default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/derivation.h"
#include "engines/launch_command.h"

namespace servescope::sglang {

class SglangInputs {
 public:
  SglangInputs(const LaunchCommand& command, Derivation& graph)
      : command_(command), graph_(graph) {}

  /// The flag setting that last wrote `field` (through its name, an alias or a deprecated
  /// spelling), or nullptr when the command leaves it at its default.
  const FlagSetting* setting_for(std::string_view field) const;

  // Each reader records a leaf node named after the field and returns its value.
  std::int64_t integer(std::string_view field, std::int64_t default_value, std::string unit = "");
  std::optional<std::int64_t> optional_integer(std::string_view field, std::string unit = "");
  double real(std::string_view field, double default_value, std::string unit = "");
  std::optional<double> optional_real(std::string_view field, std::string unit = "");
  bool boolean(std::string_view field);
  std::string text(std::string_view field, std::string_view default_value);
  std::optional<std::string> optional_text(std::string_view field);
  std::optional<std::vector<std::int64_t>> int_list(std::string_view field);

 private:
  void record(std::string_view field, Value value, std::string unit, const FlagSetting* from,
              std::string_view default_note);

  const LaunchCommand& command_;
  Derivation& graph_;
};

}  // namespace servescope::sglang
