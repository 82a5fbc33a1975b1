// `check` over many logs: one row per log (compared, matched, what is missing) and a total,
// so a directory of runs reads as a table, not fifty reports.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/check.h"

namespace servescope {

struct CheckRow {
  std::string file;
  std::string engine;
  std::size_t stated = 0;  // capacity figures the log states
  std::optional<CheckResult> result;
  std::string error;  // why the log could not be checked
};

struct CheckTotals {
  std::size_t logs = 0, checked_logs = 0, stated = 0, compared = 0, matched = 0;
  // Not compared (an estimate stands where the log gives no figure), predicted over the
  // estimates' intervals; and of those, logged outside the interval.
  std::size_t predicted = 0, predicted_outside = 0;
};

CheckTotals check_totals(const std::vector<CheckRow>& rows);
/// The options that would check the most figures over all rows: each unchecked figure's, and
/// every stated figure of a log refused for want of a command or a model.
std::vector<std::pair<std::string, std::size_t>> what_would_check(
    const std::vector<CheckRow>& rows);
std::string render_check_table(const std::vector<CheckRow>& rows);
nlohmann::json check_table_to_json(const std::vector<CheckRow>& rows);

}  // namespace servescope
