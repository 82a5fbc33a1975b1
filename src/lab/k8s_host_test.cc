// The Kubernetes launcher against a fake kubectl (tests/k8s/bin/kubectl, first on PATH): it
// records its calls and answers from a scripted state; the "pod" is the twin on 127.0.0.1,
// started by the test, whose log the fake's `logs` prints and which the fake's `delete` stops.
// One experiment runs through the real ExperimentRunner: apply, queued while Pending, ready
// at the pod IP, the log followed into the run folder, delete with the grace period. Then a
// cancellation (the object vanishes), an engine that exits, a pod that outlives the grace
// period (forced delete), a failed apply, --resume's attach, and `servescope
// bisect --launcher k8s --dry-run` and its bad options through the binary.
#include "lab/k8s_host.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "lab/runner.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);)
    out.push_back(line);
  return out;
}

int count_prefix(const std::vector<std::string>& lines, const std::string& prefix) {
  int n = 0;
  for (const std::string& l : lines)
    n += l.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

const std::string kTwin = std::string(SERVESCOPE_BINARY) +
                          " twin --engine sglang@0.5.16 --gpu rtx-pro-6000 --gpus 4"
                          " --free-before-load 94.6 --free-after-load 64.6 --no-access-log"
                          " -- python -m sglang.launch_server --model-path"
                          " Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 --speculative-algorithm NEXTN";

class K8sHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("servescope-k8s-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    state_ = dir_ / "kubectl";
    fs::create_directories(state_);
    const std::string bin = std::string(SERVESCOPE_SOURCE_DIR) + "/tests/k8s/bin";
    ::setenv("PATH", (bin + ":" + std::getenv("PATH")).c_str(), 1);
    ::setenv("FAKE_KUBECTL_STATE", state_.c_str(), 1);
  }
  void TearDown() override {
    if (twin_)
      twin_->signal_group(SIGKILL);
    fs::remove_all(dir_);
  }
  void script(const std::string& file, const std::string& value) {
    std::ofstream(state_ / file) << value;
  }
  // The twin as the pod's server on 127.0.0.1:port, its output where the fake's `logs` reads.
  void start_twin(int port) {
    const std::string log = (state_ / "twin.log").string();
    auto t = local_.launch(LaunchSpec{{"sh", "-c",
                                       "exec " + kTwin + " --host 127.0.0.1 --port " +
                                           std::to_string(port) + " >" + log + " 2>&1"},
                                      {},
                                      "",
                                      (dir_ / "twin.out").string(),
                                      (dir_ / "twin.err").string(),
                                      ""});
    ASSERT_TRUE(t) << t.message();
    twin_ = std::move(*t);
    script("log", log);
    script("server_pid", std::to_string(twin_->pid()));
  }
  KubernetesOptions options() {
    KubernetesOptions o;
    o.image = "lmsysorg/sglang:v0.5.16";
    o.namespace_ = "llm";
    o.gpus = 4;
    o.poll_s = 0.05;
    o.command_timeout_s = 20;
    return o;
  }
  RunnerOptions runner_options() {
    RunnerOptions o;
    o.launch = *LaunchTemplate::parse(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
        "--speculative-algorithm NEXTN {flags} --host 0.0.0.0 --port {port}",
        false);
    o.ready_url = "http://{host}:{port}/health";
    o.startup_timeout_s = 60;
    o.queue_timeout_s = 60;
    o.grace_s = 10;
    o.poll_s = 0.05;
    o.port_wait_s = 1;
    o.metric = *parse_metric("max_running_requests", {"max_running_requests"});
    o.scrape_paths = {"/metrics"};
    return o;
  }
  ExperimentRecord run(KubernetesHost& host, int port) {
    ExperimentRunner runner(host, runner_options());
    ExperimentRecord r;
    r.id = 1;
    r.run_dir = "runs/001";
    runner.run(r, {port, ""}, dir_.string());
    return r;
  }
  std::vector<std::string> calls() { return lines_of(slurp(state_ / "calls.log")); }

  fs::path dir_, state_;
  PosixProcessHost local_;
  std::unique_ptr<ServerProcess> twin_;
};

