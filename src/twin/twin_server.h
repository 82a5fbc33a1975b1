// The twin server: plays the engine over HTTP from a plan. It prints the engine's startup log
// (or its failure), listens where the launch command says, serves the engine's API with every
// token timed by the serving loop, prints the periodic scheduler lines, and stops on SIGTERM or
// SIGINT. Boost.Asio with one thread unless told otherwise.
#pragma once

#include <cstdint>
#include <string>

#include "engines/twin_profile.h"
#include "twin/cost_model.h"
#include "twin/serving_loop.h"

namespace servescope {

struct TwinServerOptions {
  double speed = 1;
  double jitter = 0;  // ServingLoopOptions::jitter
  double startup_seconds = 0;
  int threads = 1;
  TwinFaults faults;
  std::uint64_t seed = 1;
  std::size_t max_body_bytes = 32u << 20;
  bool access_log = true;
};

class TwinServer {
 public:
  /// `cost` may be null when the plan says the engine would not start (only its log is printed).
  TwinServer(const Scenario& scenario, const Plan& plan, const TwinProfile& profile,
             ServingShape shape, const CostModel* cost, TwinServerOptions options, LogSink& log);

  /// Serves until a signal. Returns the process exit status: 0 after SIGTERM, 130 after
  /// SIGINT, 1 when the plan says the engine would not start (after its error lines), 2 when
  /// the address cannot be bound (after one line on `log`). The crash-after fault ends the
  /// process itself with status 1.
  int run();

 private:
  int fail_to_start();

  const Scenario& scenario_;
  const Plan& plan_;
  const TwinProfile& profile_;
  ServingShape shape_;
  const CostModel* cost_;
  TwinServerOptions options_;
  LogSink& log_;
};

/// Writes each line to a stdio stream and flushes it.
class StreamLog final : public LogSink {
 public:
  explicit StreamLog(std::FILE* stream) : stream_(stream) {}
  void write(const std::string& line) override;

 private:
  std::FILE* stream_;
};

}  // namespace servescope
