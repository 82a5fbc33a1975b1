// --launcher local|slurm|k8s and each launcher's options, shared by the commands that launch
// servers (bisect) or run where the servers are (bench --slurm).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/k8s_manifest.h"
#include "lab/process_host.h"
#include "lab/slurm_job.h"

namespace servescope {

struct LauncherCli {
  std::string launcher = "local";
  std::string queue_timeout = "1h";
  // Slurm: a config file, then options that override it.
  std::string slurm_config;
  std::string slurm_allocation;
  int slurm_gpus = -1;  // -1: the config file's (else none)
  int slurm_nodes = 0;  // 0: the config file's (else 1)
  std::string slurm_partition, slurm_time, slurm_account;
  std::vector<std::string> sbatch_lines;
  // Kubernetes: a Job (or a LeaderWorkerSet for --k8s-nodes > 1) per experiment.
  std::string k8s_image, k8s_namespace, k8s_template;
  int k8s_gpus = -1;  // -1: not given (none asked)
  int k8s_nodes = 0;  // 0: not given (1)
  bool dry_run = false;
};

void add_launcher_options(CLI::App& app, LauncherCli& cli);

/// The Slurm options the flags and --slurm-config give; errors name the flag or file.
Result<SlurmOptions> slurm_options_of(const LauncherCli& cli);

/// The Kubernetes options the flags give (the template is read and tried on a sample
/// experiment); errors name the flag or file and the fix.
Result<KubernetesOptions> k8s_options_of(const LauncherCli& cli, std::string* template_yaml);

/// The launcher the flags ask for; `scratch_dir` holds what it needs to write (job scripts
/// live in the run folders). Errors name the flag and the fix.
Result<std::unique_ptr<ProcessHost>> make_launcher(const LauncherCli& cli,
                                                   const std::string& scratch_dir);

/// The queue timeout in seconds; fails naming --queue-timeout.
Result<double> queue_timeout_seconds(const LauncherCli& cli);

}  // namespace servescope