TEST_F(K8sHostTest, AppliesWaitsInTheQueueReadsTheLogAndDeletes) {
  const int port = local_.pick_port();
  start_twin(port);
  script("pending_polls", "3");
  script("node", "gpu-node-7");
  KubernetesHost host(options(), "", (dir_ / ".launcher").string(), (dir_ / "manifests").string(),
                      "tok01");
  const ExperimentRecord r = run(host, port);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady) << r.failure;
  ASSERT_TRUE(r.value) << r.failure;
  EXPECT_EQ(*r.value, 48);  // the twin's log, read through kubectl logs
  EXPECT_EQ(r.launcher, "k8s");
  EXPECT_EQ(r.job_id, "job/servescope-001-tok01");
  EXPECT_EQ(r.node, "gpu-node-7");
  EXPECT_GT(r.queued_seconds, 0);
  EXPECT_TRUE(r.group_gone);
  EXPECT_FALSE(r.killed);  // gone after the first delete, no forced one
  EXPECT_TRUE(r.scraped.count("/metrics"));

  const auto c = calls();
  const std::string run_dir = (dir_ / "runs/001").string();
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front(), "apply -f " + run_dir + "/manifest.yaml -n llm");
  EXPECT_GE(count_prefix(c, "get pods -l servescope.io/job=servescope-001-tok01 -o json -n llm"),
            4);  // 3 Pending, then Running
  EXPECT_EQ(count_prefix(c, "logs -f servescope-001-tok01-pod -c engine -n llm"), 1);
  EXPECT_EQ(count_prefix(c,
                         "delete job/servescope-001-tok01 --ignore-not-found --wait=false "
                         "--grace-period=30 -n llm"),
            1);
  EXPECT_EQ(count_prefix(c, "delete pods"), 0);
  // The manifest applied is the one in the run folder and in --out/manifests.
  EXPECT_EQ(slurp(state_ / "applied-1.yaml"), slurp(run_dir + "/manifest.yaml"));
  EXPECT_EQ(slurp(dir_ / "manifests/servescope-001-tok01.yaml"), slurp(run_dir + "/manifest.yaml"));
  EXPECT_NE(slurp(run_dir + "/manifest.yaml").find("- --port\n"), std::string::npos);
  EXPECT_NE(slurp(run_dir + "/stdout.log").find("max_running_requests=48"), std::string::npos);
  // The fake's delete stopped the "pod".
  for (int i = 0; i < 100 && !twin_->exit_status(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(twin_->exit_status().has_value());
}

// Two nodes: a LeaderWorkerSet; the fake lists the worker (127.0.0.2) before the leader, and
// readiness, the node, the log and the delete go to the leader and the group.
TEST_F(K8sHostTest, ALeaderWorkerSetIsReachedThroughItsLeader) {
  const int port = local_.pick_port();
  start_twin(port);
  KubernetesOptions o = options();
  o.nodes = 2;
  KubernetesHost host(o, "", (dir_ / ".launcher").string(), "", "tok07");
  const ExperimentRecord r = run(host, port);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady) << r.failure;
  EXPECT_EQ(r.value, std::optional<double>(48));
  EXPECT_EQ(r.job_id, "leaderworkerset/servescope-001-tok07");
  EXPECT_EQ(r.node, "fake-node-1");
  const auto c = calls();
  EXPECT_EQ(count_prefix(c, "logs -f servescope-001-tok07-0 -c engine -n llm"), 1);
  EXPECT_EQ(count_prefix(c,
                         "delete leaderworkerset/servescope-001-tok07 --ignore-not-found "
                         "--wait=false --grace-period=30 -n llm"),
            1);
  EXPECT_NE(slurp(state_ / "applied-1.yaml").find("kind: LeaderWorkerSet"), std::string::npos);
}

TEST_F(K8sHostTest, ALostLogStreamIsFollowedAgain) {
  const int port = local_.pick_port();
  start_twin(port);
  script("drop_follow", "1");
  KubernetesHost host(options(), "", (dir_ / ".launcher").string(), "", "tok08");
  const ExperimentRecord r = run(host, port);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady) << r.failure;
  EXPECT_EQ(r.value, std::optional<double>(48));
  EXPECT_EQ(count_prefix(calls(), "logs -f servescope-001-tok08-pod"), 2);
}

TEST_F(K8sHostTest, AnObjectDeletedElsewhereIsACancellation) {
  script("vanish_at", "4");  // someone deletes the Job while the engine starts
  KubernetesHost host(options(), "", (dir_ / ".launcher").string(), "", "tok02");
  const ExperimentRecord r = run(host, local_.pick_port());  // nothing listens: never ready
  EXPECT_EQ(r.outcome, ExperimentOutcome::kCancelled) << r.failure;
  EXPECT_NE(r.failure.find("k8s job job/servescope-001-tok02"), std::string::npos) << r.failure;
  EXPECT_NE(slurp(dir_ / "runs/001/stderr.log").find("deleted outside servescope"),
            std::string::npos);
}

