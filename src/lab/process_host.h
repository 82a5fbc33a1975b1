// The side effects of an experiment behind one small interface: starting a server in its own
// process group, signalling and reaping that group, an HTTP GET with a timeout, whether a
// port is free, a monotonic clock and sleeping. PosixProcessHost is the real one;
// FakeProcessHost (lab/fake_process_host.h) scripts servers for unit tests.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace servescope {

struct LaunchSpec {
  std::vector<std::string> argv;                         // argv[0] is looked up in PATH
  std::vector<std::pair<std::string, std::string>> env;  // set on top of the tool's environment
  std::string cwd;                                       // "" = the tool's
  std::string stdout_path;
  std::string stderr_path;
};

/// A launched server: the leader of its own process group (pgid == pid).
class ServerProcess {
 public:
  virtual ~ServerProcess() = default;
  virtual int pid() const = 0;
  /// The leader's exit status once it has exited — its code, or 128 + the signal — else
  /// nullopt. Never blocks; reaps whatever of the group has exited.
  virtual std::optional<int> exit_status() = 0;
  /// Sends `signal` to every process of the group.
  virtual void signal_group(int signal) = 0;
  /// True while any process of the group is alive.
  virtual bool group_alive() = 0;
};

struct HttpReply {
  int status = 0;  // 0: no HTTP response (see error)
  std::string body;
  std::string error;  // "connection refused", "timed out", ...
};

class ProcessHost {
 public:
  virtual ~ProcessHost() = default;
  /// Starts `spec` in a new process group, stdout and stderr to the given files. A program
  /// that cannot be executed still launches: the child exits with 127 and says why on stderr.
  virtual Result<std::unique_ptr<ServerProcess>> launch(const LaunchSpec& spec) = 0;
  /// GET `url` (http:// only), at most `timeout` in all.
  virtual HttpReply http_get(const std::string& url, std::chrono::milliseconds timeout) = 0;
  /// Whether nothing listens on 127.0.0.1:port (a bind would succeed).
  virtual bool port_free(int port) = 0;
  /// A port nothing listens on, not handed out before by this host.
  virtual int pick_port() = 0;
  /// Seconds on a monotonic clock.
  virtual double now() = 0;
  /// Seconds since the Unix epoch, for the journal.
  virtual double wall_time() = 0;
  virtual void sleep(double seconds) = 0;
};

}  // namespace servescope
