// Runs one sweep point: sends requests on a schedule through a Transport, on one EventLoop,
// with no thread per request. Closed loop: C requests in flight, each sent when the previous
// one on its slot ends. Open loop: intended send times from an arrival process, precomputed
// one at a time so lateness never shifts the schedule; an optional cap on requests in flight
// makes the rest wait (that wait is the client queue, counted from the intended time, as
// wrk2 counts it). Every run is bounded by its request count or its duration, and every
// request by its timeout.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "load/api.h"
#include "load/event_loop.h"
#include "load/point_tally.h"
#include "load/request_record.h"
#include "load/response_reader.h"
#include "load/transport.h"
#include "report/bench_report.h"
#include "twin/workload.h"

namespace servescope {

struct PointPlan {
  bool closed_loop = true;
  int concurrency = 1;  // closed loop: in flight; open loop: the cap (0: none)
  double rate = 0;      // open loop: requests per second
  ArrivalProcess arrival;
  // Open loop from a trace (bench --trace): each request's send, in seconds from the point's
  // start, instead of the arrival process; arrival_label says so in the report.
  std::vector<double> arrivals_s;
  std::string arrival_label;
  std::int64_t requests = 0;  // measured requests; 0: bounded by duration_s
  double duration_s = 0;
  std::int64_t warmup = 0;  // requests sent first and left out of the figures
  double timeout_s = 60;
  std::uint64_t seed = 1;
  // Every request is tallied (point_tally.h); its record is kept too only when asked (bench
  // --details, the SLO search's pooled rows, tests), so a long point's memory stays flat.
  bool keep_records = true;
  std::vector<SloThreshold> slo;  // judged on each request as it ends (per-request objectives)
};

struct PreparedRequest {
  std::string bytes;  // the whole HTTP request
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  // A later turn of the conversation the pool item before it belongs to: sent only once that
  // turn has ended well (bench --multi-turn), never to start a conversation.
  bool continues = false;
};

/// Everything recorded during one point; point_summary.h turns it into a BenchPoint.
struct PointData {
  std::vector<RequestRecord> records;  // in completion order, warm-up included (flagged); only
                                       // with PointPlan::keep_records
  PointTally tally;  // every measured request; its ITL sets hold one gap per output token after
                     // the first (itl_token) and per content event after the first (itl_event)
  std::uint64_t itl_usage_requests = 0;      // requests timed from per-event usage
  std::uint64_t itl_one_per_event = 0;       // requests whose events carried one token each
  std::uint64_t itl_estimated_requests = 0;  // requests whose per-event counts were estimated
  std::array<std::string, kErrorKinds> first_error;
  std::vector<InFlightBucket> in_flight;  // 100 ms buckets from the start
  int in_flight_max = 0;
  double start = 0;  // loop time of the point's start
  double end = 0;
  bool stopped_at_deadline = false;
};

struct ProgressInfo {
  double elapsed_s = 0;
  std::uint64_t done = 0;  // measured requests ended
  std::uint64_t failed = 0;
  std::uint64_t total = 0;  // 0 with a duration bound
  double duration_s = 0;
  int in_flight = 0;
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void progress(const ProgressInfo& info) = 0;
};

/// Watches the server during a point (server_watcher.h).
class PointObserver {
 public:
  virtual ~PointObserver() = default;
  /// One reading before the point's first send, so counters are read from before any request
  /// of the point; calls `ready` when it is in (or has failed, bounded in time).
  virtual void baseline(std::function<void()> ready) { ready(); }
  virtual void start(double t0, std::function<int()> in_flight) = 0;
  /// The point's requests are over: take a last look, then call `then` (bounded in time).
  virtual void finish(std::function<void()> then) = 0;
};

class LoadRunner {
 public:
  LoadRunner(EventLoop& loop, Transport& transport, const ApiSpec& api, bool stream,
             const std::vector<PreparedRequest>& pool);
  ~LoadRunner();
  PointData run(const PointPlan& plan, PointObserver* observer = nullptr,
                ProgressSink* progress = nullptr);

 private:
  struct Active;
  friend struct Active;

  bool may_send() const;
  std::size_t next_prompt();
  void issue(double intended, double ready);
  void finish(Active* active);
  void collect(const Active& active);
  void on_arrival();
  void drain_pending();
  void sweep();
  void tick_progress();
  void in_flight_changed(int delta);
  void maybe_end();
  void end_point();

  EventLoop& loop_;
  Transport& transport_;
  const ApiSpec& api_;
  bool stream_;
  const std::vector<PreparedRequest>& pool_;

  PointPlan plan_;
  PointData data_;
  PointObserver* observer_ = nullptr;
  ProgressSink* progress_ = nullptr;
  std::vector<std::unique_ptr<Active>> all_;
  std::vector<Active*> free_;
  std::vector<Active*> active_;
  std::vector<EventLoop::TimerId> backoff_timers_;
  std::vector<double> pending_;  // intended times waiting for a slot (FIFO from pending_head_)
  std::size_t pending_head_ = 0;
  std::unique_ptr<Random> random_;
  double t0_ = 0;
  double next_arrival_ = 0;
  double last_free_ = -1e300;  // when a full cap last freed a slot
  std::uint64_t issued_ = 0;
  // Where the next conversation starts in the pool. It goes on across points, so a sweep does
  // not send a prefix-caching server the prompts it has already cached.
  std::uint64_t next_start_ = 0;
  // Later turns whose previous turn has ended well, sent before any new conversation (a closed
  // loop's slot so goes on with its own conversation). A new point drops them.
  std::deque<std::size_t> next_turns_;
  std::uint64_t arrivals_ = 0;
  std::uint64_t measured_done_ = 0;
  std::uint64_t measured_failed_ = 0;
  int in_flight_ = 0;
  double in_flight_since_ = 0;
  bool ending_ = false;
  bool ended_ = false;
  EventLoop::TimerId arrival_timer_ = 0, sweep_timer_ = 0, progress_timer_ = 0, deadline_timer_ = 0;
};

}  // namespace servescope
