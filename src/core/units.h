// Byte units as the engines use them: SGLang prints "GB" computed with 1024^3, so every
// "GB" read from a log is a GiB here.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace servescope {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

inline double bytes_to_gib(double bytes) {
  return bytes / kGiB;
}
inline double gib_to_bytes(double gib) {
  return gib * kGiB;
}
inline double mib_to_gib(double mib) {
  return mib / 1024.0;
}

/// Python's round(x, ndigits): the decimal nearest to the exact binary value of x, ties (only
/// exact ones) to even — what CPython's float.__round__ computes with its correctly rounded
/// dtoa. 0.6125 is 0.61250000000000004… in binary, so it rounds to 0.613; scaling by 1000
/// first would make it the exact tie 612.5 and give 0.612. fmt's fixed formatting rounds the
/// exact binary value the same way.
inline double python_round(double x, int ndigits) {
  return std::strtod(fmt::format("{:.{}f}", x, ndigits).c_str(), nullptr);
}

/// Python's floor division for non-negative integers and int(x) truncation for doubles.
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

}  // namespace servescope
