// Small inline text tests the engines' log grammars share; they run on every log line, so
// they stay in the header where the compiler can inline them.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <string_view>

namespace servescope::log_text {

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool starts_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && std::memcmp(s.data(), p.data(), p.size()) == 0;
}
inline bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() &&
         std::memcmp(s.data() + s.size() - p.size(), p.data(), p.size()) == 0;
}
inline bool has(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}
/// Case-insensitive search for a needle given in lower case.
inline bool has_icase(std::string_view s, std::string_view lower_needle) {
  if (lower_needle.empty() || s.size() < lower_needle.size())
    return false;
  for (std::size_t i = 0; i + lower_needle.size() <= s.size(); ++i) {
    std::size_t k = 0;
    while (k < lower_needle.size()) {
      char c = s[i + k];
      if (c >= 'A' && c <= 'Z')
        c = static_cast<char>(c - 'A' + 'a');
      if (c != lower_needle[k])
        break;
      ++k;
    }
    if (k == lower_needle.size())
      return true;
  }
  return false;
}
/// The GPU a kernel-config path names — "…/E=128,N=768,device_name=NVIDIA_H100_80GB_HBM3.json",
/// printed by both engines' fused-MoE and FP8 kernels when they look for a tuned config — as
/// the driver names it ("NVIDIA H100 80GB HBM3"), or "" when the line has none. Many logs name
/// the GPU nowhere else.
inline std::string gpu_of_kernel_config(std::string_view line) {
  constexpr std::string_view kKey = "device_name=";
  const std::size_t at = line.find(kKey);
  if (at == std::string_view::npos)
    return {};
  std::string out;
  for (char c : line.substr(at + kKey.size())) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      break;
    out += c == '_' ? ' ' : c;
  }
  return out;
}

/// `s` without its first `prefix.size()` bytes (the caller has matched the prefix).
inline std::string_view after(std::string_view s, std::string_view prefix) {
  return s.substr(std::min(prefix.size(), s.size()));
}

inline bool is_open_bracket(char c) {
  return c == '(' || c == '[' || c == '{';
}
inline bool is_close_bracket(char c) {
  return c == ')' || c == ']' || c == '}';
}

/// Python and JSON nesting, read one character at a time: inside a quoted string (backslash
/// escapes skipped) nothing nests; outside, brackets of any kind open and close.
struct Nesting {
  int depth = 0;
  char quote = 0;  // the open string's quote character, 0 outside strings

  /// Reads text[i]; returns the index of the next character to read.
  std::size_t step(std::string_view text, std::size_t i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\')
        return i + 2;
      if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (is_open_bracket(c)) {
      ++depth;
    } else if (is_close_bracket(c)) {
      --depth;
    }
    return i + 1;
  }
  /// Outside every string and bracket.
  bool at_top() const { return quote == 0 && depth <= 0; }
};

}  // namespace servescope::log_text
