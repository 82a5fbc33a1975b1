#include "cli/timing_calibration.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "twin/calibration.h"

namespace servescope {

bool is_bench_result(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || in.peek() != '{')
    return false;
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  return !doc.is_discarded() && doc.is_object() && doc.contains("points");
}

Result<std::vector<std::string>> read_saved_calibration(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(fmt::format("--calibration {}: cannot read the file", path));
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded())
    return fail(fmt::format("--calibration {}: not valid JSON", path));
  auto items = efficiency_items_from(doc);
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
