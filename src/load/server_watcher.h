// The server's own view during a point: every interval it reads the engine's metrics path
// (running and waiting gauges, the queue-time histogram) and its loads endpoint, if the
// engine has one, over its own connections on the run's event loop. From the samples: the
// most the server ran, the most that waited, the running limit it enforced (the most it ran
// while others waited), when queueing began and how many were in flight then, and the median
// queue time from the server's histogram. Names come from the engine's ClientProfile.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engines/client_profile.h"
#include "load/event_loop.h"
#include "load/prometheus_text.h"
#include "load/runner.h"
#include "load/transport.h"
#include "load/url.h"
#include "report/bench_report.h"

namespace servescope {

/// The profile whose running gauge `metrics_text` carries, or nullptr.
const ClientProfile* detect_client_profile(std::string_view metrics_text);
/// The profile of the engine named `name`, or nullptr.
const ClientProfile* client_profile_named(std::string_view name);

/// Reads one scrape: fills running/queued (metrics) of `sample`.
void read_metrics_sample(const ClientProfile& profile, std::string_view text, ServerSample& sample);
/// Reads a loads body: running, queued and the stated limit summed over workers; false if
/// the body is not the expected JSON.
bool read_loads_sample(const ClientProfile& profile, std::string_view body, ServerSample& sample);
/// The analysis of a point's samples (and histogram readings) into a ServerView.
void analyse_server_view(ServerView& view, const PromHistogram& first, const PromHistogram& last);

class ServerWatcher final : public PointObserver {
 public:
  ServerWatcher(EventLoop& loop, Transport& transport, const ServerUrl& url,
                const ClientProfile& profile, double interval_s);
  ~ServerWatcher() override;

  void baseline(std::function<void()> ready) override;
  void start(double t0, std::function<int()> in_flight) override;
  void finish(std::function<void()> then) override;
  /// The view of the point just run (call after the runner returns).
  ServerView take_view();

 private:
  struct Probe;
  void tick();
  void received(Probe& probe, int status, std::string_view body);
  void baseline_done();
  void call_once(EventLoop::TimerId& timer, std::function<void()>& callback);
  void maybe_done();

  EventLoop& loop_;
  Transport& transport_;
  const ClientProfile& profile_;
  double interval_s_;
  std::string metrics_request_;
  std::string loads_request_;
  std::unique_ptr<Probe> metrics_;
  std::unique_ptr<Probe> loads_;
  std::function<int()> in_flight_;
  std::function<void()> then_;
  std::function<void()> ready_;  // waiting for the baseline reading
  double t0_ = 0;
  double finish_at_ = 0;  // when finish() was called: readings sent before it are not the last
  EventLoop::TimerId tick_timer_ = 0, finish_timer_ = 0, baseline_timer_ = 0;
  bool finishing_ = false;
  ServerView view_;
  PromHistogram first_hist_, last_hist_;
  bool have_first_hist_ = false;
};

}  // namespace servescope
