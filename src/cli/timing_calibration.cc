#include "cli/timing_calibration.h"

#include <fmt/format.h>

#include <fstream>

#include "core/json_read.h"
#include "twin/calibration.h"

namespace servescope {

std::optional<nlohmann::json> bench_result_in(const std::string& path) {
  // A log (memory calibration) may be gigabytes: only a file that opens a JSON object is read.
  std::ifstream in(path, std::ios::binary);
  if (!in || (in >> std::ws).peek() != '{')
    return std::nullopt;
  auto doc = read_json_file(path, "--calibrate-from");
  if (!doc || !doc->is_object() || !doc->contains("points"))
    return std::nullopt;
  return std::move(*doc);
}

Result<std::vector<std::string>> read_saved_calibration(const std::string& path) {
  auto doc = read_json_file(path, "--calibration");
  if (!doc)
    return doc.error();
  auto items = efficiency_items_from(*doc);
  if (!items)
    return fail(fmt::format("--calibration {}: {}", path, items.message()));
  return items;
}

Status apply_efficiency(Efficiency& efficiency, const std::string& calibration_file,
                        const std::vector<std::string>& typed) {
  if (!calibration_file.empty()) {
    auto items = read_saved_calibration(calibration_file);
    if (!items)
      return items.error();
    if (Status st = efficiency.apply(*items); !st)
      return st;
  }
  return efficiency.apply(typed);
}

}  // namespace servescope
