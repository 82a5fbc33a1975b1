// Runs a scheduler's command-line tool (sbatch, scontrol, scancel, kubectl) to its end and
// captures what it printed: the launchers' one way of talking to a cluster.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/posix_process_host.h"

namespace servescope {

/// What one command printed, and its exit status.
struct ToolRun {
  int status = 0;
  std::string out;
  std::string err;
};

class ToolRunner {
 public:
  /// `scratch_dir` holds each call's output while it runs; `missing_hint` follows "needs TOOL
  /// on PATH" when the tool is not installed ("Debian: slurm-client").
  ToolRunner(PosixProcessHost& host, std::string scratch_dir, std::string missing_hint)
      : host_(host), scratch_dir_(std::move(scratch_dir)), missing_hint_(std::move(missing_hint)) {}

  /// Runs `argv` (argv[0] looked up in PATH) for at most `timeout_s` (then SIGKILL and an
  /// error); fails when the tool is not installed.
  Result<ToolRun> run(const std::vector<std::string>& argv, double timeout_s);

 private:
  PosixProcessHost& host_;
  std::string scratch_dir_;
  std::string missing_hint_;
  std::atomic<int> calls_{0};
};

}  // namespace servescope
