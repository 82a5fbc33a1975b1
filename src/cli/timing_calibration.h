// The timing side of --calibrate-from and --calibration on simulate and twin: a bench --json run
// fits the cost model's factors (twin/calibration.h); a saved calibration supplies them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace servescope {

/// Whether a --calibrate-from file is a bench --json result (timing) rather than a log (memory).
bool is_bench_result(const std::string& path);

/// The --efficiency items of a saved calibration file (simulate --save-calibration).
Result<std::vector<std::string>> read_saved_calibration(const std::string& path);

}  // namespace servescope
