// The experiment runner against real processes (PosixProcessHost): bash scripts play servers
// that crash after they are ready, never become ready, ignore SIGTERM (and leave a child that
// ignores it too), or cannot be executed. Each test checks the process group is gone after
// the teardown: no orphan outlives an experiment. Every wait is bounded by the runner's own
// timeouts (a few seconds).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/posix_process_host.h"
#include "lab/runner.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

bool process_exists(pid_t pid) {
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

class ProcessFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("servescope-faults-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A bash "server"; {flags} go to the script as arguments.
  std::string script(const std::string& body) {
    const std::string path = (dir_ / "server.sh").string();
    std::ofstream(path) << "#!/bin/bash\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }

  RunnerOptions options(const std::string& server) {
    RunnerOptions o;
    o.launch = *LaunchTemplate::parse(server + " {flags} {run_dir}", false);
    o.ready_log = "^READY$";
    o.startup_timeout_s = 5;
    o.grace_s = 1;
    o.poll_s = 0.05;
    o.port_wait_s = 1;
    o.metric = *parse_metric("startup", {});
    return o;
  }

  ExperimentRecord run(const RunnerOptions& o) {
    ExperimentRunner runner(host_, o);
    EXPECT_TRUE(runner.validate());
    ExperimentRecord r;
    r.id = 1;
    r.flags = {"--flag"};
    r.run_dir = "runs/001";
    runner.run(r, {0, ""}, dir_.string());
    return r;
  }

  std::vector<pid_t> pids() {
    std::ifstream in(dir_ / "runs/001/pids");
    std::vector<pid_t> out;
    pid_t p;
    while (in >> p)
      out.push_back(p);
    return out;
  }

  PosixProcessHost host_;
  fs::path dir_;
};

TEST_F(ProcessFaultsTest, AServerThatIgnoresSigtermIsKilledWithItsWholeGroup) {
  // The server and a child both ignore SIGTERM; only SIGKILL to the group ends them.
  const auto server = script(R"(trap '' TERM
(trap '' TERM; exec sleep 300) &
echo $$ $! > "$2/pids"
echo READY
while true; do sleep 0.1; done)");
  const ExperimentRecord r = run(options(server));
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady) << r.failure;
  EXPECT_TRUE(r.killed);
  EXPECT_TRUE(r.group_gone);
  EXPECT_EQ(r.exit_status, 128 + SIGKILL);
  const auto p = pids();
  ASSERT_EQ(p.size(), 2u);
  for (pid_t pid : p) {
    EXPECT_FALSE(process_exists(pid)) << pid;
    EXPECT_NE(::kill(-p[0], 0), 0);  // the group
  }
  EXPECT_GE(r.stopped_at - r.ready_at, 1.0);  // the grace period passed first
}

TEST_F(ProcessFaultsTest, AServerThatStopsOnSigtermIsNotKilled) {
  const auto server = script(R"(echo $$ > "$2/pids"
echo READY
exec sleep 300)");
  const ExperimentRecord r = run(options(server));
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady);
  EXPECT_FALSE(r.killed);
  EXPECT_EQ(r.exit_status, 128 + SIGTERM);
  EXPECT_TRUE(r.group_gone);
}

TEST_F(ProcessFaultsTest, AServerThatCrashesAfterReadyIsACrash) {
  const auto server = script(R"(echo $$ > "$2/pids"
echo READY
sleep 0.3
echo "Segmentation fault in the scheduler" >&2
exit 139)");
  RunnerOptions o = options(server);
  o.settle_s = 3;
  const ExperimentRecord r = run(o);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kCrashed);
  EXPECT_EQ(r.exit_status, 139);
  EXPECT_FALSE(r.value);
  bool shows = false;
  for (const EvidenceLine& e : r.evidence)
    shows = shows || e.text.find("Segmentation fault") != std::string::npos;
  EXPECT_TRUE(shows);
  EXPECT_TRUE(r.group_gone);
}

TEST_F(ProcessFaultsTest, AServerThatNeverBecomesReadyTimesOutAndIsTornDown) {
  const auto server = script(R"(echo $$ > "$2/pids"
echo "loading weights"
exec sleep 300)");
  RunnerOptions o = options(server);
  o.startup_timeout_s = 1;
  const ExperimentRecord r = run(o);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kTimeout);
  EXPECT_NE(r.failure.find("not ready after 1 s"), std::string::npos) << r.failure;
  EXPECT_TRUE(r.group_gone);
  for (pid_t pid : pids())
    EXPECT_FALSE(process_exists(pid));
}

TEST_F(ProcessFaultsTest, AServerThatExitsAtStartupIsAFailedStart) {
  const auto server = script(R"(echo "ValueError: this GPU cannot do that" >&2
exit 1)");
  const ExperimentRecord r = run(options(server));
  EXPECT_EQ(r.outcome, ExperimentOutcome::kFailedStart);
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.value, 0);  // the startup metric
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_NE(r.evidence.back().text.find("ValueError"), std::string::npos);
}

TEST_F(ProcessFaultsTest, AProgramThatDoesNotExistIsAFailedStartNotACrashOfTheTool) {
  const ExperimentRecord r = run(options("/nonexistent/servescope-no-such-server"));
  EXPECT_EQ(r.outcome, ExperimentOutcome::kFailedStart);
  EXPECT_EQ(r.exit_status, 127);
}

TEST_F(ProcessFaultsTest, EnvironmentAndWorkingDirectoryReachTheServer) {
  const auto server = script(R"sh(echo "$SERVESCOPE_TEST_VALUE $(pwd)" > "$2/seen"
echo READY
exec sleep 300)sh");
  RunnerOptions o = options(server);
  o.env = {{"SERVESCOPE_TEST_VALUE", "run-{run_dir}"}};
  o.cwd = dir_.string();
  const ExperimentRecord r = run(o);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady);
  std::ifstream in(dir_ / "runs/001/seen");
  std::string seen;
  std::getline(in, seen);
  EXPECT_EQ(seen, "run-" + (dir_ / "runs/001").string() + " " + dir_.string());
}

TEST(PosixProcessHostTest, ParsesHttpUrls) {
  auto u = parse_http_url("http://127.0.0.1:30000/health");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 30000);
  EXPECT_EQ(u->target, "/health");
  auto v = parse_http_url("http://[::1]:8000");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->host, "::1");
  EXPECT_EQ(v->target, "/");
  EXPECT_FALSE(parse_http_url("https://x/"));
  EXPECT_FALSE(parse_http_url("http://host:99999/"));
}

TEST(PosixProcessHostTest, PickedPortsAreFreeAndDistinct) {
  PosixProcessHost host;
  const int a = host.pick_port(), b = host.pick_port();
  EXPECT_GT(a, 0);
  EXPECT_NE(a, b);
  EXPECT_TRUE(host.port_free(a));
  const auto reply = host.http_get("http://127.0.0.1:" + std::to_string(a) + "/health",
                                   std::chrono::milliseconds(500));
  EXPECT_EQ(reply.status, 0);
  EXPECT_FALSE(reply.error.empty());
}

}  // namespace
}  // namespace servescope