TEST_F(K8sHostTest, AnEngineThatExitsIsAFailedStartWithItsStatus) {
  script("exit_code", "1");
  script("log", (state_ / "engine.log").string());
  std::ofstream(state_ / "engine.log") << "ValueError: FlashInfer allreduce fusion needs SM90\n";
  KubernetesHost host(options(), "", (dir_ / ".launcher").string(), "", "tok03");
  const ExperimentRecord r = run(host, local_.pick_port());
  EXPECT_EQ(r.outcome, ExperimentOutcome::kFailedStart);
  EXPECT_NE(r.failure.find("exited with status 1"), std::string::npos) << r.failure;
  // The engine's last lines (kubectl logs) and why the pod ended are the evidence.
  std::string evidence;
  for (const EvidenceLine& e : r.evidence)
    evidence += e.file + ": " + e.text + "\n";
  EXPECT_NE(evidence.find("stdout.log: ValueError: FlashInfer"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("servescope-001-tok03-pod failed: Error (exit status 1)"),
            std::string::npos)
      << evidence;
  // The finished Job is deleted all the same.
  EXPECT_EQ(count_prefix(calls(), "delete job/servescope-001-tok03"), 1);
}

TEST_F(K8sHostTest, APodThatOutlivesTheGracePeriodIsForceDeleted) {
  const int port = local_.pick_port();
  start_twin(port);
  script("stubborn", "1");
  KubernetesHost host(options(), "", (dir_ / ".launcher").string(), "", "tok06");
  RunnerOptions o = runner_options();
  o.grace_s = 0.3;
  ExperimentRunner runner(host, o);
  ExperimentRecord r;
  r.id = 1;
  r.run_dir = "runs/001";
  runner.run(r, {port, ""}, dir_.string());
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady) << r.failure;
  EXPECT_TRUE(r.killed);
  EXPECT_TRUE(r.group_gone);
  const auto c = calls();
  EXPECT_EQ(count_prefix(c,
                         "delete job/servescope-001-tok06 --ignore-not-found --wait=false "
                         "--grace-period=30 -n llm"),
            1);
  EXPECT_EQ(count_prefix(c,
                         "delete pods -l servescope.io/job=servescope-001-tok06 "
                         "--ignore-not-found --wait=false --grace-period=0 --force -n llm"),
            1);
}

TEST_F(K8sHostTest, ARefusedApplyIsAFailedStartNamingKubectl) {
  script("apply_error", "error: namespaces \"llm\" not found");
  KubernetesHost host(options(), "", (dir_ / ".launcher").string(), "", "tok04");
  const ExperimentRecord r = run(host, local_.pick_port());
  EXPECT_EQ(r.outcome, ExperimentOutcome::kFailedStart);
  EXPECT_NE(r.failure.find("kubectl apply -f"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("namespaces \"llm\" not found"), std::string::npos) << r.failure;
}

TEST_F(K8sHostTest, AttachFindsARunningObjectAndRefusesAGoneOne) {
  KubernetesHost host(options(), "", (dir_ / ".launcher").string(), "", "tok05");
  script("object", "servescope-004-tok05");
  script("run_dir", (dir_ / "runs/004").string());
  fs::create_directories(dir_ / "runs/004");
  auto attached = host.attach("job/servescope-004-tok05");
  ASSERT_TRUE(attached) << attached.message();
  EXPECT_FALSE((*attached)->queued());
  EXPECT_EQ((*attached)->host(), "127.0.0.1");
  EXPECT_EQ((*attached)->placement().job_id, "job/servescope-004-tok05");
  (*attached)->signal_group(SIGTERM);
  EXPECT_FALSE((*attached)->group_alive());
  EXPECT_FALSE(host.attach("job/servescope-004-tok05"));  // deleted now
  EXPECT_FALSE(host.attach("servescope-004"));
}

TEST(K8sObjectName, IsADns1123Label) {
  EXPECT_EQ(k8s_object_name("servescope-003", "k3x9q"), "servescope-003-k3x9q");
  EXPECT_EQ(k8s_object_name("Servescope_003", "AB"), "servescope-003-ab");
  EXPECT_LE(k8s_object_name(std::string(80, 'x'), "k3x9q").size(), 52U);
}

// `servescope bisect` as a child with the fake kubectl first on PATH: exit status, stderr.
struct Cli {
  int status = -1;
  std::string err;
};
Cli bisect(const fs::path& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SERVESCOPE_BINARY, "bisect"};
  argv.insert(argv.end(), args.begin(), args.end());
  const fs::path err = dir / "bisect.err";
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen((dir / "bisect.out").c_str(), "w", stdout);
    std::freopen(err.c_str(), "w", stderr);
    std::vector<char*> a;
    for (std::string& s : argv)
      a.push_back(s.data());
    a.push_back(nullptr);
    ::execv(a[0], a.data());
    std::_Exit(127);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), slurp(err)};
}

