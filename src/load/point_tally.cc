#include "load/point_tally.h"

#include <algorithm>
#include <cmath>

namespace servescope {

double request_ms(const RequestRecord& r, const std::string& metric) {
  if (!r.ok())
    return -1;
  if (metric == "ttft")
    return r.first_token >= 0 ? (r.first_token - r.sent) * 1000.0 : -1;
  if (metric == "e2e")
    return (r.done - r.sent) * 1000.0;
  if (metric == "tpot" && r.output_tokens > 1 && r.first_token >= 0 && r.last_token > r.first_token)
    return (r.last_token - r.first_token) * 1000.0 / static_cast<double>(r.output_tokens - 1);
  return -1;
}

PointTally::PointTally(std::vector<SloThreshold> objectives) : slo(std::move(objectives)) {}

void PointTally::add(const RequestRecord& r) {
  if (r.warmup)
    return;
  ++sent;
  intended_min = std::min(intended_min, r.intended);
  intended_max = std::max(intended_max, r.intended);
  sent_min = std::min(sent_min, r.sent);
  sent_max = std::max(sent_max, r.sent);
  queue.add((r.sent - r.intended) * 1000.0);
  const double l = (r.sent - r.ready) * 1000.0;
  lag.add(l);
  if (l > kLateSendMs)
    ++late_sends;
  first_start = std::min(first_start, r.intended);
  last_end = std::max(last_end, r.done);
  events += r.events;
  input_requested.add(static_cast<double>(r.prompt_tokens_requested));
  if (!r.ok()) {
    ++failed;
    ++errors_by_kind[std::string(error_key(r.error))];
    if (r.error == ErrorKind::kHttpStatus)
      ++errors_by_status[r.http_status];
    return;
  }
  ++completed;
  output_tokens += static_cast<double>(r.output_tokens);
  if (r.first_token >= 0) {
    ttft.add((r.first_token - r.sent) * 1000.0);
    ttft_from_intended.add((r.first_token - r.intended) * 1000.0);
  }
  e2e.add((r.done - r.sent) * 1000.0);
  e2e_from_intended.add((r.done - r.intended) * 1000.0);
  if (const double t = request_ms(r, "tpot"); t >= 0)
    tpot.add(t);
  if (r.prompt_tokens_reported >= 0) {
    input_reported.add(static_cast<double>(r.prompt_tokens_reported));
    input_tokens += static_cast<double>(r.prompt_tokens_reported);
    const double want = static_cast<double>(r.prompt_tokens_requested);
    if (std::abs(static_cast<double>(r.prompt_tokens_reported) - want) > std::max(2.0, 0.05 * want))
      ++input_mismatched;
  } else {
    input_tokens += static_cast<double>(r.prompt_tokens_requested);
  }
  output.add(static_cast<double>(r.output_tokens));
  if (r.output_tokens < r.output_tokens_requested)
    ++output_short;
  // A request with no first token fails a TTFT objective; one output token has no TPOT.
  bool met = true;
  for (const SloThreshold& t : slo) {
    if (t.percentile != 0)
      continue;
    const double ms = request_ms(r, t.metric);
    if ((t.metric == "ttft" && ms < 0) || ms > t.limit_ms)
      met = false;
  }
  if (met && !slo.empty()) {
    ++slo_met;
    slo_met_tokens += static_cast<double>(r.output_tokens);
  }
}

void PointTally::merge(const PointTally& o, double shift) {
  sent += o.sent;
  completed += o.completed;
  failed += o.failed;
  late_sends += o.late_sends;
  input_mismatched += o.input_mismatched;
  output_short += o.output_short;
  for (const auto& [k, n] : o.errors_by_kind)
    errors_by_kind[k] += n;
  for (const auto& [k, n] : o.errors_by_status)
    errors_by_status[k] += n;
  output_tokens += o.output_tokens;
  input_tokens += o.input_tokens;
  events += o.events;
  if (o.sent > 0) {
    first_start = std::min(first_start, o.first_start + shift);
    last_end = std::max(last_end, o.last_end + shift);
    intended_min = std::min(intended_min, o.intended_min + shift);
    intended_max = std::max(intended_max, o.intended_max + shift);
    sent_min = std::min(sent_min, o.sent_min + shift);
    sent_max = std::max(sent_max, o.sent_max + shift);
  }
  for (auto [mine, theirs] :
       {std::pair{&ttft, &o.ttft}, std::pair{&ttft_from_intended, &o.ttft_from_intended},
        std::pair{&tpot, &o.tpot}, std::pair{&e2e, &o.e2e},
        std::pair{&e2e_from_intended, &o.e2e_from_intended}, std::pair{&queue, &o.queue},
        std::pair{&lag, &o.lag}, std::pair{&input_requested, &o.input_requested},
        std::pair{&input_reported, &o.input_reported}, std::pair{&output, &o.output}})
    mine->merge(*theirs);
  itl_token.merge(o.itl_token);
  itl_event.merge(o.itl_event);
  slo_met += o.slo_met;
  slo_met_tokens += o.slo_met_tokens;
}

}  // namespace servescope
