// What servescope says to Slurm and reads back, as pure functions: the batch script of one
// experiment (sbatch), the job record `scontrol show job -o ID` prints, and the state the
// experiment is in by it. SlurmHost (lab/slurm_host.h) runs the commands.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "lab/process_host.h"

namespace servescope {

/// How each experiment's job is shaped: from --slurm-* options or a --slurm-config file.
struct SlurmOptions {
  std::string allocation;  // run each experiment as an srun step inside this job ("": sbatch)
  int gpus = 0;            // --gres=gpu:N per experiment (0: none asked)
  int nodes = 1;           // nodes per experiment; more than one runs the command on each
  std::string partition;
  std::string time_limit;  // Slurm's format: "30", "1:00:00", "1-00:00:00"
  std::string account;
  std::vector<std::string> sbatch_lines;  // extra directives, "--exclusive" or "#SBATCH -C a100"
  std::string node;               // bench: the node the load generator runs on ("": the engine's)
  double poll_s = 1;              // the scheduler is asked about a job at most this often
  double command_timeout_s = 60;  // the longest an sbatch, scontrol or scancel may take
};

/// Reads a --slurm-config YAML file (keys: allocation, gpus, nodes, partition, time, account,
/// sbatch: [lines], poll) into `options`; unknown keys are errors that name the file.
Status read_slurm_config(const std::string& path, SlurmOptions& options);

/// The batch script that runs `spec` as one job: its name, output files, resources and extra
/// directives, then `cd`, the environment and `exec` of the command (so the engine receives
/// the job's signals itself). With nodes > 1 the command runs once per node through srun.
std::string slurm_batch_script(const SlurmOptions& options, const LaunchSpec& spec);

/// The fields of one `scontrol show job -o` line ("JobId=12 JobName=x ... JobState=RUNNING").
/// Values run to the next " Key=" (some values, Command= and Reason=, hold spaces).
std::map<std::string, std::string> parse_scontrol_record(std::string_view line);

/// A job as servescope needs it.
struct SlurmJobState {
  bool exists = false;  // scontrol still knows the job (it forgets it MinJobAge after the end)
  std::string state;    // JobState: PENDING, RUNNING, COMPLETING, COMPLETED, CANCELLED, ...
  std::string reason;   // Reason: why it waits or ended ("None" dropped)
  std::string node;     // BatchHost, else the first node of NodeList ("" while pending)
  std::optional<int> exit_status;  // once ended: ExitCode a:b as a, or 128 + b for a signal
  double queued_seconds = -1;      // StartTime − SubmitTime once it started (< 0: not yet)

  bool pending() const;   // waits in the queue: nothing runs yet
  bool finished() const;  // a terminal state: nothing of it runs any more
};
SlurmJobState slurm_job_state(const std::map<std::string, std::string>& record);

/// The first host of a Slurm node list: "gpu[03-05,07]" → "gpu03", "a,b" → "a".
std::string first_node(std::string_view node_list);

/// The job id `sbatch --parsable` prints ("123" or "123;cluster"); fails on anything else.
Result<std::string> parse_sbatch_job_id(std::string_view output);

}  // namespace servescope
