// The search strategies of `bisect`, over an abstract set of trials: each trial applies a
// subset of the changes (indices, ascending) to the good configuration and says whether it
// reproduces the bad value (kFail), does not (kPass), or could not tell (kUnresolved: it did
// not start, crashed, or timed out). The same algorithms run on real launches and on the
// model's predictions, so `guided` is the model's answer checked by the fewest launches.
//
//   one-at-a-time  the manual method: each change alone on the good configuration; when no
//                  single change reproduces, each change removed from the bad one.
//   ddmin          an optimistic bisection first (one culprit: ⌈log2 n⌉ trials, then one to
//                  test it alone and one to test everything else without it), falling back to
//                  Zeller's ddmin (core/ddmin.h) when an interaction or a failed start defeats
//                  it; repeated while the changes left still reproduce (several causes).
//   guided         the model's culprit sets first, each confirmed by two trials (the set alone
//                  reproduces, everything else does not) and, for a set of several changes,
//                  one trial per member removed; ddmin on what the model got wrong.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/ddmin.h"

namespace servescope {

using Subset = std::vector<std::size_t>;

class Trials {
 public:
  virtual ~Trials() = default;
  /// The outcome of each subset, in order; implementations may run them at once and must
  /// answer a subset they ran before without running it again.
  virtual std::vector<DdminOutcome> run(const std::vector<Subset>& subsets) = 0;
  /// How many trials can run at once (batches are cut to this size by the caller or not).
  virtual int parallel() const { return 1; }
  /// True once the run was interrupted: every trial then answers kUnresolved.
  virtual bool stopped() const { return false; }

  DdminOutcome one(const Subset& subset) { return run({subset})[0]; }
};

struct SearchResult {
  std::vector<Subset> culprits;         // each a minimal set that reproduces the bad value alone
  std::vector<std::string> notes;       // how the search went, for the report
  std::vector<std::string> model_gaps;  // guided: where the model's answer was refuted
};

/// `labels` name the n changes in notes. Each assumes the full set reproduces the bad value
/// (the bad endpoint) and the empty set does not (the good one).
SearchResult search_one_at_a_time(const std::vector<std::string>& labels, Trials& trials);
SearchResult search_ddmin(const std::vector<std::string>& labels, Trials& trials);
/// `model` answers from the model's predictions.
SearchResult search_guided(const std::vector<std::string>& labels, Trials& real, Trials& model);

}  // namespace servescope
