#include "load/point_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "load/exact_stats.h"

namespace servescope {

BenchPoint summarize_point(const PointPlan& plan, PointData& data, bool details) {
  BenchPoint p;
  p.closed_loop = plan.closed_loop;
  p.concurrency = plan.concurrency;
  p.rate = plan.closed_loop ? 0 : plan.rate;
  p.arrival = plan.closed_loop             ? ""
              : plan.arrival_label.empty() ? plan.arrival.describe()
                                           : plan.arrival_label;
  p.warmup = plan.warmup;

  std::vector<double> ttft, ttft_i, tpot, e2e, e2e_i, queue, lag, in_req, in_rep, out;
  std::vector<double> intended, sent;
  double first_start = 1e300, last_end = -1e300;
  double output_tokens = 0, input_tokens = 0, events = 0;
  for (const RequestRecord& r : data.records) {
    if (r.warmup)
      continue;
    ++p.requests_sent;
    intended.push_back(r.intended);
    sent.push_back(r.sent);
    queue.push_back((r.sent - r.intended) * 1000.0);
    const double l = (r.sent - r.ready) * 1000.0;
    lag.push_back(l);
    if (l > kLateSendMs)
      ++p.late_sends;
    first_start = std::min(first_start, r.intended);
    last_end = std::max(last_end, r.done);
    events += r.events;
    in_req.push_back(static_cast<double>(r.prompt_tokens_requested));
    if (!r.ok()) {
      ++p.requests_failed;
      const std::string key(error_key(r.error));
      ++p.errors.by_kind[key];
      if (r.error == ErrorKind::kHttpStatus)
        ++p.errors.by_status[r.http_status];
    } else {
      ++p.requests_completed;
      output_tokens += static_cast<double>(r.output_tokens);
      if (r.first_token >= 0) {
        ttft.push_back((r.first_token - r.sent) * 1000.0);
        ttft_i.push_back((r.first_token - r.intended) * 1000.0);
      }
      e2e.push_back((r.done - r.sent) * 1000.0);
      e2e_i.push_back((r.done - r.intended) * 1000.0);
      if (r.output_tokens > 1 && r.first_token >= 0 && r.last_token > r.first_token)
        tpot.push_back((r.last_token - r.first_token) * 1000.0 /
                       static_cast<double>(r.output_tokens - 1));
      if (r.prompt_tokens_reported >= 0) {
        in_rep.push_back(static_cast<double>(r.prompt_tokens_reported));
        input_tokens += static_cast<double>(r.prompt_tokens_reported);
        const double want = static_cast<double>(r.prompt_tokens_requested);
        if (std::abs(static_cast<double>(r.prompt_tokens_reported) - want) >
            std::max(2.0, 0.05 * want))
          ++p.input_mismatched;
      } else {
        input_tokens += static_cast<double>(r.prompt_tokens_requested);
      }
      out.push_back(static_cast<double>(r.output_tokens));
      if (r.output_tokens < r.output_tokens_requested)
        ++p.output_short;
    }
    if (details) {
      BenchRequestRow row;
      row.index = r.index;
      row.intended_s = r.intended;
      row.sent_s = r.sent;
      row.ttft_ms = r.ok() && r.first_token >= 0 ? (r.first_token - r.sent) * 1000.0 : -1;
      row.e2e_ms = r.ok() ? (r.done - r.sent) * 1000.0 : -1;
      if (r.ok() && r.output_tokens > 1 && r.first_token >= 0 && r.last_token > r.first_token)
        row.tpot_ms =
            (r.last_token - r.first_token) * 1000.0 / static_cast<double>(r.output_tokens - 1);
      row.queue_ms = (r.sent - r.intended) * 1000.0;
      row.prompt_tokens_requested = r.prompt_tokens_requested;
      row.prompt_tokens_reported = r.prompt_tokens_reported;
      row.output_tokens_requested = r.output_tokens_requested;
      row.output_tokens = r.output_tokens;
      row.events = r.events;
      row.http_status = r.http_status;
      row.error = r.ok() ? "" : std::string(error_key(r.error));
      p.requests.push_back(std::move(row));
    }
  }
  for (std::size_t k = 1; k < kErrorKinds; ++k) {
    const std::string key(error_key(static_cast<ErrorKind>(k)));
    p.errors.by_kind.emplace(key, 0);
    if (!data.first_error[k].empty())
      p.errors.example[key] = data.first_error[k];
  }
  if (details)
    std::sort(p.requests.begin(), p.requests.end(),
              [](const BenchRequestRow& a, const BenchRequestRow& b) { return a.index < b.index; });

  p.duration_s = p.requests_sent > 0 ? std::max(0.0, last_end - first_start) : 0;
  if (p.duration_s > 0) {
    p.requests_per_s = static_cast<double>(p.requests_completed) / p.duration_s;
    p.output_tokens_per_s = output_tokens / p.duration_s;
    p.input_tokens_per_s = input_tokens / p.duration_s;
    p.sse_events_per_s = events / p.duration_s;
  }
  std::sort(intended.begin(), intended.end());
  std::sort(sent.begin(), sent.end());
  if (intended.size() >= 2 && intended.back() > intended.front())
    p.scheduled_rate =
        static_cast<double>(intended.size() - 1) / (intended.back() - intended.front());
  if (sent.size() >= 2 && sent.back() > sent.front())
    p.achieved_rate = static_cast<double>(sent.size() - 1) / (sent.back() - sent.front());
  p.late_share = p.requests_sent > 0
                     ? static_cast<double>(p.late_sends) / static_cast<double>(p.requests_sent)
                     : 0;

  p.ttft_ms = summarize_samples(ttft);
  p.ttft_from_intended_ms = summarize_samples(ttft_i);
  p.tpot_ms = summarize_samples(tpot);
  p.e2e_ms = summarize_samples(e2e);
  p.e2e_from_intended_ms = summarize_samples(e2e_i);
  p.queue_ms = summarize_samples(queue);
  p.schedule_lag_ms = summarize_samples(lag);
  p.itl_ms = summarize_samples(data.itl_token_ms);
  p.itl_per_event_ms = summarize_samples(data.itl_event_ms);
  p.input_tokens_requested = summarize_samples(in_req);
  p.input_tokens_reported = summarize_samples(in_rep);
  p.output_tokens = summarize_samples(out);

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
