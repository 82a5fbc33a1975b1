// bench --slurm: the load generator runs inside the cluster, on the engine's node (the host of
// --url, or the node of --slurm-allocation's job) or the one --slurm-node names, so the
// network between client and server is the cluster's. servescope re-runs itself there with
// `srun` (inside the allocation with --overlap, else as a one-task job), the same options
// minus the --slurm ones; srun passes its output and exit status back.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command.h"
#include "core/result.h"

namespace servescope {

struct BenchSlurmCli {
  bool slurm = false;
  std::string node;        // --slurm-node
  std::string allocation;  // --slurm-allocation: the engine's job
};

void add_bench_slurm_options(CLI::App& app, BenchSlurmCli& cli);

/// The srun command that runs `options` (bench's own, the --slurm ones removed) on the chosen
/// node. `url_host` is the server's host from --url, the engine's node when no other is given.
Result<std::vector<std::string>> bench_srun_argv(const BenchSlurmCli& cli,
                                                 const std::vector<std::string>& options,
                                                 const std::string& self,
                                                 const std::string& url_host);

/// Runs the srun command, passing stdin/stdout/stderr through; its exit status.
ExitStatus run_bench_on_slurm(const std::vector<std::string>& argv);

/// Where this process runs, for the report: host name and the Slurm job/node it is in.
struct BenchClientPlace {
  std::string host, slurm_job_id, slurm_node;
};
BenchClientPlace bench_client_place();

}  // namespace servescope
