// The launcher: the side effects of an experiment behind one small interface — starting a
// server (in its own process group, as a Slurm job or as a Kubernetes object), signalling and
// reaping it, an HTTP GET with a timeout, whether a port is free, a monotonic clock and
// sleeping. PosixProcessHost launches on this machine; SlurmHost (lab/slurm_host.h) submits
// each experiment as a job; KubernetesHost (lab/k8s_host.h) applies a manifest per experiment;
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
  std::string name;  // the experiment's name for a scheduler: "servescope-003"
};

/// Where a launched server runs, as its launcher knows it.
struct Placement {
  std::string launcher = "local";  // "local", "slurm", "k8s"
  std::string job_id;              // the scheduler's id ("" locally)
  std::string node;                // the node it runs on ("" while it waits in a queue)
  std::string state;               // the scheduler's state: "PENDING", "RUNNING", ...
  std::string reason;              // why it waits or ended, as the scheduler says
  double queued_seconds =
      -1;  // its wait in the queue by the scheduler's own clock (< 0: not known)
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
  /// True while a scheduler holds it in its queue: nothing of it runs yet.
  virtual bool queued() { return false; }
  /// Where it runs; the scheduler's view is refreshed at most once a poll interval.
  virtual Placement placement() { return {}; }
  /// The address its server listens on once it runs, for {host} in --ready and --scrape.
  virtual std::string host() { return "127.0.0.1"; }
  /// True when it ended because someone else cancelled it (a `scancel`, a deleted pod), not
  /// by exiting on its own or by our teardown.
  virtual bool cancelled_elsewhere() { return false; }
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
  /// Re-attaches to a server an earlier run launched (its Placement::job_id), if it still
  /// runs or waits; fails when it is gone or the launcher cannot re-attach.
  virtual Result<std::unique_ptr<ServerProcess>> attach(const std::string& job_id) {
    return fail("the local launcher cannot re-attach to " + job_id);
  }
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
