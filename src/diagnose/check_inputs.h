// The inputs check joins to a log (check.cc): the user's command and options, and what the log
// implies but does not state, each said as inferred.
#pragma once

#include "core/result.h"
#include "diagnose/check.h"
#include "engines/launch_command.h"
#include "intake/launch_input.h"

namespace servescope {

/// The user's input beside the log — a launch command (after --, --from, or a file with the
/// log's stem), --tp, --model alone — joined to out.log; `given` gets the command as read.
Status join_user_input(const CheckOptions& options, CheckResult& out, LaunchInput& given);

/// The tensor parallelism the log's rank prefixes imply, when nothing states it.
Status infer_parallelism(const LogFacts& facts, CheckResult& out);

/// A checkpoint quantization the run's --quantization names and the config at hand lacks.
void infer_checkpoint_quantization(const LaunchCommand& command, ModelShape& model,
                                   CheckResult& out);

}  // namespace servescope
