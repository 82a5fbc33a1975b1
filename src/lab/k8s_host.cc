#include "lab/k8s_host.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "core/file.h"
#include "core/text.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

// Five letters or digits for a resource name. Seeded from the clock and the process, not
// std::random_device: libstdc++'s calls arc4random, which glibc has only since 2.36, and the
// wheel's statically linked binary must run on glibc 2.34.
std::string random_token() {
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  static std::mt19937_64 engine(
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) ^
      (static_cast<std::uint64_t>(::getpid()) << 32));
  std::uniform_int_distribution<int> pick(0, 35);
  std::string t;
  for (int i = 0; i < 5; ++i)
    t += kAlphabet[pick(engine)];
  return t;
}

Status write_text(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out)
    return fail(fmt::format("cannot write {}", path));
  return ok_status();
}

// One experiment's Job or LeaderWorkerSet: its state is asked of kubectl at most once a poll
// interval; the leader's log is followed into the run folder once it runs.
class KubernetesJob final : public ServerProcess {
 public:
  KubernetesJob(KubernetesHost& host, std::string resource, std::string name, std::string run_dir)
      : host_(host),
        resource_(std::move(resource)),
        name_(std::move(name)),
        run_dir_(std::move(run_dir)) {}
  ~KubernetesJob() override {
    // The runner tears experiments down; this only keeps a forgotten one from running on. A
    // killed servescope never gets here, so --resume can re-attach to its objects.
    if (!signalled_ && !refresh(true).finished())
      (void)host_.kubectl({"delete", object(), "--ignore-not-found", "--wait=false"});
    if (follower_ && follower_->group_alive())
      follower_->signal_group(SIGTERM);
  }
  int pid() const override { return 0; }
  std::optional<int> exit_status() override {
    refresh(false);
    return exit_;
  }
  void signal_group(int signal) override {
    const K8sJobState& s = refresh(true);  // before the delete: a lost log stream is followed
    signalled_ = true;
    const K8sPod* leader = s.leader();
    if (signal == SIGKILL) {
      (void)host_.kubectl({"delete", object(), "--ignore-not-found", "--wait=false",
                           "--grace-period=0", "--force"});
      (void)host_.kubectl({"delete", "pods", "-l", fmt::format("{}={}", kK8sJobLabel, name_),
                           "--ignore-not-found", "--wait=false", "--grace-period=0", "--force"});
    } else {
      const int grace = leader != nullptr && leader->grace_s ? *leader->grace_s : 30;
      (void)host_.kubectl({"delete", object(), "--ignore-not-found", "--wait=false",
                           fmt::format("--grace-period={}", grace)});
    }
    refresh(true);
  }
  bool group_alive() override {
    const K8sJobState& s = refresh(false);
    return (s.object_exists && !s.object_deleting) || !s.pods.empty();
  }
  bool queued() override { return refresh(false).pending(); }
  Placement placement() override {
    const K8sJobState& s = refresh(false);
    const K8sPod* l = s.leader();
    return {"k8s", object(), l != nullptr ? l->node : "", s.state(), s.reason()};
  }
  std::string host() override {
    const K8sPod* l = refresh(false).leader();
    return l != nullptr ? l->ip : "";
  }
  bool cancelled_elsewhere() override {
    const K8sJobState& s = refresh(false);
    return !signalled_ && (!s.object_exists || s.object_deleting || (seen_pod_ && s.pods.empty()));
  }

 private:
  std::string object() const { return resource_ + "/" + name_; }

  const K8sJobState& refresh(bool now) {
    std::lock_guard lock(mutex_);
    const double t = host_.now();
    if (!now && asked_at_ > 0 && t - asked_at_ < host_.options().poll_s)
      return state_;
    auto s = host_.query(resource_, name_);
    if (s)
      state_ = std::move(*s);
    asked_at_ = t;
    seen_pod_ = seen_pod_ || !state_.pods.empty();
    observe();
    return state_;
  }

