// Delta debugging (Zeller's ddmin): the smallest subset of changes, 1-minimal, for which a
// test still reproduces the failure. Used by `diff` (on the model) and `bisect` (on real
// launches), so the test is a callback and every evaluation counts.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace servescope {

enum class DdminOutcome {
  kFail,        // the subset reproduces the observation
  kPass,        // it does not
  kUnresolved,  // the experiment could not tell (e.g. a launch that did not start)
};

struct DdminResult {
  std::vector<std::size_t> culprits;  // indices into the original change list, ascending
  std::size_t tests = 0;              // how many times `test` ran (cached repeats excluded)
  bool reproduced = false;            // the full set itself failed
};

/// `test(subset)` says whether applying exactly those changes (indices into 0..n-1) to the
/// baseline reproduces the observation. Assumes the empty set passes and tests the full set
/// first. Results are cached by subset, so repeated subsets cost nothing.
DdminResult ddmin(std::size_t n,
                  const std::function<DdminOutcome(const std::vector<std::size_t>&)>& test);

}  // namespace servescope
