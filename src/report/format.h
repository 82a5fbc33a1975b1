// Number and table formatting for people: thousands separators, aligned columns.
#pragma once

#include <string>
#include <vector>

#include "core/text.h"  // with_thousands
#include "core/value.h"

namespace servescope {

/// 2036790 -> "2,036,790"
/// A value with its unit as a person reads it: "2,036,790 tokens", "0.7851", "12,288 bytes/token".
std::string format_value(const Value& v, const std::string& unit);

/// Left-aligned columns separated by two spaces; the last column is not padded.
std::string render_columns(const std::vector<std::vector<std::string>>& rows,
                           const std::string& indent = "  ");

}  // namespace servescope
