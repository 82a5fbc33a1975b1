// libFuzzer target: the vLLM command-line parser, with its JSON-valued flags assembled from
// whole values and dotted keys.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/derivation.h"
#include "core/text.h"
#include "engines/vllm/vllm_args.h"
#include "engines/vllm/vllm_command.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto words = servescope::split_command_line(text);
  if (!words)
    return 0;
  words->insert(words->begin(), {"vllm", "serve"});
  auto parsed = servescope::vllm::parse_vllm_command(*words);
  if (parsed) {
    (void)parsed->command.to_string();
    servescope::Derivation graph;
    servescope::vllm::VllmArgs args(parsed->command, parsed->command.environment, graph);
    for (const char* field : {"compilation_config", "speculative_config"}) {
      (void)args.json_flag(field);
      (void)args.json_value(field, "cudagraph_mode");
    }
    for (const auto& f : parsed->command.flags)
      (void)parsed->command.without_flag(f.name);
  }
  return 0;
}
