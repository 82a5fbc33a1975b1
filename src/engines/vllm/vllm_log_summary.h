// What a vLLM log says about its server (LogSummary): the model, the parallel sizes, the
// memory profile and the capacity lines, problems and settings vLLM adjusted.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engines/log_grammar.h"

namespace servescope::vllm {

LogSummary summarize_vllm_log(const std::vector<Fact>& facts);

/// The fact of a kind that stands for the server: the first one printed by the server's own
/// processes or rank 0 (untagged, APIServer, EngineCore, TP0), else the first one.
const Fact* primary_fact(const std::vector<Fact>& facts, std::string_view kind);

/// The launch command pasted above the log (a `launch_command` fact that parses): its words
/// and the model it serves ("" when it names none).
struct LoggedLaunch {
  std::vector<std::string> words;  // the engine's argv, program first
  std::string model;
  std::map<std::string, std::string> environment;  // set before the program
  std::string origin;                              // "log line 3"
};
std::optional<LoggedLaunch> logged_launch(const std::vector<Fact>& facts);

}  // namespace servescope::vllm
