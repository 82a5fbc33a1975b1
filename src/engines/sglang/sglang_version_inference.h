// Which SGLang main-branch dates a log can come from, from the forms of its lines and the
// fields of its ServerArgs dump (sglang-history.md §11, §4, §7.1, §8), the date it was
// printed on, and any version it prints.
#pragma once

#include <vector>

#include "engines/log_grammar.h"

namespace servescope::sglang {

/// Each observation implies a date range (VersionEvidence). The result is the range where
/// the most evidence agrees (weights: run date 3, line and field forms 2, absences and
/// printed versions 1); evidence outside it is marked conflicting and the result
/// inconsistent — a patched tree or a release with cherry-picks, said out loud.
VersionInference infer_sglang_version(const std::vector<Fact>& facts);

}  // namespace servescope::sglang
