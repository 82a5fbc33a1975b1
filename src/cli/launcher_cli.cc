#include "cli/launcher_cli.h"

#include <fmt/format.h>

#include "lab/duration.h"
#include "lab/posix_process_host.h"
#include "lab/slurm_host.h"

namespace servescope {

void add_launcher_options(CLI::App& app, LauncherCli& cli) {
  app.add_option("--launcher", cli.launcher,
                 "Where experiments run: local (process groups here), slurm (a job each)")
      ->capture_default_str();
  app.add_option("--queue-timeout", cli.queue_timeout,
                 "Longest wait of an experiment in a scheduler's queue; past it the job is "
                 "cancelled and reported")
      ->capture_default_str();
  app.add_option("--slurm-config", cli.slurm_config,
                 "YAML with allocation, gpus, nodes, partition, time, account, sbatch: [lines]");
  app.add_option("--slurm-allocation", cli.slurm_allocation,
                 "Run each experiment as an srun step inside this running job (salloc/sbatch)");
  app.add_option("--slurm-gpus", cli.slurm_gpus, "GPUs per experiment (--gres=gpu:N)");
  app.add_option("--slurm-nodes", cli.slurm_nodes, "Nodes per experiment (multi-node engines)");
  app.add_option("--slurm-partition", cli.slurm_partition, "Partition of the jobs");
  app.add_option("--slurm-time", cli.slurm_time, "Time limit of each job (Slurm's format)");
  app.add_option("--slurm-account", cli.slurm_account, "Account the jobs are charged to");
  app.add_option("--sbatch", cli.sbatch_lines,
                 "An extra #SBATCH directive, e.g. '--constraint=h100' (repeatable)");
}

Result<SlurmOptions> slurm_options_of(const LauncherCli& cli) {
  SlurmOptions o;
  if (!cli.slurm_config.empty()) {
    if (Status st = read_slurm_config(cli.slurm_config, o); !st)
      return st.error();
  }
  if (!cli.slurm_allocation.empty())
    o.allocation = cli.slurm_allocation;
  if (cli.slurm_gpus >= 0)
    o.gpus = cli.slurm_gpus;
  if (cli.slurm_nodes > 0)
    o.nodes = cli.slurm_nodes;
  if (!cli.slurm_partition.empty())
    o.partition = cli.slurm_partition;
  if (!cli.slurm_time.empty())
    o.time_limit = cli.slurm_time;
  if (!cli.slurm_account.empty())
    o.account = cli.slurm_account;
  o.sbatch_lines.insert(o.sbatch_lines.end(), cli.sbatch_lines.begin(), cli.sbatch_lines.end());
  if (o.gpus > 64 || o.nodes > 1024)
    return fail(fmt::format("--slurm-gpus {} / --slurm-nodes {}: out of range", o.gpus, o.nodes));
  return o;
}

Result<double> queue_timeout_seconds(const LauncherCli& cli) {
  const auto s = parse_duration_seconds(cli.queue_timeout);
  if (!s || *s <= 0)
    return fail(
        fmt::format("--queue-timeout {}: give a duration such as 30m or 2h", cli.queue_timeout));
  return *s;
}

Result<std::unique_ptr<ProcessHost>> make_launcher(const LauncherCli& cli,
                                                   const std::string& scratch_dir) {
  const bool slurm_flags = !cli.slurm_config.empty() || !cli.slurm_allocation.empty() ||
                           cli.slurm_gpus >= 0 || cli.slurm_nodes > 0 ||
                           !cli.slurm_partition.empty() || !cli.slurm_time.empty() ||
                           !cli.slurm_account.empty() || !cli.sbatch_lines.empty();
  if (cli.launcher == "local") {
    if (slurm_flags)
      return fail("the --slurm-* options need --launcher slurm");
    return std::unique_ptr<ProcessHost>(std::make_unique<PosixProcessHost>());
  }
  if (cli.launcher == "slurm") {
    auto o = slurm_options_of(cli);
    if (!o)
      return o.error();
    return std::unique_ptr<ProcessHost>(std::make_unique<SlurmHost>(std::move(*o), scratch_dir));
  }
  return fail(fmt::format("--launcher {}: use local or slurm", cli.launcher));
}

}  // namespace servescope
