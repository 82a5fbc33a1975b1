// `why OUTPUT=VALUE`: the inverse question. From a baseline scenario and an observed value the
// plan does not predict, search plausible changes — single changes, then pairs, numeric
// inputs solved by bisection — for those that reproduce it, rank them, and design the
// experiments (launch configurations) whose outcomes tell the survivors apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine.h"

namespace servescope {

struct Observation {
  std::string output;
  double observed = 0;
  std::optional<double> expected;
};

struct Hypothesis {
  std::vector<ScenarioChange> changes;
  double predicted = 0;
  bool exact = false;
  double score = 0;               // higher first (exact, fewer changes, prior likelihood)
  std::string solved_range;       // "59.71 … 59.93 GiB" for a solved numeric input
  std::vector<std::string> path;  // rule ids the change acts through
  std::string label() const;
};

struct Experiment {
  std::string description;              // "launch with --disable-radix-cache"
  std::vector<ScenarioChange> changes;  // on top of the baseline
  std::vector<std::string> predicted;   // per hypothesis (same order as WhyResult::hypotheses)
  std::size_t pairs_separated = 0;
};

struct WhyResult {
  std::string output;
  double observed = 0;
  std::optional<double> expected;
  double baseline = 0;
  bool baseline_starts = true;
  std::vector<Hypothesis> hypotheses;   // exact reproductions, ranked (at most `limit`)
  std::vector<Hypothesis> closest;      // when none is exact: nearest, ranked by distance
  std::vector<Experiment> experiments;  // the isolation plan for the top hypotheses
  std::size_t evaluations = 0;
  std::size_t candidates = 0;
};

/// Fails for an output the engine does not compute (the message lists the valid ones).
Result<WhyResult> explain_observation(const Engine& engine, const Scenario& scenario,
                                      const Observation& obs, std::size_t limit = 10);

}  // namespace servescope
