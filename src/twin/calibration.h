// The cost model calibrated from a measured run (`simulate --calibrate-from RUN.json`): the
// efficiency factors — memory bandwidth, compute, the fixed cost of a step and of each layer in
// a pass, the cost of each sequence in it and a request's cost before the scheduler — fitted so
// that the simulation of each measured point (same loop, load and lengths) reproduces its median
// TTFT, median TPOT and throughput. Nelder–Mead on the squared log errors with a weak pull toward
// the starting factors (which one load cannot tell apart); each factor's interval is where that
// loss stays within twice its minimum (a profile, the others held at their fit), which is wide
// where the points cannot tell two factors apart.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/scenario.h"
#include "engines/twin_profile.h"
#include "twin/cost_model.h"

namespace servescope {

/// One point of a `bench --json` run, as the simulation needs it.
struct MeasuredPoint {
  bool closed_loop = true;
  double concurrency = 1;
  double rate = 0;
  std::int64_t requests = 0;
  std::int64_t input_len = 0;   // mean prompt tokens (as reported, else as asked)
  std::int64_t output_len = 0;  // mean output tokens
  double ttft_p50_ms = 0, tpot_p50_ms = 0, requests_per_s = 0;
  int runs = 1;        // measurements of this load merged into the point (their medians)
  std::string spread;  // with runs > 1: each figure's range across them ("TTFT p50 6.7–119 ms")
  std::string label() const;
};

/// The points of a bench --json document; fails naming what it lacks. Points of the same load
/// and lengths (a load measured again: `--concurrency 1,1,1`) become one point holding each
/// figure's median, so one stalled run cannot pull the fit.
Result<std::vector<MeasuredPoint>> measured_points(const nlohmann::json& bench);

struct CalibrationResidual {
  std::string point, metric;
  double measured = 0, before = 0, after = 0;  // simulated with the starting and fitted factors
};

struct FactorFit {
  std::string name;
  double value = 0, low = 0, high = 0;
};

struct CostCalibration {
  Efficiency efficiency;  // the fitted factors (the others as they started)
  std::vector<FactorFit> factors;
  std::vector<CalibrationResidual> residuals;
  double loss_before = 0, loss_after = 0;  // mean squared log error over the figures
  std::vector<std::string> merged;         // loads measured more than once: the runs' ranges
  std::string source;
};

/// A measured point with the scenario it was measured on.
struct CalibrationCase {
  const Scenario* scenario = nullptr;
  const ServingShape* shape = nullptr;
  MeasuredPoint point;
};

/// Requests a measured point is simulated with at most (a longer run repeats the same load).
inline constexpr std::int64_t kMaxSimulatedRequests = 1000;

/// Fits the factors to points measured on several scenarios at once (the cost defaults: every
/// published result of one engine on one GPU family); `intervals`: profile each factor;
/// `iterations`: Nelder–Mead's, twice (the second from where the first stopped).
Result<CostCalibration> calibrate_cost_model(const std::vector<CalibrationCase>& cases,
                                             const Efficiency& start, bool intervals,
                                             int iterations = 200);

/// Fits bandwidth, compute, step_overhead_us, per_sequence_us, layer_overhead_us and
/// request_overhead_us from
/// `start` to the points.
Result<CostCalibration> calibrate_cost_model(const Scenario& scenario, const ServingShape& shape,
                                             const Efficiency& start,
                                             const std::vector<MeasuredPoint>& points);

/// Simulated figures of one point under the factors (for the residuals and for tests).
Result<MeasuredPoint> simulate_point(const Scenario& scenario, const ServingShape& shape,
                                     const Efficiency& efficiency, const MeasuredPoint& like);

nlohmann::json calibration_json(const CostCalibration& c);
/// The factors of a saved calibration as --efficiency items ("bandwidth=0.61", ...).
Result<std::vector<std::string>> efficiency_items_from(const nlohmann::json& saved);
std::string render_calibration_text(const CostCalibration& c);

}  // namespace servescope
