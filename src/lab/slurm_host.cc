#include "lab/slurm_host.h"

#include <fmt/format.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "core/file.h"
#include "core/text.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

std::string signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "TERM";
    case SIGKILL:
      return "KILL";
    case SIGINT:
      return "INT";
    default:
      return std::to_string(signal);
  }
}

// One sbatch job: its state is asked of scontrol at most once a poll interval.
class SlurmJob final : public ServerProcess {
 public:
  SlurmJob(SlurmHost& host, std::string job_id) : host_(host), job_id_(std::move(job_id)) {}
  ~SlurmJob() override {
    // The runner tears jobs down; this only keeps a forgotten one from running on. A killed
    // servescope never gets here, so --resume can re-attach to its jobs.
    if (!signalled_ && !refresh(true).finished())
      (void)host_.run_tool({"scancel", job_id_});
  }
  int pid() const override { return static_cast<int>(parse_int(job_id_).value_or(0)); }
  std::optional<int> exit_status() override {
    const SlurmJobState& s = refresh(false);
    if (!s.finished())
      return std::nullopt;
    return s.exit_status ? s.exit_status : std::optional<int>(255);  // forgotten by scontrol
  }
  void signal_group(int signal) override {
    signalled_ = true;
    const SlurmJobState& s = refresh(true);
    if (s.finished())
      return;
    if (s.pending() || signal == SIGKILL) {
      // A pending job has no process to signal; SIGKILL: make sure Slurm ends the job too.
      if (!s.pending())
        (void)host_.run_tool({"scancel", "--full", "--signal=KILL", job_id_});
      (void)host_.run_tool({"scancel", job_id_});
    } else {
      (void)host_.run_tool({"scancel", "--full", "--signal=" + signal_name(signal), job_id_});
    }
    refresh(true);
  }
  bool group_alive() override { return !refresh(false).finished(); }
  bool queued() override { return refresh(false).pending(); }
  Placement placement() override {
    const SlurmJobState& s = refresh(false);
    return {"slurm", job_id_, s.node, s.state, s.reason, s.queued_seconds};
  }
  std::string host() override { return refresh(false).node; }
  bool cancelled_elsewhere() override { return !signalled_ && refresh(false).state == "CANCELLED"; }

 private:
  const SlurmJobState& refresh(bool now) {
    std::lock_guard lock(mutex_);
    const double t = host_.now();
    if (!now && t - asked_at_ < host_.options().poll_s && asked_at_ > 0)
      return state_;
    if (state_.finished() && asked_at_ > 0)
      return state_;  // a finished job does not come back
    auto s = host_.query(job_id_);
    if (s)
      state_ = *s;
    asked_at_ = t;
    return state_;
  }

  SlurmHost& host_;
  std::string job_id_;
  std::mutex mutex_;
  SlurmJobState state_{true, "PENDING", "", "", std::nullopt};
  double asked_at_ = 0;
  bool signalled_ = false;
};

// An srun step inside an allocation: the srun client runs here, in its own process group,
// and forwards our signals to the step; the node comes from the allocation.
class SlurmStep final : public ServerProcess {
 public:
  SlurmStep(std::unique_ptr<ServerProcess> srun, std::string allocation, std::string node)
      : srun_(std::move(srun)), allocation_(std::move(allocation)), node_(std::move(node)) {}
  int pid() const override { return srun_->pid(); }
  std::optional<int> exit_status() override { return srun_->exit_status(); }
  void signal_group(int signal) override { srun_->signal_group(signal); }
  bool group_alive() override { return srun_->group_alive(); }
  Placement placement() override {
    return {"slurm", allocation_, node_, exit_status() ? "ENDED" : "RUNNING", "", -1};
  }
  std::string host() override { return node_; }

 private:
  std::unique_ptr<ServerProcess> srun_;
  std::string allocation_;
  std::string node_;
};

}  // namespace

