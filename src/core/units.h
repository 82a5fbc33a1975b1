// Byte units as the engines use them: SGLang prints "GB" computed with 1024^3, so every
// "GB" read from a log is a GiB here.
#pragma once

#include <cmath>
#include <cstdint>

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

/// Python's round(x, ndigits) for the values the engines round (round-half-even on the
/// binary value, as CPython does for floats that are not exact ties).
inline double python_round(double x, int ndigits) {
  const double scale = std::pow(10.0, ndigits);
  const double scaled = x * scale;
  double rounded = std::nearbyint(scaled);  // default rounding mode: half to even
  if (std::fabs(scaled - std::trunc(scaled)) != 0.5)
    rounded = std::round(scaled);
  return rounded / scale;
}

/// Python's floor division for non-negative integers and int(x) truncation for doubles.
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

}  // namespace servescope
