// What a run's log says, for `bisect`: the capacity figures the engine's log grammar reads
// (engine-neutral: the engine maps its facts to output names through scenario_from_log), the
// lines that state them, and the problems the log reports (startup failures, errors).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engines/engine.h"
#include "lab/experiment.h"

namespace servescope {

struct LogEvidence {
  std::string engine;  // the engine whose lines were recognised, "" when none
  std::map<std::string, double> figures;
  std::map<std::string, EvidenceLine> figure_lines;
  std::vector<EvidenceLine> problems;
};

/// Reads `files` (names inside `run_dir`, e.g. stderr.log then stdout.log) through the log
/// reader; the first file a grammar recognises is used. `engine` nullptr: detected.
LogEvidence read_log_evidence(const std::string& run_dir, const std::vector<std::string>& files,
                              const Engine* engine);

/// The last `count` non-empty lines of a file (a failed start's explanation when the log
/// grammar recognised nothing).
std::vector<EvidenceLine> tail_lines(const std::string& run_dir, const std::string& file,
                                     std::size_t count);

}  // namespace servescope