SlurmHost::SlurmHost(SlurmOptions options, std::string scratch_dir)
    : options_(std::move(options)),
      scratch_dir_(std::move(scratch_dir)),
      tools_(local_, scratch_dir_, "Debian: slurm-client") {}

Result<ToolRun> SlurmHost::run_tool(const std::vector<std::string>& argv) {
  return tools_.run(argv, options_.command_timeout_s);
}

Result<SlurmJobState> SlurmHost::query(const std::string& job_id) {
  auto run = run_tool({"scontrol", "show", "job", "-o", job_id});
  if (!run)
    return run.error();
  if (run->status != 0) {
    // "slurm_load_jobs error: Invalid job id specified": the job ended MinJobAge ago.
    if (contains(run->err, "Invalid job id"))
      return SlurmJobState{};
    return fail(fmt::format("scontrol show job {}: {}", job_id, trim(run->err)));
  }
  for (std::string_view line : split(run->out, '\n')) {
    if (!trim(line).empty())
      return slurm_job_state(parse_scontrol_record(line));
  }
  return SlurmJobState{};
}

Result<std::unique_ptr<ServerProcess>> SlurmHost::launch(const LaunchSpec& spec) {
  if (!options_.allocation.empty())
    return launch_step(spec);
  const std::string dir = fs::path(spec.stdout_path).parent_path().string();
  const std::string script_path = (dir.empty() ? "." : dir) + "/job.sbatch";
  {
    std::ofstream script(script_path, std::ios::binary | std::ios::trunc);
    script << slurm_batch_script(options_, spec);
    if (!script)
      return fail(fmt::format("cannot write {}", script_path));
  }
  auto run = run_tool({"sbatch", "--parsable", script_path});
  if (!run)
    return run.error();
  if (run->status != 0)
    return fail(fmt::format("sbatch {} refused the job: {}", script_path, trim(run->err)));
  auto id = parse_sbatch_job_id(run->out);
  if (!id)
    return id.error();
  return std::unique_ptr<ServerProcess>(std::make_unique<SlurmJob>(*this, *id));
}

Result<std::unique_ptr<ServerProcess>> SlurmHost::attach(const std::string& job_id) {
  if (!options_.allocation.empty())
    return fail("an srun step inside an allocation ends with the servescope that started it");
  auto s = query(job_id);
  if (!s)
    return s.error();
  if (s->finished())
    return fail(fmt::format("job {} is {}", job_id, s->exists ? s->state : "gone"));
  return std::unique_ptr<ServerProcess>(std::make_unique<SlurmJob>(*this, job_id));
}

Result<std::unique_ptr<ServerProcess>> SlurmHost::launch_step(const LaunchSpec& spec) {
  auto alloc = query(options_.allocation);
  if (!alloc)
    return alloc.error();
  if (!alloc->exists || alloc->state != "RUNNING")
    return fail(fmt::format("--slurm-allocation {}: the job is {}, not RUNNING",
                            options_.allocation, alloc->exists ? alloc->state : "gone"));
  std::vector<std::string> argv = {"srun",
                                   "--jobid=" + options_.allocation,
                                   fmt::format("--nodes={}", options_.nodes),
                                   "--ntasks-per-node=1",
                                   "--job-name=" + (spec.name.empty() ? "servescope" : spec.name),
                                   "--kill-on-bad-exit=1"};
  if (options_.gpus > 0)
    argv.push_back(fmt::format("--gres=gpu:{}", options_.gpus));
  if (!spec.cwd.empty())
    argv.push_back("--chdir=" + spec.cwd);
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
  LaunchSpec step = spec;
  step.argv = argv;
  auto srun = local_.launch(step);
  if (!srun)
    return srun.error();
  return std::unique_ptr<ServerProcess>(
      std::make_unique<SlurmStep>(std::move(*srun), options_.allocation, alloc->node));
}

}  // namespace servescope
