// Parses a vLLM launch command as typed: `vllm serve MODEL ...`,
// `python -m vllm.entrypoints.openai.api_server --model M ...`,
// `python -m vllm.entrypoints.cli.main serve ...` and the vllm/vllm-openai image's arguments,
// with K=V environment words in front. It reads the command as vLLM's FlexibleArgumentParser
// does (vllm/utils/argparse_utils.py::FlexibleArgumentParser.parse_args): underscores in flag
// names become dashes, `-O3` / `-O 3` / `-O=3` mean `--optimization-level 3`, dotted keys
// (`--compilation-config.cudagraph_mode FULL`, `-cc.mode=3`, `--x.list+ a,b`) are parts of one
// JSON value, `--flag=value` is `--flag value`, and argparse accepts unique prefixes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/launch_command.h"

namespace servescope::vllm {

/// Whether the words launch vLLM.
bool launches_vllm(const std::vector<std::string>& words);

/// Something the parser noticed that is not an error: an ambiguous abbreviation, an unknown
/// flag (argparse would exit), a `--config` file whose contents are not read. Reported as
/// findings by the planner.
struct ParseNote {
  std::string code;
  std::string flag;  // as typed
  std::string message;
};

struct ParsedVllmCommand {
  LaunchCommand command;
  std::vector<ParseNote> notes;
};

/// Parses against the command-line surface of `surface_date` ("" = every bundled surface).
/// Fails with one line naming the flag for a bad value (`-tp 0`, `--max-model-len 3x`,
/// `--gpu-memory-utilization 1.5`, `--compilation-config '{bad'`), a missing value, a second
/// positional argument or an empty command.
Result<ParsedVllmCommand> parse_vllm_command(const std::vector<std::string>& words,
                                             std::string_view surface_date = "");

/// The launch command in a line of text that may hold more (a shell prompt, `docker run …`
/// before the image): its words from the environment assignments before the program to the
/// end, or nullopt when the line does not launch vLLM.
std::optional<std::vector<std::string>> launch_words_in(std::string_view line);

/// vLLM's human_readable_int (vllm/engine/arg_utils.py): "25.6k" → 25600, "1K" → 1024,
/// "32768" → 32768; binary suffixes take no decimals. nullopt when not a number.
std::optional<long long> parse_human_readable_int(std::string_view text);

}  // namespace servescope::vllm
