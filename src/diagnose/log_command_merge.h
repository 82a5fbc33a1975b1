// The launch command a user gives beside a log (`check LOG -- CMD`, `--from FILE`, or a file
// with the log's stem beside it), joined to what the log itself shows. The log's own argument
// dump wins for what it states; the command fills what the log lacks; where both state a
// setting and disagree, the disagreement is reported (the command may be stale), never resolved
// silently.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "diagnose/scenario_builder.h"
#include "engines/engine.h"
#include "evidence/log_facts.h"
#include "intake/launch_input.h"

namespace servescope {

/// What joining a command to a log did, for the output.
struct CommandMerge {
  std::vector<std::string> filled;          // flags the command supplied that the log lacks
  std::vector<std::string> contradictions;  // "--max-model-len: the command types 8192; the
                                            // log's settings show 32768 (line …)"
};

/// The command a user gives beside a log: `from` (every source the intake reads — a script, a
/// systemd unit, a compose file, a Kubernetes manifest, a `docker run` line — and also a flag
/// file holding only the engine's flags, or an environment file of VAR=value lines) or the
/// words after --. `engine` is the log's engine (nullptr when the log does not say); a flag
/// file needs it. Fails with one line naming the input and what it lacks.
Result<LaunchInput> read_user_command(const std::string& from,
                                      const std::vector<std::string>& words, const Engine* engine);

/// The same from a file's text (`name` stands for the file in messages).
Result<LaunchInput> read_user_command_text(std::string_view text, const std::string& name,
                                           const Engine* engine);

/// A command given beside a log that is read, not checked (`logs --from`): what it fills and
/// where it disagrees with the log.
struct GivenCommand {
  std::string origin;
  LaunchInput input;
  CommandMerge merge;
};
Result<GivenCommand> given_command_beside(const LogFacts& facts, const std::string& from,
                                          const std::vector<std::string>& words);

/// Joins `input` (the user's command, as the intake read it) to `log`. `origin` names where the
/// command came from for the messages ("run.cmd", "the command after --"). Fails when the
/// command is not a valid command of `engine`.
Result<CommandMerge> merge_user_command(const Engine& engine, const LaunchInput& input,
                                        const std::string& origin, LogScenario& log);

/// The engine's own name of a flag as it may be spelled ("--tensor-parallel-size" is SGLang's
/// "--tp-size"), or "" when the engine has no such flag.
std::string canonical_flag(const Engine& engine, const std::string& spelled);

/// Sets a flag the user states with an option of `check` (--tp N: "--tensor-parallel-size")
/// on the log's commands unless the log states it; a log stating another value is a
/// contradiction. `why` names the option for the messages.
Result<CommandMerge> merge_user_flag(const Engine& engine, const std::string& flag,
                                     const std::string& value, const std::string& why,
                                     LogScenario& log);

/// A log that shows no settings at all, checked with only --model: the engine's defaults with
/// that model stand for the run (the output says so). Does nothing when the log shows settings.
void assume_defaults_with_model(const Engine& engine, const std::string& model, LogScenario& log);

/// Files beside `log_path` that hold its launch command: the same stem with .cmd, .sh, .txt
/// (a flag file), .env, .service, .yaml/.yml or .args; the first that exists, or "".
std::string command_file_beside(const std::string& log_path);

/// Whether a file name is one command_file_beside would pair with a log.
bool is_command_file_name(const std::string& path);

/// Whether `file` is a command file with a log of the same stem among `files` (so a
/// directory's listing does not check it as a log).
bool pairs_with_a_log(const std::string& file, const std::vector<std::string>& files);

}  // namespace servescope
