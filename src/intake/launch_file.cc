// read_launch_file / read_launch_text (intake/launch_input.h): the kind of file by its content.
#include <fmt/format.h>

#include "core/file.h"
#include "intake/launch_input.h"
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

Result<LaunchInput> read_launch_file(const std::string& path, const LaunchRecognizer& launches) {
  auto text = read_file(path);
  if (!text)
    return fail(fmt::format("--from {}", text.message()));
  return read_launch_text(*text, path, launches);
}

}  // namespace servescope
