#include "load/repeated_runs.h"

#include <algorithm>
#include <cmath>

namespace servescope {

void RepeatObserver::baseline(std::function<void()> ready) {
  if (run_ == 1)
    inner_.baseline(std::move(ready));
  else
    ready();
}

void RepeatObserver::start(double t0, std::function<int()> in_flight) {
  if (run_ == 1)
    inner_.start(t0, std::move(in_flight));
}

void RepeatObserver::finish(std::function<void()> then) {
  if (run_ == runs_)
    inner_.finish(std::move(then));
  else
    then();
}

RunFigures run_figures(const PointData& run) {
  const PointTally& t = run.tally;
  RunFigures f;
  f.requests_completed = t.completed;
  f.duration_s = t.duration_s();
  if (f.duration_s > 0) {
    f.requests_per_s = static_cast<double>(t.completed) / f.duration_s;
    f.output_tokens_per_s = t.output_tokens / f.duration_s;
  }
  return f;
}

void pool_run(PointData& pooled, PointData&& next) {
  const double shift = next.start - pooled.start;
  auto move = [shift](double& t) {
    if (t >= 0)
      t += shift;
  };
  for (RequestRecord& r : next.records) {
    r.intended += shift;
    r.ready += shift;
    move(r.sent);
    move(r.first_token);
    move(r.last_token);
    move(r.done);
    pooled.records.push_back(r);
  }
  pooled.tally.merge(next.tally, shift);
  pooled.itl_usage_requests += next.itl_usage_requests;
  pooled.itl_one_per_event += next.itl_one_per_event;
  pooled.itl_estimated_requests += next.itl_estimated_requests;
  for (std::size_t k = 0; k < kErrorKinds; ++k) {
    if (pooled.first_error[k].empty())
      pooled.first_error[k] = std::move(next.first_error[k]);
  }
  // The runs' 100 ms buckets on one grid: empty buckets over the gap between them.
  const double bucket = next.in_flight.size() > 1 ? next.in_flight[1].t_s - next.in_flight[0].t_s
                        : pooled.in_flight.size() > 1
                            ? pooled.in_flight[1].t_s - pooled.in_flight[0].t_s
                            : 0.1;
  const auto first = static_cast<std::size_t>(std::max(0.0, std::floor(shift / bucket)));
  if (pooled.in_flight.size() < first)
    pooled.in_flight.resize(first);
  for (InFlightBucket b : next.in_flight)
    pooled.in_flight.push_back(b);
  for (std::size_t k = 0; k < pooled.in_flight.size(); ++k)
    pooled.in_flight[k].t_s = static_cast<double>(k) * bucket;
  pooled.in_flight_max = std::max(pooled.in_flight_max, next.in_flight_max);
  pooled.end = next.end;
  pooled.stopped_at_deadline = pooled.stopped_at_deadline || next.stopped_at_deadline;
}

}  // namespace servescope
