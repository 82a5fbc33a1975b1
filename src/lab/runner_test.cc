#include "lab/runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "lab/fake_process_host.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

constexpr char kCapacityLog[] =
    "[2026-07-20 10:00:00 TP0] max_total_num_tokens=2079216, chunked_prefill_size=8192, "
    "max_prefill_tokens=16384, max_running_requests=48, context_len=262144, "
    "available_gpu_mem=12.50 GB\n";
constexpr char kReadyLine[] = "[2026-07-20 10:00:05] The server is fired up and ready to roll!\n";

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("servescope-runner-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  RunnerOptions options(const std::string& metric = "max_running_requests") {
    RunnerOptions o;
    o.launch = *LaunchTemplate::parse("server {flags} --port {port}", false);
    o.ready_url = "http://127.0.0.1:{port}/health";
    o.startup_timeout_s = 60;
    o.grace_s = 5;
    o.poll_s = 0.5;
    o.port_wait_s = 5;
    o.metric = *parse_metric(metric, {"max_running_requests", "max_total_num_tokens"});
    return o;
  }

  ExperimentRecord run(RunnerOptions o, const std::atomic<bool>* stop = nullptr) {
    ExperimentRunner runner(host_, std::move(o), stop);
    EXPECT_TRUE(runner.validate());
    ExperimentRecord r;
    r.id = 1;
    r.flags = {"--disable-radix-cache"};
    r.run_dir = "runs/001";
    runner.run(r, {31000, "0,1"}, dir_.string());
    return r;
  }

  FakeProcessHost host_;
  fs::path dir_;
};

TEST_F(RunnerTest, ReadsTheMetricFromTheLogOnceTheUrlAnswers) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.log = kCapacityLog;
    s.ready_after = 3;
    return s;
  };
  const ExperimentRecord r = run(options());
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady) << r.failure;
  ASSERT_TRUE(r.value);
  EXPECT_EQ(*r.value, 48);
  EXPECT_EQ(r.figures.at("max_total_num_tokens"), 2079216);
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(r.evidence[0].line, 1u);
  EXPECT_EQ(r.evidence[0].file, "stderr.log");
  EXPECT_EQ(r.argv,
            (std::vector<std::string>{"server", "--disable-radix-cache", "--port", "31000"}));
  EXPECT_NEAR(r.startup_seconds(), 3, 0.51);
  EXPECT_FALSE(r.killed);
  EXPECT_TRUE(r.group_gone);
  EXPECT_TRUE(r.port_released);
  ASSERT_EQ(host_.servers().size(), 1u);
  EXPECT_EQ(host_.servers()[0]->signals, std::vector<int>{SIGTERM});
}

TEST_F(RunnerTest, AReadyLogLineCountsAsReady) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.log = kCapacityLog;
    s.ready_line = kReadyLine;
    s.ready_after = 2;
    return s;
  };
  RunnerOptions o = options("startup");
  o.ready_url.clear();
  o.ready_log = "fired up and ready";
  const ExperimentRecord r = run(o);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady);
  EXPECT_EQ(r.value, 1);
}

TEST_F(RunnerTest, ExitingBeforeReadyIsAFailedStartWithTheEnginesErrorLine) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.ready_after = -1;
    s.exit_after = 2;
    s.exit_code = 1;
    s.exit_log =
        "[2026-07-20 10:00:01] Scheduler hit an exception: Traceback (most recent call last):\n"
        "ValueError: flashinfer allreduce fusion is not supported on SM120\n";
    return s;
  };
  const ExperimentRecord r = run(options());
  EXPECT_EQ(r.outcome, ExperimentOutcome::kFailedStart);
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_FALSE(r.value);
  EXPECT_NE(r.failure.find("exited with status 1"), std::string::npos) << r.failure;
  bool shows_error = false;
  for (const EvidenceLine& e : r.evidence)
    shows_error = shows_error || e.text.find("ValueError") != std::string::npos;
  EXPECT_TRUE(shows_error);
}

TEST_F(RunnerTest, TheStartupMetricRecordsAFailedStartAsZero) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.ready_after = -1;
    s.exit_after = 1;
    return s;
  };
  const ExperimentRecord r = run(options("startup"));
  EXPECT_EQ(r.outcome, ExperimentOutcome::kFailedStart);
  EXPECT_EQ(r.value, 0);
}

TEST_F(RunnerTest, AFailurePatternEndsTheWaitAndTearsDown) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.log = "loading\nRuntimeError: NCCL error\nstill hanging\n";
    s.ready_after = -1;
    return s;
  };
  RunnerOptions o = options();
  o.fail_log = "NCCL error";
  const ExperimentRecord r = run(o);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kFailedStart);
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(r.evidence[0].line, 2u);
  EXPECT_TRUE(r.group_gone);
}

