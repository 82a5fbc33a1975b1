// One experiment from launch to teardown: expand the template for the configuration, launch
// it in its own process group (stdout and stderr to the run folder), wait until it is ready
// (an HTTP URL answering 200, or a log line matching a pattern) or fails (it exits, prints
// the failure pattern, or the startup timeout passes), collect the evidence (the log's
// capacity figures through the engine's grammar, the status endpoints, bench runs), then
// tear the group down — SIGTERM, SIGKILL after the grace period — and wait for every process
// of the group to exit and for the port to be free. A failed start is a result, not an error.
#pragma once

#include <re2/re2.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engines/engine.h"
#include "lab/bench_probe.h"
#include "lab/experiment.h"
#include "lab/launch_template.h"
#include "lab/metric.h"
#include "lab/process_host.h"

namespace servescope {

struct RunnerOptions {
  LaunchTemplate launch;
  std::vector<std::pair<std::string, std::string>> env;  // values may use placeholders
  std::string cwd;
  std::string ready_url;           // may use {port}; "" when ready_log is set
  std::string ready_log;           // a regex a line of stdout or stderr matches once ready
  std::string fail_log;            // a regex a line matches when the start failed ("" = none)
  double startup_timeout_s = 900;  // from the moment it runs (after any queue wait)
  double queue_timeout_s = 3600;   // longest wait in a scheduler's queue (Slurm, Kubernetes)
  double grace_s = 20;             // after SIGTERM, before SIGKILL
  double settle_s = 0;             // watched after ready before measuring: a crash here counts
  double poll_s = 0.2;             // between readiness checks
  double port_wait_s = 30;         // for the port to be free after teardown
  MetricSpec metric;
  int repeat = 1;                         // bench measurements per launch
  const Engine* engine = nullptr;         // reads the log (nullptr: detected)
  std::vector<std::string> scrape_paths;  // GET after ready, saved in the run folder
  BenchProbe* bench = nullptr;            // kBench metrics
};

/// Where one experiment runs: its port and device list.
struct ExperimentSlot {
  int port = 0;
  std::string gpus;
};

class ExperimentRunner {
 public:
  /// `interrupted`, when set, is polled: the running server is torn down and the outcome is
  /// kInterrupted.
  ExperimentRunner(ProcessHost& host, RunnerOptions options,
                   const std::atomic<bool>* interrupted = nullptr);

  /// Fails on a bad --ready-log or --fail-log pattern.
  Status validate() const;

  /// Runs `record` (id, changes, flags and run_dir set; run_dir relative to `base_dir`) in
  /// `slot`, filling in everything else. With `attach_job`, re-attaches to that job of an
  /// earlier run instead of launching, when the launcher still sees it running or queued.
  void run(ExperimentRecord& record, const ExperimentSlot& slot, const std::string& base_dir,
           const std::string& attach_job = "");

  /// Called once a server is launched (its job id known), before it is ready: the journal
  /// records the job so a later --resume can re-attach to it.
  void set_on_launched(std::function<void(const ExperimentRecord&)> hook) {
    on_launched_ = std::move(hook);
  }

  const RunnerOptions& options() const { return options_; }

 private:
  struct Watch;
  bool interrupted() const { return interrupted_ != nullptr && interrupted_->load(); }
  void collect(ExperimentRecord& record, const std::string& dir, const std::string& base_url,
               ServerProcess& server);
  void tear_down(ExperimentRecord& record, ServerProcess& server);
  bool wait_in_queue(ExperimentRecord& record, ServerProcess& server);

  ProcessHost& host_;
  RunnerOptions options_;
  const std::atomic<bool>* interrupted_;
  std::unique_ptr<RE2> ready_re_;
  std::unique_ptr<RE2> fail_re_;
  std::function<void(const ExperimentRecord&)> on_launched_;
};

}  // namespace servescope
