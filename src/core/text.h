// Small string helpers shared by parsers and renderers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
std::string to_lower(std::string_view s);
std::string to_upper(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
bool contains(std::string_view haystack, std::string_view needle);

/// 2079216 → "2,079,216".
std::string with_thousands(long long n);

/// Strict number parsing: the whole string must be the number.
std::optional<long long> parse_int(std::string_view s);
std::optional<double> parse_double(std::string_view s);

/// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);
/// Up to `limit` candidates closest to `word` (by edit distance, then substring match).
std::vector<std::string> closest(std::string_view word, const std::vector<std::string>& candidates,
                                 std::size_t limit = 3);

/// Splits a shell-like command string into words: whitespace separates, single and double
/// quotes group, backslash escapes. No expansion of any kind.
std::optional<std::vector<std::string>> split_command_line(std::string_view line);

}  // namespace servescope
