// The timing side of --calibrate-from and --calibration on simulate and twin: a bench --json run
// fits the cost model's factors (twin/calibration.h); a saved calibration supplies them.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "twin/cost_model.h"

namespace servescope {

/// The --calibrate-from file as a bench --json result (timing), or nullopt when it is something
/// else (a log: memory).
std::optional<nlohmann::json> bench_result_in(const std::string& path);

/// The --efficiency items of a saved calibration file (simulate --save-calibration).
Result<std::vector<std::string>> read_saved_calibration(const std::string& path);

/// `efficiency` from a saved calibration ("" for none), then the --efficiency items typed,
/// which win.
Status apply_efficiency(Efficiency& efficiency, const std::string& calibration_file,
                        const std::vector<std::string>& typed);

}  // namespace servescope
