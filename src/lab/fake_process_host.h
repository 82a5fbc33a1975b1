// A scripted ProcessHost for unit tests: servers that write a log, become ready after a
// while (their port answers 200, a ready line is appended), exit on their own, or ignore
// SIGTERM — all on a virtual clock that only sleep() advances, so timeouts and grace periods
// are exact and instant. Log files are real (in the run folder the runner gives).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lab/process_host.h"

namespace servescope {

struct FakeServerScript {
  std::string log;                   // written to stderr at launch
  std::string ready_line;            // appended to stderr once ready ("" none)
  double ready_after = 1;            // seconds after launch it answers 200; < 0: never
  std::optional<double> exit_after;  // the server exits on its own this long after launch
  int exit_code = 1;
  std::string exit_log;       // appended to stderr when it exits on its own
  bool ignores_term = false;  // SIGTERM does nothing (SIGKILL still works)
  // As a scheduler's job: waits this long in the queue first (< 0: forever), and is cancelled
  // by someone else this long after launch. The other times count from launch regardless.
  double queued_for = 0;
  std::optional<double> cancelled_after;
};

class FakeProcessHost final : public ProcessHost {
 public:
  /// The script of each launch, from its spec (argv, env).
  std::function<FakeServerScript(const LaunchSpec&)> script;

  Result<std::unique_ptr<ServerProcess>> launch(const LaunchSpec& spec) override;
  HttpReply http_get(const std::string& url, std::chrono::milliseconds timeout) override;
  bool port_free(int port) override;
  int pick_port() override;
  double now() override;
  double wall_time() override;
  void sleep(double seconds) override;

  struct Server {
    LaunchSpec spec;
    FakeServerScript script;
    int port = 0;
    double launched_at = 0;
    bool alive = true;
    bool ready_written = false;
    std::optional<int> status;
    std::vector<int> signals;  // received, in order
    bool cancelled = false;    // by someone else (cancelled_after)
  };
  /// Every server launched, in order.
  const std::vector<std::shared_ptr<Server>>& servers() const { return servers_; }

 private:
  void advance();  // applies what the scripts say happens up to the current time

  std::recursive_mutex mutex_;
  double clock_ = 1000;
  int next_port_ = 20000;
  std::vector<std::shared_ptr<Server>> servers_;
};

}  // namespace servescope
