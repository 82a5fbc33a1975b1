// The twin's side effect on time: a monotonic clock for timing and a wall clock for log
// stamps, real or fake (tests advance the fake one by hand, so timings are exact).
#pragma once

#include <chrono>

namespace servescope {

class Clock {
 public:
  virtual ~Clock() = default;
  /// Monotonic seconds.
  virtual double now() const = 0;
  /// The wall-clock time at now().
  virtual std::chrono::system_clock::time_point wall() const = 0;
};

class RealClock final : public Clock {
 public:
  double now() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::chrono::system_clock::time_point wall() const override {
    return std::chrono::system_clock::now();
  }
};

class FakeClock final : public Clock {
 public:
  double now() const override { return now_; }
  std::chrono::system_clock::time_point wall() const override {
    return std::chrono::system_clock::time_point{} +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(
               std::chrono::duration<double>(now_));
  }
  void set(double t) { now_ = t; }
  void advance(double dt) { now_ += dt; }

 private:
  double now_ = 1000.0;
};

}  // namespace servescope