TEST_F(K8sHostTest, BisectDryRunWritesTheEndpointsManifestsAndAppliesNothing) {
  const fs::path out = dir_ / "out";
  const Cli c = bisect(dir_, {"--launcher", "k8s", "--k8s-image", "lmsysorg/sglang:v0.5.16",
                              "--k8s-gpus", "4", "--k8s-namespace", "llm", "--dry-run", "--launch",
                              kTwin + " {flags} --host 0.0.0.0 --port {port}", "--vary",
                              "--max-mamba-cache-size 100", "--vary", "--enable-metrics",
                              "--metric", "max_running_requests", "--out", out.string()});
  EXPECT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.err.find("nothing was applied and no experiment ran"), std::string::npos) << c.err;
  const std::string good = slurp(out / "runs/001/manifest.yaml");
  const std::string bad = slurp(out / "runs/002/manifest.yaml");
  EXPECT_NE(good.find("kind: Job"), std::string::npos) << good;
  EXPECT_NE(good.find("nvidia.com/gpu: 4"), std::string::npos) << good;
  EXPECT_EQ(good.find("--max-mamba-cache-size"), std::string::npos);
  EXPECT_NE(bad.find("- \"100\""), std::string::npos) << bad;
  int copies = 0;
  for (const auto& e : fs::directory_iterator(out / "manifests"))
    copies += e.path().extension() == ".yaml" ? 1 : 0;
  EXPECT_EQ(copies, 2);
  EXPECT_FALSE(fs::exists(out / "runs/003"));
  EXPECT_FALSE(fs::exists(out / "journal.jsonl"));  // a real run can use the same --out
  EXPECT_FALSE(fs::exists(state_ / "calls.log"));   // kubectl never called
}

TEST_F(K8sHostTest, BadKubernetesOptionsAreOneLineAndExit2) {
  const std::vector<std::string> base = {
      "--launch", kTwin + " {flags} --port {port}", "--vary", "--enable-metrics",
      "--metric", "max_running_requests",           "--out",  (dir_ / "out").string()};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), base.begin(), base.end());
    return bisect(dir_, extra);
  };
  const std::string tmpl = (dir_ / "pod.yaml").string();
  std::ofstream(tmpl) << "kind: Deployment\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--launcher", "k8s"}, "--k8s-image"},
      {{"--dry-run"}, "--dry-run"},
      {{"--k8s-image", "x"}, "--launcher k8s"},
      {{"--launcher", "k8s", "--k8s-image", "x", "--k8s-gpus", "100"}, "--k8s-gpus 100"},
      {{"--launcher", "k8s", "--k8s-image", "x", "--k8s-namespace", "Bad_NS"}, "--k8s-namespace"},
      {{"--launcher", "k8s", "--k8s-image", "x", "--k8s-template", "/nonexistent.yaml"},
       "--k8s-template /nonexistent.yaml"},
      {{"--launcher", "k8s", "--k8s-image", "x", "--k8s-template", tmpl}, "Deployment"},
      {{"--launcher", "kube"}, "local, slurm or k8s"},
  };
  for (const auto& [extra, needle] : cases) {
    const Cli c = with(extra);
    EXPECT_EQ(c.status, 2) << extra.front() << ": " << c.err;
    EXPECT_NE(c.err.find(needle), std::string::npos) << c.err;
    EXPECT_EQ(lines_of(c.err).size(), 1U) << c.err;
  }
  EXPECT_FALSE(fs::exists(state_ / "calls.log"));
}

}  // namespace
}  // namespace servescope
