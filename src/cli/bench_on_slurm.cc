#include "cli/bench_on_slurm.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "core/env.h"

namespace servescope {
namespace {

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1" || host == "[::1]";
}

}  // namespace

void add_bench_slurm_options(CLI::App& app, BenchSlurmCli& cli) {
  app.add_flag("--slurm", cli.slurm,
               "Run the load generator inside the Slurm cluster (srun), on the engine's node "
               "unless --slurm-node names another");
  app.add_option("--slurm-node", cli.node, "With --slurm: the node the load generator runs on");
  app.add_option("--slurm-allocation", cli.allocation,
                 "With --slurm: the engine's job; the load generator runs in it (srun --overlap)");
}

Result<std::vector<std::string>> bench_srun_argv(const BenchSlurmCli& cli,
                                                 const std::vector<std::string>& options,
                                                 const std::string& self,
                                                 const std::string& url_host) {
  std::vector<std::string> argv = {"srun", "--nodes=1", "--ntasks=1",
                                   "--job-name=servescope-bench"};
  if (!cli.allocation.empty()) {
    argv.push_back("--jobid=" + cli.allocation);
    argv.push_back("--overlap");  // beside the engine's step, not waiting for its resources
  }
  std::string node = cli.node;
  if (node.empty() && cli.allocation.empty()) {
    if (is_loopback(url_host))
      return fail(fmt::format(
          "bench --slurm: --url names {}, which is no node; give the engine's node in --url, "
          "or --slurm-node NODE, or --slurm-allocation JOBID",
          url_host));
    node = url_host;
  }
  if (!node.empty())
    argv.push_back("--nodelist=" + node);
  argv.push_back(self);
  argv.push_back("bench");
  // The same options, the --slurm ones left out (they would send it to srun again).
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    if (o == "--slurm")
      continue;
    if (o == "--slurm-node" || o == "--slurm-allocation") {
      ++i;
      continue;
    }
    if (o.rfind("--slurm-node=", 0) == 0 || o.rfind("--slurm-allocation=", 0) == 0)
      continue;
    argv.push_back(o);
  }
  return argv;
}

ExitStatus run_bench_on_slurm(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  std::vector<std::string> copy = argv;
  for (std::string& a : copy)
    args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "servescope: error: bench --slurm: cannot run %s (Debian: slurm-client)\n",
                 args[0]);
    ::_exit(2);
  }
  if (pid < 0)
    return ExitStatus::kUsage;
  int status = 0;
  pid_t waited;
  while ((waited = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited != pid || !WIFEXITED(status))
    return ExitStatus::kUsage;
  return static_cast<ExitStatus>(WEXITSTATUS(status));
}

BenchClientPlace bench_client_place() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return {name, env_or("SLURM_JOB_ID"), env_or("SLURMD_NODENAME")};
}

}  // namespace servescope
