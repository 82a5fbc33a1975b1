#include "engines/log_launch.h"

#include <fmt/format.h>

namespace servescope {

std::optional<LaunchInput> launch_in_fact(const Fact& fact, const LaunchRecognizer& launches) {
  const auto text = fact.text("command");
  if (!text)
    return std::nullopt;
  auto input = launch_in_shell_text(*text, "log", launches);
  if (!input)
    return std::nullopt;
  input->origin = fmt::format("log line {}", fact.line);
  count_visible_gpus(*input);
  if (input->image_version.empty()) {
    if (auto v = fact.text("image_version"))
      input->image_version = *v;
  }
  return std::move(*input);
}

}  // namespace servescope
