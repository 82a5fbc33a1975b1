// libFuzzer target: the SGLang command-line parser and the shell-like word splitter.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/text.h"
#include "engines/sglang/sglang_command.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto words = servescope::split_command_line(text);
  if (!words)
    return 0;
  words->insert(words->begin(), {"python", "-m", "sglang.launch_server"});
  auto parsed = servescope::sglang::parse_sglang_command(*words);
  if (parsed) {
    (void)parsed->command.to_string();
    for (const auto& f : parsed->command.flags)
      (void)parsed->command.without_flag(f.name);
  }
  return 0;
}
