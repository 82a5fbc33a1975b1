// libFuzzer target: a launch command given beside a log (check --from, -- CMD, a command file
// with the log's stem) — read as any intake source, a file of flags or an env file — and joined
// to a log's settings. Byte 0 picks the side that is fuzzed: the command (joined to a real
// SGLang dump) or the log (joined to a fixed command); bit 1 picks the engine.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "diagnose/log_command_merge.h"
#include "evidence/log_reader.h"

namespace {

constexpr char kDumpLog[] =
    "[2025-01-23 19:34:55] server_args=ServerArgs(model_path='meta-llama/Meta-Llama-3.1-8B', "
    "mem_fraction_static=0.88, chunked_prefill_size=8192, tp_size=1, dp_size=1, "
    "enable_torch_compile=False, cuda_graph_max_bs=160, cuda_graph_bs=None)\n"
    "[2025-01-23 19:35:15 TP0] Load weight begin. avail mem=78.81 GB\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  const servescope::Engine* engine =
      servescope::find_engine((data[0] & 2) != 0 ? "vllm" : "sglang").value();
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool fuzz_command = (data[0] & 1) == 0;
  auto facts = servescope::read_log_text(fuzz_command ? std::string_view(kDumpLog) : text, "fuzz");
  if (!facts)
    return 0;
  auto log = engine->scenario_from_log(facts->all());
  if (!log)
    return 0;
  auto input =
      fuzz_command
          ? servescope::read_user_command_text(text, "fuzz", engine)
          : servescope::read_user_command_text(
                "python -m sglang.launch_server --model-path m --tp 2 --enable-torch-compile",
                "fuzz", engine);
  if (input)
    (void)servescope::merge_user_command(*engine, *input, "fuzz", *log);
  (void)servescope::merge_user_flag(*engine, "--tensor-parallel-size", "2", "--tp", *log);
  return 0;
}
