// `servescope logs FILE` for people: engine and inferred version with its evidence, model,
// GPU and parallel sizes, the startup capacity figures with their lines, problems, the
// batch-line timeline as sparklines, and what was not recognised.
#pragma once

#include <string>
#include <vector>

#include "evidence/log_facts.h"

namespace servescope {

std::string render_logs_text(const LogFacts& facts, const std::string& file_name);

/// Unicode sparkline of `values` (negative = no data, shown as a space), resampled to at
/// most `width` columns by taking the maximum (or the mean when `mean`) of each column.
std::string sparkline(const std::vector<double>& values, std::size_t width, bool mean = false);

}  // namespace servescope
