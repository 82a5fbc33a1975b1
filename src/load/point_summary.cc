#include "load/point_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "load/point_tally.h"

namespace servescope {

namespace {

BenchRequestRow request_row(const RequestRecord& r) {
  BenchRequestRow row;
  row.index = r.index;
  row.intended_s = r.intended;
  row.sent_s = r.sent;
  row.ttft_ms = request_ms(r, "ttft");
  row.e2e_ms = request_ms(r, "e2e");
  row.tpot_ms = request_ms(r, "tpot");
  row.queue_ms = (r.sent - r.intended) * 1000.0;
  row.prompt_tokens_requested = r.prompt_tokens_requested;
  row.prompt_tokens_reported = r.prompt_tokens_reported;
  row.output_tokens_requested = r.output_tokens_requested;
  row.output_tokens = r.output_tokens;
  row.events = r.events;
  row.http_status = r.http_status;
  row.error = r.ok() ? "" : std::string(error_key(r.error));
  return row;
}

}  // namespace

BenchPoint summarize_point(const PointPlan& plan, PointData& data, bool details) {
  BenchPoint p;
  p.closed_loop = plan.closed_loop;
  p.concurrency = plan.concurrency;
  p.rate = plan.closed_loop ? 0 : plan.rate;
  p.arrival = plan.closed_loop             ? ""
              : plan.arrival_label.empty() ? plan.arrival.describe()
                                           : plan.arrival_label;
  p.warmup = plan.warmup;

  const PointTally& t = data.tally;
  p.requests_sent = t.sent;
  p.requests_completed = t.completed;
  p.requests_failed = t.failed;
  p.late_sends = t.late_sends;
  p.input_mismatched = t.input_mismatched;
  p.output_short = t.output_short;
  p.errors.by_kind = t.errors_by_kind;
  p.errors.by_status = t.errors_by_status;
  for (std::size_t k = 1; k < kErrorKinds; ++k) {
    const std::string key(error_key(static_cast<ErrorKind>(k)));
    p.errors.by_kind.emplace(key, 0);
    if (!data.first_error[k].empty())
      p.errors.example[key] = data.first_error[k];
  }
  if (details) {
    for (const RequestRecord& r : data.records) {
      if (!r.warmup)
        p.requests.push_back(request_row(r));
    }
    std::sort(p.requests.begin(), p.requests.end(),
              [](const BenchRequestRow& a, const BenchRequestRow& b) { return a.index < b.index; });
  }

  p.duration_s = t.duration_s();
  if (p.duration_s > 0) {
    p.requests_per_s = static_cast<double>(t.completed) / p.duration_s;
    p.output_tokens_per_s = t.output_tokens / p.duration_s;
    p.input_tokens_per_s = t.input_tokens / p.duration_s;
    p.sse_events_per_s = t.events / p.duration_s;
  }
  if (t.sent >= 2 && t.intended_max > t.intended_min)
    p.scheduled_rate = static_cast<double>(t.sent - 1) / (t.intended_max - t.intended_min);
  if (t.sent >= 2 && t.sent_max > t.sent_min)
    p.achieved_rate = static_cast<double>(t.sent - 1) / (t.sent_max - t.sent_min);
  p.late_share = t.sent > 0 ? static_cast<double>(t.late_sends) / static_cast<double>(t.sent) : 0;

  p.ttft_ms = t.ttft.summarize();
  p.ttft_from_intended_ms = t.ttft_from_intended.summarize();
  p.tpot_ms = t.tpot.summarize();
  p.e2e_ms = t.e2e.summarize();
  p.e2e_from_intended_ms = t.e2e_from_intended.summarize();
  p.queue_ms = t.queue.summarize();
  p.schedule_lag_ms = t.lag.summarize();
  p.itl_ms = t.itl_token.summarize();
  p.itl_per_event_ms = t.itl_event.summarize();
  p.input_tokens_requested = t.input_requested.summarize();
  p.input_tokens_reported = t.input_reported.summarize();
  p.output_tokens = t.output.summarize();

  if (data.itl_estimated_requests > 0)
    p.itl_basis = fmt::format(
        "estimated for {} requests: their events carried several tokens without per-event "
        "usage, so each event's gap is spread over the reported total",
        data.itl_estimated_requests);
  else if (data.itl_usage_requests > 0 && data.itl_one_per_event == 0)
    p.itl_basis = "per token, from the usage each event reports";
  else if (data.itl_one_per_event > 0 && data.itl_usage_requests == 0)
    p.itl_basis = "per token: every event carried one token";
  else if (data.itl_usage_requests + data.itl_one_per_event > 0)
    p.itl_basis = "per token, from per-event usage or one token per event";

  p.in_flight_max = data.in_flight_max;
  double area = 0, span = 0;
  for (const InFlightBucket& b : data.in_flight) {
    area += b.mean;
    span += 1;
  }
  p.in_flight_mean = span > 0 ? area / span : 0;
  p.in_flight = std::move(data.in_flight);

  if (p.requests_sent > 0 && p.late_share > 0.01)
    p.warnings.push_back(fmt::format(
        "{:.1f}% of sends were late (more than {} ms after they could go; p99 lag {:.2f} ms): "
        "the client did not keep up, so the load offered was lower than asked — use fewer "
        "requests per second or a less loaded machine",
        p.late_share * 100, kLateSendMs, p.schedule_lag_ms.p99));
  if (p.requests_sent > 0 && p.requests_completed == 0)
    p.warnings.push_back("no request completed: see the errors");
  if (data.stopped_at_deadline)
    p.warnings.push_back(
        "the point ended at its deadline (duration + timeout) with requests still out; they "
        "count as timeouts");
  if (p.output_short > 0)
    p.warnings.push_back(fmt::format(
        "{} requests got fewer output tokens than asked for (the server stopped early: an "
        "end-of-sequence token or a length limit); TPOT and throughput are over those tokens",
        p.output_short));
  return p;
}

}  // namespace servescope
