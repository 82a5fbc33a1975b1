// The Slurm launcher: each experiment is a job. `sbatch` of a generated script (or, with an
// allocation, an `srun` step inside it); the job's state, node and exit code from
// `scontrol show job -o`; teardown with `scancel --signal=TERM --full`, then KILL, then a
// plain `scancel`. The server's output lands in the run folder (a file system the nodes
// share). HTTP, ports and the clock are this machine's (the node must be reachable from it).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "lab/posix_process_host.h"
#include "lab/slurm_job.h"
#include "lab/tool_run.h"

namespace servescope {

class SlurmHost final : public ProcessHost {
 public:
  /// `scratch_dir` holds the captured output of sbatch/scontrol/scancel calls.
  SlurmHost(SlurmOptions options, std::string scratch_dir);

  Result<std::unique_ptr<ServerProcess>> launch(const LaunchSpec& spec) override;
  Result<std::unique_ptr<ServerProcess>> attach(const std::string& job_id) override;
  HttpReply http_get(const std::string& url, std::chrono::milliseconds timeout) override {
    return local_.http_get(url, timeout);
  }
  bool port_free(int port) override { return local_.port_free(port); }
  int pick_port() override { return local_.pick_port(); }
  double now() override { return local_.now(); }
  double wall_time() override { return local_.wall_time(); }
  void sleep(double seconds) override { local_.sleep(seconds); }

  /// Runs a Slurm command to its end (at most the command timeout), capturing its output.
  Result<ToolRun> run_tool(const std::vector<std::string>& argv);
  /// The job's state as `scontrol show job -o ID` prints it (gone: exists = false).
  Result<SlurmJobState> query(const std::string& job_id);
  const SlurmOptions& options() const { return options_; }

 private:
  Result<std::unique_ptr<ServerProcess>> launch_step(const LaunchSpec& spec);

  SlurmOptions options_;
  std::string scratch_dir_;
  PosixProcessHost local_;
  ToolRunner tools_;
};

}  // namespace servescope
