// The periodic batch lines of one rank as a timeline of bounded size: running requests,
// queue, token usage, generation throughput and mamba usage. A log of any length keeps at
// most `max_points` points; when full, neighbours merge (maxima of the gauges, mean of the
// throughput), so memory stays constant and peaks are never lost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/log_grammar.h"

namespace servescope {

struct TimelinePoint {
  std::uint64_t first_line = 0;
  std::uint64_t last_line = 0;
  std::string time;                  // timestamp of the first line merged in, "" if none
  double offset_s = -1;              // seconds since the timeline's first timestamp, -1 if unknown
  std::uint32_t samples = 0;         // batch lines merged into this point
  std::uint32_t decode_samples = 0;  // of which decode lines
  std::int64_t running_req = -1;     // maximum; -1 when no line stated it
  std::int64_t queue_req = -1;       // maximum
  double token_usage = -1;           // maximum (full-attention usage on hybrid models)
  double gen_throughput_tok_per_s = -1;  // mean over decode lines
  double mamba_usage = -1;               // maximum; -1 on models without mamba state
};

/// The line holding the largest value of a gauge.
struct TimelinePeak {
  double value = -1;
  std::uint64_t line = 0;
  std::string time;
};

class Timeline {
 public:
  explicit Timeline(std::string rank_label = "", std::size_t max_points = 512);

  /// Adds a decode_batch or prefill_batch fact.
  void add(const Fact& fact);
  /// Points in line order, including a partly filled last one.
  std::vector<TimelinePoint> points() const;

  const std::string& rank() const { return rank_; }
  std::uint64_t samples() const { return samples_; }
  std::uint64_t decode_samples() const { return decode_samples_; }
  std::uint64_t prefill_samples() const { return samples_ - decode_samples_; }
  const TimelinePeak& peak_running() const { return peak_running_; }
  const TimelinePeak& peak_queue() const { return peak_queue_; }
  const TimelinePeak& peak_token_usage() const { return peak_token_usage_; }
  const TimelinePeak& peak_gen_throughput() const { return peak_gen_throughput_; }
  /// Seconds between the first and the last timestamped line, -1 without timestamps.
  double span_s() const;

 private:
  static void merge_into(TimelinePoint& into, const TimelinePoint& from);

  std::string rank_;
  std::size_t max_points_;
  std::vector<TimelinePoint> points_;  // completed points, each `stride_` samples
  TimelinePoint pending_;
  std::uint32_t stride_ = 1;
  std::uint64_t samples_ = 0;
  std::uint64_t decode_samples_ = 0;
  std::string last_timestamp_;
  double last_timestamp_s_ = -1;
  double first_time_s_ = -1;
  double last_time_s_ = -1;
  TimelinePeak peak_running_;
  TimelinePeak peak_queue_;
  TimelinePeak peak_token_usage_;
  TimelinePeak peak_gen_throughput_;
};

/// "2025-03-08 12:29:21(.123)" → seconds since 1970 (UTC as printed), -1 if not a timestamp.
double timestamp_seconds(std::string_view timestamp);

}  // namespace servescope
