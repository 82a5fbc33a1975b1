// The bisect journal, DIR/journal.jsonl: a header line naming the run (template, metric,
// good and bad flags) and one line per finished experiment, appended and flushed to disk when
// the experiment completes, so a crash loses at most the experiment that was running.
// `--resume` reads it back: a header that does not match the run is an error (a different
// bisection), a torn last line is dropped with a note, and every finished configuration is
// reused instead of launched again. A scheduler's job is also recorded when it is submitted
// (a {"launched": {...}} line with its job id), so a resumed run re-attaches to a job that
// still runs instead of submitting the configuration again.
#pragma once

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/experiment.h"

namespace servescope {

class Journal {
 public:
  /// Starts a new journal at `path` with `header`; fails if it exists (resume instead).
  static Result<Journal> create(const std::string& path, const nlohmann::json& header);
  /// Opens an existing journal whose header must equal `header`; fails naming the field that
  /// differs. A missing journal starts a new one.
  static Result<Journal> resume(const std::string& path, const nlohmann::json& header);

  Journal(Journal&& other) noexcept;
  Journal& operator=(Journal&&) = delete;
  ~Journal();

  /// Appends one finished experiment (one write, then fsync). Thread-safe.
  Status append(const ExperimentRecord& record);
  /// Appends that a scheduler job was submitted for an experiment (id, flags, run folder,
  /// job id). Thread-safe.
  Status append_launched(const ExperimentRecord& record);

  /// The experiments read back on resume, in journal order.
  const std::vector<ExperimentRecord>& previous() const { return previous_; }
  /// The finished experiment of a configuration (by configuration_key), or nullptr.
  const ExperimentRecord* find(const std::string& key) const;
  /// A configuration an earlier run submitted as a job but did not finish (id, run_dir,
  /// launcher and job_id set), or nullptr.
  const ExperimentRecord* in_flight(const std::string& key) const;
  /// The largest experiment id seen so far.
  int last_id() const { return last_id_; }
  /// Notes about what was read (a torn last line).
  const std::vector<std::string>& notes() const { return notes_; }
  const std::string& path() const { return path_; }

 private:
  Journal() = default;
  Status open_for_append();

  std::string path_;
  int fd_ = -1;
  std::vector<ExperimentRecord> previous_;
  std::map<std::string, std::size_t> by_key_;
  std::map<std::string, ExperimentRecord> in_flight_;
  int last_id_ = 0;
  std::vector<std::string> notes_;
  std::mutex mutex_;
};

}  // namespace servescope
