// RFC 4180 CSV reading (quoted fields, embedded commas and newlines) through libcsv.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

/// Rows of fields; fails naming the byte where the text stops being valid CSV.
Result<std::vector<std::vector<std::string>>> read_csv(std::string_view text);

}  // namespace servescope