TEST_F(RunnerTest, NeverReadyIsATimeoutAfterTheStartupTimeout) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.ready_after = -1;
    return s;
  };
  RunnerOptions o = options();
  o.startup_timeout_s = 30;
  const double t0 = host_.now();
  const ExperimentRecord r = run(o);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kTimeout);
  EXPECT_GE(host_.now() - t0, 30);
  EXPECT_LT(host_.now() - t0, 31);
  EXPECT_TRUE(r.group_gone);
}

TEST_F(RunnerTest, ACrashWhileSettlingIsACrash) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.log = kCapacityLog;
    s.ready_after = 1;
    s.exit_after = 3;
    s.exit_code = 139;
    return s;
  };
  RunnerOptions o = options();
  o.settle_s = 5;
  const ExperimentRecord r = run(o);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kCrashed);
  EXPECT_FALSE(r.value);
  EXPECT_EQ(r.exit_status, 139);
  EXPECT_NE(r.failure.find("after it was ready"), std::string::npos);
}

TEST_F(RunnerTest, AServerIgnoringSigtermGetsSigkillAfterTheGracePeriod) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.log = kCapacityLog;
    s.ready_after = 1;
    s.ignores_term = true;
    return s;
  };
  RunnerOptions o = options();
  o.grace_s = 7;
  const ExperimentRecord r = run(o);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady);
  EXPECT_TRUE(r.killed);
  EXPECT_TRUE(r.group_gone);
  EXPECT_EQ(host_.servers()[0]->signals, (std::vector<int>{SIGTERM, SIGKILL}));
  EXPECT_NEAR(r.stopped_at - r.ready_at, 7, 0.1);
}

TEST_F(RunnerTest, AnInterruptTearsTheServerDown) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.ready_after = -1;
    return s;
  };
  std::atomic<bool> stop{true};
  const ExperimentRecord r = run(options(), &stop);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kInterrupted);
  EXPECT_TRUE(r.group_gone);
  EXPECT_EQ(host_.servers()[0]->signals, std::vector<int>{SIGTERM});
}

TEST_F(RunnerTest, AJobStuckInTheQueueIsCancelledAtTheQueueTimeout) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.log = kCapacityLog;
    s.queued_for = -1;  // never leaves the queue
    return s;
  };
  RunnerOptions o = options();
  o.queue_timeout_s = 30;
  const ExperimentRecord r = run(o);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kQueueTimeout);
  EXPECT_TRUE(inconclusive(r.outcome));
  EXPECT_NE(r.failure.find("past --queue-timeout 30 s"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("reason Resources"), std::string::npos) << r.failure;
  EXPECT_GE(r.queued_seconds, 30);
  EXPECT_LT(r.queued_seconds, 31);
  ASSERT_EQ(host_.servers().size(), 1u);
  EXPECT_FALSE(host_.servers()[0]->signals.empty());  // cancelled, not left queued
  EXPECT_FALSE(r.value);
}

TEST_F(RunnerTest, TheStartupTimeoutCountsFromLeavingTheQueue) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.log = kCapacityLog;
    s.queued_for = 50;
    s.ready_after = 70;  // 20 s after it left the queue: within a 60 s startup timeout
    return s;
  };
  const ExperimentRecord r = run(options());
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady) << r.failure;
  EXPECT_EQ(r.value, 48);
  EXPECT_GE(r.queued_seconds, 50);
  EXPECT_EQ(r.launcher, "fake-scheduler");
  EXPECT_EQ(r.node, "node1");
  EXPECT_FALSE(r.job_id.empty());
}

TEST_F(RunnerTest, ACancelByAnotherHandIsReportedAsSuchNotAsAFailedStart) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.log = kCapacityLog;
    s.ready_after = 100;
    s.cancelled_after = 10;
    return s;
  };
  const ExperimentRecord r = run(options());
  EXPECT_EQ(r.outcome, ExperimentOutcome::kCancelled);
  EXPECT_NE(r.failure.find("cancelled outside servescope"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("CANCELLED"), std::string::npos) << r.failure;
}

TEST_F(RunnerTest, TheLaunchHookSeesTheJobBeforeItIsReady) {
  host_.script = [](const LaunchSpec&) {
    FakeServerScript s;
    s.log = kCapacityLog;
    s.queued_for = 5;
    return s;
  };
  ExperimentRunner runner(host_, options());
  std::vector<std::string> seen;
  runner.set_on_launched([&](const ExperimentRecord& r) {
    seen.push_back(r.job_id);
    EXPECT_EQ(r.ready_at, 0);
  });
  ExperimentRecord r;
  r.id = 1;
  r.run_dir = "runs/001";
  runner.run(r, {31000, ""}, dir_.string());
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], r.job_id);
  EXPECT_EQ(r.outcome, ExperimentOutcome::kReady);
}

TEST_F(RunnerTest, BadPatternsAreRejectedBeforeAnyLaunch) {
  RunnerOptions o = options();
  o.ready_url.clear();
  o.ready_log = "ready(";
  ExperimentRunner runner(host_, o);
  auto st = runner.validate();
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("--ready-log"), std::string::npos);
  EXPECT_TRUE(host_.servers().empty());
}

}  // namespace
}  // namespace servescope
