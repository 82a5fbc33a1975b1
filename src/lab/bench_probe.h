// The seam between `bisect` and the load generator: one measurement of a bench figure against
// a ready server. The real implementation runs the load library with the user's --bench
// options and the metric's load point; tests use a fake.
#pragma once

#include <string>

#include "core/result.h"
#include "lab/metric.h"

namespace servescope {

class BenchProbe {
 public:
  virtual ~BenchProbe() = default;
  /// Runs one load test against `base_url` ("http://127.0.0.1:PORT") and returns the
  /// metric's figure; writes its JSON export to `json_path`.
  virtual Result<double> measure(const std::string& base_url, const MetricSpec& metric,
                                 const std::string& json_path) = 0;
};

}  // namespace servescope
