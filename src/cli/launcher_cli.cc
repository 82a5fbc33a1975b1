#include "cli/launcher_cli.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <filesystem>

#include "core/duration.h"
#include "core/file.h"
#include "core/text.h"
#include "lab/k8s_host.h"
#include "lab/posix_process_host.h"
#include "lab/slurm_host.h"

namespace servescope {

void add_launcher_options(CLI::App& app, LauncherCli& cli) {
  app.add_option("--launcher", cli.launcher,
                 "Where experiments run: local (process groups here), slurm (a job each), k8s (a "
                 "Kubernetes Job or LeaderWorkerSet each)")
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
  app.add_option("--k8s-image", cli.k8s_image,
                 "The engine's container image (k8s), e.g. lmsysorg/sglang:v0.5.4.post1");
  app.add_option("--k8s-namespace", cli.k8s_namespace,
                 "Namespace of the experiments' objects (default: kubectl's context's)");
  app.add_option("--k8s-gpus", cli.k8s_gpus, "GPUs per pod (nvidia.com/gpu limit)");
  app.add_option("--k8s-nodes", cli.k8s_nodes,
                 "Pods per experiment; more than 1 is a LeaderWorkerSet (multi-node engines)");
  app.add_option("--k8s-template", cli.k8s_template,
                 "A Job (or LeaderWorkerSet) YAML to start from: node selectors, tolerations, "
                 "volumes, secrets are kept; image, command, env, GPUs and probe are filled in");
  app.add_flag("--dry-run", cli.dry_run,
               "k8s: write the good and bad configurations' manifests (run folders and "
               "--out/manifests), apply nothing, stop");
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

Result<KubernetesOptions> k8s_options_of(const LauncherCli& cli, std::string* template_yaml) {
  KubernetesOptions o;
  o.image = cli.k8s_image;
  o.namespace_ = cli.k8s_namespace;
  o.gpus = std::max(cli.k8s_gpus, 0);
  o.nodes = cli.k8s_nodes > 0 ? cli.k8s_nodes : 1;
  o.template_path = cli.k8s_template;
  o.dry_run = cli.dry_run;
  if (o.image.empty())
    return fail(
        "--launcher k8s needs the engine's container image: --k8s-image IMAGE (e.g. "
        "lmsysorg/sglang:v0.5.4.post1 or vllm/vllm-openai:v0.11.0)");
  if (cli.k8s_gpus > 64 || cli.k8s_gpus < -1)
    return fail(fmt::format("--k8s-gpus {}: give the GPUs per pod, 0 to 64", cli.k8s_gpus));
  if (cli.k8s_nodes < 0 || cli.k8s_nodes > 1024)
    return fail(
        fmt::format("--k8s-nodes {}: give the pods per experiment, 1 to 1024", cli.k8s_nodes));
  static const RE2 kDns1123("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  if (!o.namespace_.empty() && !RE2::FullMatch(o.namespace_, kDns1123))
    return fail(fmt::format(
        "--k8s-namespace {}: a namespace is lower-case letters, digits and '-' (at most 63)",
        o.namespace_));
  std::string text;
  if (!o.template_path.empty()) {
    auto read = read_file(o.template_path);
    if (!read)
      return fail(fmt::format("--k8s-template {}: cannot read it", o.template_path));
    text = std::move(*read);
    // Tried now on a sample experiment, so a bad template stops the command before any launch.
    LaunchSpec sample{{"server", "--port", "8000"}, {}, "", "", "", "servescope-000"};
    if (auto m = render_k8s_manifest(o, K8sExperiment{"servescope-000", sample}, text); !m)
      return fail(fmt::format("--k8s-template {}: {}", o.template_path, m.message()));
  }
  if (template_yaml != nullptr)
    *template_yaml = std::move(text);
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
  const bool k8s_flags = !cli.k8s_image.empty() || !cli.k8s_namespace.empty() ||
                         !cli.k8s_template.empty() || cli.k8s_gpus >= 0 || cli.k8s_nodes > 0;
  if (cli.launcher != "k8s" && cli.dry_run)
    return fail("--dry-run writes Kubernetes manifests: it needs --launcher k8s and --k8s-image");
  if (cli.launcher != "k8s" && k8s_flags)
    return fail("the --k8s-* options need --launcher k8s");
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
  if (cli.launcher == "k8s") {
    if (slurm_flags)
      return fail("the --slurm-* options need --launcher slurm");
    std::string template_yaml;
    auto o = k8s_options_of(cli, &template_yaml);
    if (!o)
      return o.error();
    const std::filesystem::path out = std::filesystem::path(scratch_dir).parent_path();
    auto host = std::make_unique<KubernetesHost>(std::move(*o), std::move(template_yaml),
                                                 scratch_dir, (out / "manifests").string());
    return std::unique_ptr<ProcessHost>(std::move(host));
  }
  return fail(fmt::format("--launcher {}: use local, slurm or k8s", cli.launcher));
}

}  // namespace servescope
