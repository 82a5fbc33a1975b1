// The result of `servescope bench`: one struct that every exporter (text, JSON, CSV, Markdown)
// reads. Times are milliseconds unless a name says seconds; percentiles are exact, from every
// recorded sample.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace servescope {

struct LatencySummary {
  std::uint64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0, max = 0;
};

struct BenchErrors {
  // connect, timeout, http_status, malformed_http, malformed_sse, closed_early, error_event
  std::map<std::string, std::uint64_t> by_kind;
  std::map<int, std::uint64_t> by_status;      // HTTP status codes of http_status errors
  std::map<std::string, std::string> example;  // the first failure's detail, per kind
  std::uint64_t total() const {
    std::uint64_t n = 0;
    for (const auto& [k, v] : by_kind)
      n += v;
    return n;
  }
};

/// The server's own view during a point, scraped from its metrics and status endpoints.
struct ServerSample {
  double t_s = 0;       // since the point's start
  double running = -1;  // -1: not read at this sample
  double queued = -1;
  double max_running = -1;  // the limit a status endpoint states
  int client_in_flight = 0;
  double prefix_queries = -1;  // counters of the prefix cache (tokens), -1: not read
  double prefix_hits = -1;
};

struct ServerView {
  bool available = false;
  std::string engine;  // whose names were used
  std::string why_unavailable;
  std::string sources;  // "/metrics, /v1/loads"
  std::uint64_t scrapes = 0;
  std::uint64_t scrape_errors = 0;
  double max_running = 0;
  double max_queued = 0;
  std::optional<double> effective_running_limit;  // the most it ran while others waited
  std::optional<double> stated_max_running;       // as a status endpoint states it
  std::optional<double> queueing_began_s;         // first sample with a waiting request
  int in_flight_when_queueing_began = 0;
  // The server's queue-time histogram over the point (bucket-resolution median; exact mean).
  std::uint64_t queue_count = 0;
  double queue_mean_ms = 0;
  std::optional<double> queue_median_ms;
  // Of the prompt tokens the server looked up in its prefix cache during the point, the share it
  // held (from its counters' first and last readings).
  std::optional<double> prefix_cache_hit_rate;
  double prefix_cache_queried_tokens = 0;
  std::vector<ServerSample> samples;
};

struct InFlightBucket {
  double t_s = 0;  // bucket start
  int max = 0;
  double mean = 0;
};

/// One request, for --json with details and the CSV of requests.
struct BenchRequestRow {
  std::uint32_t index = 0;
  double intended_s = 0, sent_s = 0, ttft_ms = -1, e2e_ms = -1, tpot_ms = -1, queue_ms = 0;
  std::int64_t prompt_tokens_requested = 0, prompt_tokens_reported = -1;
  std::int64_t output_tokens_requested = 0, output_tokens = 0;
  std::int32_t events = 0;
  int http_status = 0;
  std::string error;  // "" or an error key
};

/// A service-level objective as given: a per-request threshold ("ttft:500ms": every request's
/// TTFT within 500 ms) or a percentile of the point ("ttft_p99:500ms").
struct SloThreshold {
  std::string metric;  // ttft, tpot, e2e
  int percentile = 0;  // 0: per request; else 50, 90, 95, 99 or 999 (p99.9)
  double limit_ms = 0;
  std::string text;  // as typed, normalized: "ttft:500ms", "ttft_p99:500ms"
};

/// One percentile objective's verdict on a point.
struct SloPercentile {
  SloThreshold threshold;
  double value_ms = 0;
  bool measured = false;  // the point has samples of the metric (a 1-token output has no TPOT)
  bool met = false;
};

/// A point against the objectives. Per-request objectives are judged on the latency from the
/// actual send (as `vllm bench serve --goodput` does); a failed request meets none.
struct SloResult {
  std::uint64_t requests = 0;       // sent (after the warm-up)
  std::uint64_t met = 0;            // of those, requests that met every per-request objective
  double attainment = 0;            // met / requests sent
  double goodput_rps = 0;           // met requests per second of the point
  double goodput_tokens_per_s = 0;  // their output tokens per second
  std::vector<SloPercentile> percentiles;
  bool percentiles_met = true;
};

/// One run of a point (`bench --repeat N` runs each point N times in a row).
struct RunFigures {
  std::uint64_t requests_completed = 0;
  double duration_s = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
};

struct BenchPoint {
  bool closed_loop = true;
  int concurrency = 0;  // closed loop: in flight; open loop: the cap (0: none)
  double rate = 0;      // open loop: requests per second asked for
  std::string arrival;  // open loop
  std::int64_t warmup = 0;
  std::uint64_t requests_sent = 0;
  std::uint64_t requests_completed = 0;
  std::uint64_t requests_failed = 0;
  double duration_s = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double input_tokens_per_s = 0;
  double sse_events_per_s = 0;
  double scheduled_rate = 0;     // from the intended send times
  double achieved_rate = 0;      // from the actual send times
  std::uint64_t late_sends = 0;  // sent more than kLateSendMs after they could go
  double late_share = 0;
  BenchErrors errors;

  LatencySummary ttft_ms, ttft_from_intended_ms, itl_ms, itl_per_event_ms, tpot_ms, e2e_ms,
      e2e_from_intended_ms, queue_ms, schedule_lag_ms;
  std::string itl_basis;  // "usage deltas", "one token per event", "estimated: ..."
  LatencySummary input_tokens_requested, input_tokens_reported, output_tokens;
  std::uint64_t input_mismatched = 0;  // reported prompt tokens differ from the target by >5%
  std::uint64_t output_short = 0;      // fewer output tokens than asked for

  int in_flight_max = 0;
  double in_flight_mean = 0;
  std::vector<InFlightBucket> in_flight;
  ServerView server;
  std::string cross_check;  // the sentence, when a plan or log was given
  bool cross_check_agrees = true;
  std::vector<std::string> warnings;
  std::vector<BenchRequestRow> requests;  // filled with --details
  std::optional<SloResult> slo;           // with --slo
  std::vector<RunFigures> runs;  // each run's throughput (--repeat N: N runs, pooled above)
};

struct BenchExpectation {
  std::string source;  // "the log server.log", "the plan"
  double max_running_requests = 0;
};

/// Where the load generator ran: the network between it and the server is what it measured.
struct BenchClient {
  std::string host;          // this machine's name
  std::string slurm_job_id;  // SLURM_JOB_ID when run inside a Slurm job (bench --slurm)
  std::string slurm_node;    // SLURMD_NODENAME
};

struct BenchReport {
  std::string generator;  // "servescope 0.1.0"
  BenchClient client;
  std::string url;
  std::string api;
  std::string model;
  std::string dataset;
  bool stream = true;
  std::int64_t requests = 0;  // per point; 0 with a duration
  double duration_s = 0;      // per point; 0 with a count
  int runs_per_point = 1;     // bench --repeat
  double timeout_s = 0;
  std::uint64_t seed = 1;
  std::optional<BenchExpectation> expected;
  std::vector<SloThreshold> slo;  // --slo, as given
  std::vector<BenchPoint> points;
};

/// A send later than this after it could go counts as late.
inline constexpr double kLateSendMs = 1.0;

}  // namespace servescope
