// A point's requests as they end, counted into what its summary needs (point_summary.h): the
// counts, sums and extremes, and each metric's samples (sample_set.h: exact, and bounded in
// memory past a fold threshold). The runner tallies every request; it keeps the requests
// themselves only when asked (bench --details), so a long run's memory does not grow with it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "load/request_record.h"
#include "load/sample_set.h"
#include "report/bench_report.h"

namespace servescope {

struct PointTally {
  PointTally() = default;
  /// `slo`: the objectives; its per-request ones are judged on each request as it is added.
  explicit PointTally(std::vector<SloThreshold> slo);

  /// One ended request; warm-up requests are left out.
  void add(const RequestRecord& r);
  /// Adds a later run of the same point whose clock starts `shift` seconds after this one's.
  void merge(const PointTally& other, double shift);
  /// Throughput's span: from the first intended send to the last end (0 before any request).
  double duration_s() const { return sent > 0 ? std::max(0.0, last_end - first_start) : 0; }

  std::vector<SloThreshold> slo;
  std::uint64_t sent = 0, completed = 0, failed = 0, late_sends = 0;
  std::uint64_t input_mismatched = 0, output_short = 0;
  std::map<std::string, std::uint64_t> errors_by_kind;
  std::map<int, std::uint64_t> errors_by_status;
  double output_tokens = 0, input_tokens = 0, events = 0;
  // Seconds from the point's start: the first intended send and the last end (throughput's
  // span), and the spread of intended and actual sends (scheduled and achieved rates).
  double first_start = 1e300, last_end = -1e300;
  double intended_min = 1e300, intended_max = -1e300, sent_min = 1e300, sent_max = -1e300;
  SampleSet<double> ttft, ttft_from_intended, tpot, e2e, e2e_from_intended, queue, lag;
  SampleSet<double> input_requested, input_reported, output;
  SampleSet<float> itl_token, itl_event;  // filled by the runner from each request's gaps
  // Per-request objectives: requests that met all of them, and their output tokens.
  std::uint64_t slo_met = 0;
  double slo_met_tokens = 0;
};

/// The request's TTFT, TPOT and E2E in milliseconds, or -1 where it has none.
double request_ms(const RequestRecord& r, const std::string& metric);

}  // namespace servescope
