// A seeded random source whose sequences are the same on every platform and library version
// (std::*_distribution are implementation-defined): xoshiro256** seeded by SplitMix64, with
// the distributions the workloads use written out here.
#pragma once

#include <cstdint>

namespace servescope {

class Random {
 public:
  explicit Random(std::uint64_t seed);

  std::uint64_t next();
  /// Uniform in [0, 1).
  double uniform();
  /// Uniform integer in [low, high].
  std::int64_t uniform_int(std::int64_t low, std::int64_t high);
  /// Exponential with the given mean.
  double exponential(double mean);
  /// Normal (Box–Muller, one draw per call).
  double normal(double mean, double sd);
  /// Gamma with shape k and the given mean (Marsaglia–Tsang).
  double gamma(double shape, double mean);

 private:
  std::uint64_t s_[4];
};

}  // namespace servescope
