// libFuzzer target: the intake layer — shell text, systemd units, compose files and Kubernetes
// manifests (yaml-cpp) — reading a launch command the engines recognise. Byte 0 picks the
// reader; the rest is the text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engines/engine.h"
#include "intake/launch_input.h"
#include "intake/shell_words.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  static const servescope::LaunchRecognizer engines = servescope::launch_recognizer();
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      auto r = servescope::read_launch_text(text, "fuzz", engines);
      if (r) {
        for (const auto& w : r->argv)
          (void)servescope::shell_quote(w);
      }
      break;
    }
    case 1: {
      auto words = servescope::split_shell_words(text);
      if (words)
        (void)servescope::launch_in_words(*words, engines);
      break;
    }
    default:
      (void)servescope::version_from_image(text);
      (void)servescope::gpus_in_visible_devices(text);
  }
  return 0;
}