  // What a new state means for the log and the exit status; the first exit is kept (the
  // pods it came from are deleted by the teardown).
  void observe() {
    const K8sPod* l = state_.leader();
    // A follower that ended while the engine still runs lost its stream (the API server
    // closed it): follow again, from the start, a few times. The log is rewritten with the
    // same lines first, so a reader of stdout.log at an offset reads on where it was.
    const bool lost = follower_ && follower_->exit_status() && l != nullptr &&
                      l->phase == "Running" && !l->deleting && !state_.finished() && refollows_ < 5;
    if (lost) {
      follower_.reset();
      ++refollows_;
    }
    if (l != nullptr && !follower_ && !run_dir_.empty() && !l->fatal &&
        (l->phase == "Running" || l->phase == "Succeeded" || l->phase == "Failed")) {
      auto f = host_.follow_logs(l->name, run_dir_ + "/stdout.log", run_dir_ + "/kubectl-logs.err");
      if (f)
        follower_ = std::move(*f);
    }
    if (exit_ || !state_.finished())
      return;
    exit_ = state_.exit_status();
    if (run_dir_.empty())
      return;
    // Why the pod ended, in the run folder's stderr.log, as evidence beside the engine's log.
    std::ofstream note(run_dir_ + "/stderr.log", std::ios::binary | std::ios::app);
    if (l != nullptr)
      note << fmt::format("servescope: {} pod {} {}{} (exit status {})\n", object(), l->name,
                          to_lower(state_.state()), l->reason.empty() ? "" : ": " + l->reason,
                          *exit_);
    else
      note << fmt::format("servescope: {} is gone{}\n", object(),
                          signalled_ ? "" : " (deleted outside servescope)");
  }

  KubernetesHost& host_;
  std::string resource_;
  std::string name_;
  std::string run_dir_;
  std::mutex mutex_;
  K8sJobState state_{true, false, {}};
  double asked_at_ = 0;
  bool signalled_ = false;
  bool seen_pod_ = false;
  int refollows_ = 0;
  std::optional<int> exit_;
  std::unique_ptr<ServerProcess> follower_;
};

}  // namespace

std::string k8s_object_name(const std::string& experiment, const std::string& token) {
  std::string name;
  for (char c : experiment + "-" + token) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    name += (std::isalnum(static_cast<unsigned char>(l)) != 0) ? l : '-';
  }
  if (name.size() > 52)
    name = name.substr(name.size() - 52);
  while (!name.empty() && name.front() == '-')
    name.erase(0, 1);
  while (!name.empty() && name.back() == '-')
    name.pop_back();
  return name.empty() ? "servescope" : name;
}

KubernetesHost::KubernetesHost(KubernetesOptions options, std::string template_yaml,
                               std::string scratch_dir, std::string manifest_dir,
                               std::string run_token)
    : options_(std::move(options)),
      template_yaml_(std::move(template_yaml)),
      scratch_dir_(std::move(scratch_dir)),
      manifest_dir_(std::move(manifest_dir)),
      run_token_(run_token.empty() ? random_token() : std::move(run_token)),
      tools_(local_, scratch_dir_, "with a context for the cluster") {}

Result<ToolRun> KubernetesHost::kubectl(std::vector<std::string> args) {
  std::vector<std::string> argv = {"kubectl"};
  argv.insert(argv.end(), args.begin(), args.end());
  if (!options_.namespace_.empty()) {
    argv.push_back("-n");
    argv.push_back(options_.namespace_);
  }
  return tools_.run(argv, options_.command_timeout_s);
}

