// `bench --repeat N`: a point measured N times in a row. The runs' requests are pooled (latency
// percentiles over all of them, on one clock from the first run's start) and each run keeps its
// own throughput, so a comparison can put an interval on throughput (load/run_compare.h) as it
// does on latency. The server is watched once over the whole series.
#pragma once

#include "load/runner.h"

namespace servescope {

/// Passes the first run's baseline and start and the last run's finish to `inner`; the runs
/// between go straight on, the watcher ticking through them.
class RepeatObserver final : public PointObserver {
 public:
  RepeatObserver(PointObserver& inner, int run, int runs) : inner_(inner), run_(run), runs_(runs) {}
  void baseline(std::function<void()> ready) override;
  void start(double t0, std::function<int()> in_flight) override;
  void finish(std::function<void()> then) override;

 private:
  PointObserver& inner_;
  int run_, runs_;  // run from 1
};

/// One run's throughput as summarize_point counts it (measured requests from the first intended
/// send to the last end), without touching the run's data.
RunFigures run_figures(const PointData& run);

/// Appends `next` (a later run of the same point) to `pooled`: its times moved onto `pooled`'s
/// clock, its in-flight buckets after the gap between the runs, its counts added.
void pool_run(PointData& pooled, PointData&& next);

}  // namespace servescope
