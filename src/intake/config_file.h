// `--config FILE.yaml` in a launch command: the engines read flags from a YAML map (vLLM's
// FlexibleArgumentParser._pull_args_from_config, SGLang's ConfigArgumentMerger): key → --key
// (underscores become dashes), true → the bare flag, false → left out, a list → the flag with
// every item, else the flag and the value. The file's flags go before the typed ones, so a
// typed flag wins, as in both engines.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace servescope {

struct ConfigExpansion {
  std::vector<std::string> argv;
  std::string note;  // "12 flags from cfg.yaml", or "" when the command has no --config
};

/// Replaces `--config FILE` (or --config=FILE) with the file's flags. A relative FILE is read
/// from `base_dir` ("" = the working directory). A file that is not there is an error when
/// `must_exist`, else the flag stays and the note says it was not read.
Result<ConfigExpansion> expand_config_file(const std::vector<std::string>& argv,
                                           const std::string& base_dir, bool must_exist);

}  // namespace servescope
