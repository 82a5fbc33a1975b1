// One experiment: one launch of the server with one configuration, what happened, and what
// was measured. The journal stores these, one JSON object a line.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace servescope {

enum class ExperimentOutcome {
  kReady,         // it started, was measured and torn down
  kFailedStart,   // it exited, or printed the failure pattern, before it was ready
  kTimeout,       // not ready within the startup timeout
  kCrashed,       // ready, then it exited on its own before the measurement ended
  kInterrupted,   // the tool was interrupted (never journaled)
  kCancelled,     // someone else cancelled it (scancel): no verdict; never journaled as finished
  kQueueTimeout,  // it waited in the scheduler's queue past --queue-timeout (never journaled)
};
/// Outcomes that say nothing about the configuration: --resume launches it again.
bool inconclusive(ExperimentOutcome outcome);
std::string_view outcome_name(ExperimentOutcome outcome);
std::optional<ExperimentOutcome> parse_outcome(std::string_view name);

/// A log line (or HTTP response) that shows a measurement or a failure.
struct EvidenceLine {
  std::string file;  // relative to the run folder: "stderr.log"
  std::uint64_t line = 0;
  std::string text;
  std::string what;  // "max_running_requests", "startup failure", ...
};

struct ExperimentRecord {
  int id = 0;
  std::vector<std::string> changes;  // the changes applied to the good configuration (labels)
  std::vector<std::string> flags;    // the configuration's flag words
  // How it was launched.
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;
  int port = 0;
  std::string gpus;
  std::string launcher = "local";  // where it ran: "local", "slurm", "k8s"
  std::string job_id;              // the scheduler's job (Slurm) or object (Kubernetes)
  std::string node;                // the node it ran on ("" locally)
  double queued_seconds = 0;       // waited in the scheduler's queue before it ran
  bool reattached = false;         // this run re-attached to a job an earlier run launched
  std::string run_dir;             // relative to the bisect folder: "runs/003"
  // What happened (wall-clock seconds since the epoch; 0 = did not happen).
  double started_at = 0;
  double ready_at = 0;
  double stopped_at = 0;
  std::optional<int> exit_status;  // the leader's, once it exited
  bool killed = false;             // SIGTERM was not enough: the group got SIGKILL
  bool group_gone = true;          // no process of the group outlived the teardown
  bool port_released = true;
  ExperimentOutcome outcome = ExperimentOutcome::kReady;
  std::string failure;  // why it did not start or crashed, one line
  // What was measured.
  std::map<std::string, double> figures;  // every numeric capacity figure the log states
  std::vector<double> values;             // the metric, one per repeat
  std::optional<double> value;            // their median; nullopt when not measured
  std::vector<EvidenceLine> evidence;
  std::map<std::string, std::string> scraped;  // URL path → file in the run folder

  double startup_seconds() const { return ready_at > 0 ? ready_at - started_at : 0; }
  double seconds() const { return stopped_at > 0 ? stopped_at - started_at : 0; }
};

/// The identity of a configuration: its flag words, joined with one space (order matters:
/// the same flags in another order are launched again).
std::string configuration_key(const std::vector<std::string>& flags);

nlohmann::json to_json(const ExperimentRecord& record);
/// Reads a journal line's experiment; fails naming the missing or mistyped field.
Result<ExperimentRecord> experiment_from_json(const nlohmann::json& j);

/// The median of `values` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

}  // namespace servescope