Result<K8sJobState> KubernetesHost::query(const std::string& resource, const std::string& name) {
  K8sJobState s;
  auto object = kubectl({"get", resource + "/" + name, "-o", "json", "--ignore-not-found"});
  if (!object)
    return object.error();
  if (object->status != 0)
    return fail(fmt::format("kubectl get {}/{}: {}", resource, name, trim(object->err)));
  s.object_exists = !trim(object->out).empty();
  if (s.object_exists) {
    const auto j = nlohmann::json::parse(object->out, nullptr, false);
    s.object_deleting = j.is_object() && j.contains("metadata") &&
                        j["metadata"].contains("deletionTimestamp") &&
                        !j["metadata"]["deletionTimestamp"].is_null();
  }
  auto pods =
      kubectl({"get", "pods", "-l", fmt::format("{}={}", kK8sJobLabel, name), "-o", "json"});
  if (!pods)
    return pods.error();
  if (pods->status != 0)
    return fail(fmt::format("kubectl get pods of {}: {}", name, trim(pods->err)));
  auto parsed = parse_k8s_pods(pods->out);
  if (!parsed)
    return parsed.error();
  s.pods = std::move(*parsed);
  return s;
}

Result<std::unique_ptr<ServerProcess>> KubernetesHost::follow_logs(const std::string& pod,
                                                                   const std::string& path,
                                                                   const std::string& err_path) {
  std::vector<std::string> argv = {"kubectl", "logs", "-f", pod, "-c", "engine"};
  if (!options_.namespace_.empty()) {
    argv.push_back("-n");
    argv.push_back(options_.namespace_);
  }
  return local_.launch(LaunchSpec{argv, {}, "", path, err_path, ""});
}

Result<std::unique_ptr<ServerProcess>> KubernetesHost::launch(const LaunchSpec& spec) {
  const std::string name =
      k8s_object_name(spec.name.empty() ? "servescope" : spec.name, run_token_);
  auto manifest = render_k8s_manifest(options_, K8sExperiment{name, spec}, template_yaml_);
  if (!manifest)
    return fail(
        options_.template_path.empty()
            ? manifest.message()
            : fmt::format("--k8s-template {}: {}", options_.template_path, manifest.message()));
  const std::string dir = fs::path(spec.stdout_path).parent_path().string();
  const std::string path = (dir.empty() ? "." : dir) + "/manifest.yaml";
  if (Status st = write_text(path, *manifest); !st)
    return st.error();
  if (!manifest_dir_.empty()) {
    if (Status st = write_text(manifest_dir_ + "/" + name + ".yaml", *manifest); !st)
      return st.error();
  }
  if (options_.dry_run)
    return fail(fmt::format("--dry-run: wrote {}; nothing was applied", path));
  auto run = kubectl({"apply", "-f", path});
  if (!run)
    return run.error();
  if (run->status != 0)
    return fail(fmt::format("kubectl apply -f {} refused it: {}", path, trim(run->err)));
  return std::unique_ptr<ServerProcess>(
      std::make_unique<KubernetesJob>(*this, k8s_resource(options_), name, dir));
}

Result<std::unique_ptr<ServerProcess>> KubernetesHost::attach(const std::string& job_id) {
  const auto slash = job_id.find('/');
  if (slash == std::string::npos)
    return fail(fmt::format("{} is not a Kubernetes object (job/NAME)", job_id));
  const std::string resource = job_id.substr(0, slash), name = job_id.substr(slash + 1);
  auto object = kubectl({"get", job_id, "-o", "json", "--ignore-not-found"});
  if (!object)
    return object.error();
  if (object->status != 0 || trim(object->out).empty())
    return fail(fmt::format("{} is gone", job_id));
  const auto j = nlohmann::json::parse(object->out, nullptr, false);
  std::string run_dir;
  if (j.is_object() && j.contains("metadata") && j["metadata"].contains("annotations") &&
      j["metadata"]["annotations"].contains(kK8sRunDirAnnotation))
    run_dir = j["metadata"]["annotations"][kK8sRunDirAnnotation].get<std::string>();
  auto s = query(resource, name);
  if (!s)
    return s.error();
  if (s->finished())
    return fail(fmt::format("{} is {}", job_id, to_lower(s->state())));
  return std::unique_ptr<ServerProcess>(
      std::make_unique<KubernetesJob>(*this, resource, name, run_dir));
}

}  // namespace servescope
