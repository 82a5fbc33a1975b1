// The twin's scheduler in real time: requests are queued and batched by the scheduler model,
// each step lasts what the cost model says divided by --speed, and at the end of a step every
// request's new tokens go to its sink. It keeps the engine's metrics (latency histograms,
// token counters), prints its periodic scheduler lines, and carries the scheduler-side faults
// (a stall, a crash after N requests). No I/O: a driver calls poll() when the clock reaches
// the deadline it returned, so tests run it on a fake clock.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "engines/twin_profile.h"
#include "twin/api_request.h"
#include "twin/clock.h"
#include "twin/cost_model.h"
#include "twin/prefix_cache.h"
#include "twin/random.h"
#include "twin/scheduler.h"

namespace servescope {

/// Faults for testing clients (`--fault KIND=VALUE`, repeatable).
struct TwinFaults {
  std::int64_t crash_after = 0;        // the server dies after this many finished requests
  double stall_ms = 0;                 // the scheduler freezes once, after the first token
  std::int64_t drop_stream_after = 0;  // a response is cut after this many tokens
  double error_rate = 0;               // share of generation requests answered with HTTP 500

  /// Applies "crash-after=N", "stall=MS", "drop-stream-after=K", "error-rate=P".
  Status apply(const std::vector<std::string>& items);
  bool any() const {
    return crash_after > 0 || stall_ms > 0 || drop_stream_after > 0 || error_rate > 0;
  }
};

/// Receives one request's output. Called on the loop's executor; it must not call
/// ServingLoop::cancel() from inside on_tokens (post the cancel instead).
class TokenSink {
 public:
  virtual ~TokenSink() = default;
  /// Tokens [from, from + count) were generated; `finished`: the request is complete.
  virtual void on_tokens(std::int64_t from, std::int32_t count, bool finished) = 0;
};

/// Where log lines go (a line without the newline).
class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void write(const std::string& line) = 0;
};

struct ServingLoopOptions {
  double speed = 1;  // simulated seconds per wall second; huge values run steps back to back
  // Run-to-run noise (--jitter): every step lasts its cost times a log-normal factor of mean
  // 1 and relative spread `jitter`, redrawn every kJitterSteps steps from `seed`, so repeated
  // measurements differ as they do on a real server. 0: exact.
  double jitter = 0;
  std::uint64_t seed = 1;
  TwinFaults faults;
  std::string model_name;
  Endpoint endpoint;
  double startup_seconds = 0;
};

class ServingLoop {
 public:
  using Ticket = std::uint64_t;

  ServingLoop(const Scenario& scenario, const Plan& plan, const TwinProfile& profile,
              ServingShape shape, const CostModel& cost, Clock& clock, LogSink& log,
              ServingLoopOptions options);

  /// The engine's 400 message when the request does not fit the context, else "".
  std::string check(const GenerationRequest& request) const;
  /// The output tokens the engine grants a request that passed check() (it may shorten
  /// max_tokens to fit the context).
  std::int64_t fitted_max_tokens(const GenerationRequest& request) const;
  /// Queues a request; the loop keeps `sink` until the request finishes or is cancelled.
  Ticket submit(const GenerationRequest& request, std::shared_ptr<TokenSink> sink);
  /// The client went away: the request is dropped and its sink is not called again.
  void cancel(Ticket ticket);

  /// Ends every step whose time has come, starts the next one, and returns the monotonic time
  /// at which poll() must run again, or nullopt when there is nothing to run.
  std::optional<double> poll();

  /// True once the crash-after fault has fired; the loop runs no more steps.
  bool crashed() const { return crashed_; }
  ServingStatus status() const;
  const Scheduler& scheduler() const { return scheduler_; }

 private:
  struct Record {
    std::shared_ptr<TokenSink> sink;
    Scheduler::Slot slot = 0;
    double arrival = 0;
    double last_token = -1;
    std::int64_t prompt = 0;
    std::int64_t tokens = 0;
    bool admitted = false;
    bool pending = false;  // not yet with the scheduler (request_overhead_us)
  };
  // A request on its way to the scheduler: the cost model's request_overhead_us after it came.
  struct Pending {
    double at = 0;
    Ticket ticket = 0;
    std::int64_t prompt = 0, max_tokens = 0, cached = 0;
  };

  /// Hands the requests whose overhead has passed to the scheduler; the next one's time.
  std::optional<double> release_pending(double now);

  void start_step(double at);
  void end_step();
  void log_line(const std::string& text);

  const Scenario& scenario_;
  const Plan& plan_;
  const TwinProfile& profile_;
  Scheduler scheduler_;
  const CostModel& cost_;
  Clock& clock_;
  LogSink& log_;
  ServingLoopOptions options_;

  std::unordered_map<Ticket, Record> records_;
  std::deque<Pending> pending_;
  Ticket next_ticket_ = 1;
  Step step_;
  bool in_step_ = false;
  double step_start_ = 0;
  double step_end_ = 0;
  bool stall_pending_ = false;
  bool stalled_once_ = false;
  bool crashed_ = false;

  std::int64_t decode_steps_ = 0;
  std::int64_t tokens_since_decode_log_ = 0;
  double last_decode_log_ = 0;
  double last_prefill_log_ = 0;
  double gen_throughput_ = 0;

  std::optional<PrefixCache> prefix_cache_;  // when the engine reuses cached prefixes
  std::uint64_t prefix_cache_queries_ = 0, prefix_cache_hits_ = 0;

  std::uint64_t prompt_tokens_total_ = 0;
  std::uint64_t generation_tokens_total_ = 0;
  std::uint64_t requests_total_ = 0;
  Histogram ttft_, itl_, e2e_, queue_;

  Random jitter_random_;
  double jitter_factor_ = 1;
  std::uint64_t steps_started_ = 0;
};

/// Steps that share one --jitter factor: long enough that a slow or fast stretch moves a
/// measurement, as a real server's clocks and neighbours do, instead of averaging away.
inline constexpr std::uint64_t kJitterSteps = 32;

}  // namespace servescope
