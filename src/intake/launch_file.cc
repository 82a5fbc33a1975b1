// read_launch_file / read_launch_text (intake/launch_input.h): the kind of file by its content.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/file.h"
#include "intake/launch_input.h"
#include "intake/shell_words.h"
#include "intake/systemd_unit.h"
#include "intake/yaml_manifests.h"

namespace servescope {

Result<LaunchInput> read_launch_text(std::string_view text, std::string_view name,
                                     const LaunchRecognizer& launches) {
  if (looks_like_systemd_unit(text))
    return launch_in_systemd_unit(text, name, launches);
  switch (yaml_kind(text)) {
    case YamlKind::kCompose:
      return launch_in_compose(text, name, launches);
    case YamlKind::kKubernetes:
      return launch_in_kubernetes(text, name, launches);
    case YamlKind::kNone:
      break;
  }
  return launch_in_shell_text(text, name, launches);
}

std::optional<std::map<std::string, std::string>> environment_in_text(std::string_view text) {
  auto commands = split_shell_commands(text);
  if (!commands)
    return std::nullopt;
  std::map<std::string, std::string> env;
  for (const ShellCommand& c : *commands) {
    for (const std::string& w : c.words) {
      if (w == "export")
        continue;
      const auto eq = w.find('=');
      const bool name_ok =
          eq != std::string::npos && eq > 0 && !std::isdigit(static_cast<unsigned char>(w[0])) &&
          std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
          });
      if (!name_ok)
        return std::nullopt;
      env[w.substr(0, eq)] = w.substr(eq + 1);
    }
  }
  if (env.empty())
    return std::nullopt;
  return env;
}

std::optional<std::vector<std::string>> flags_in_text(std::string_view text) {
  auto commands = split_shell_commands(text);
  if (!commands)
    return std::nullopt;
  std::vector<std::string> words;
  for (const ShellCommand& c : *commands)
    words.insert(words.end(), c.words.begin(), c.words.end());
  if (words.empty() || words.front().rfind("-", 0) != 0)
    return std::nullopt;
  return words;
}

Result<LaunchInput> read_launch_file(const std::string& path, const LaunchRecognizer& launches) {
  auto text = read_file(path);
  if (!text)
    return fail(fmt::format("--from {}", text.message()));
  return read_launch_text(*text, path, launches);
}

}  // namespace servescope
