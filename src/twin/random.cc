#include "twin/random.h"

#include <cmath>

namespace servescope {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

constexpr double kTwoPi = 6.283185307179586476925286766559;

}  // namespace

Random::Random(std::uint64_t seed) {
  for (std::uint64_t& s : s_)
    s = splitmix64(seed);
}

std::uint64_t Random::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Random::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

std::int64_t Random::uniform_int(std::int64_t low, std::int64_t high) {
  if (high <= low)
    return low;
  const auto span = static_cast<std::uint64_t>(high - low) + 1;
  return low + static_cast<std::int64_t>(next() % span);
}

double Random::exponential(double mean) {
  return -mean * std::log1p(-uniform());
}

double Random::normal(double mean, double sd) {
  const double u1 = 1.0 - uniform();  // (0, 1]
  const double u2 = uniform();
  return mean + sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

double Random::gamma(double shape, double mean) {
  if (shape <= 0)
    return mean;
  if (shape < 1) {
    // Gamma(k + 1, θ) · U^(1/k) is Gamma(k, θ); same scale θ = mean / k.
    const double g = gamma(shape + 1.0, mean * (shape + 1.0) / shape);
    return g * std::pow(uniform(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = normal(0, 1);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
      return d * v * mean / shape;
  }
}

}  // namespace servescope
