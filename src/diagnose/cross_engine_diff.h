// Cross-engine `diff`: two engines' plans for the same model and GPU, set side by side term
// by term in the shared KV account (engines/plan.h), and the token difference split into what
// each term contributes.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine.h"

namespace servescope {

/// One term of the account on both sides, and the tokens that swapping A's value for B's
/// moves, with the terms before it already swapped (sequential substitution, in the account's
/// order: the steps sum exactly to the modelled difference).
struct CrossTermStep {
  AccountTermKind kind = AccountTermKind::kBase;
  AccountTerm a, b;
  double tokens_delta = 0;
};

struct CrossEngineDiff {
  Plan a, b;
  std::string engine_a, engine_b;
  std::vector<CrossTermStep> steps;
  double budget_gib_a = 0, budget_gib_b = 0;  // fraction × base − the subtractions
  double modelled_a = 0, modelled_b = 0;      // budget · 2^30 / bytes per token
  double tokens_a = 0, tokens_b = 0;          // the engines' own figures
  double residual_a = 0, residual_b = 0;      // tokens − modelled: page rounding, caps, headroom
  double request_limit_a = 0, request_limit_b = 0;  // 0: no such output
  std::vector<std::string> notes;                   // model or GPU differ, estimates
};

/// The term-by-term comparison; fails when either plan has no KV account (the engine would
/// not start, or sizing is not modelled).
Result<CrossEngineDiff> diff_across_engines(const Engine& engine_a, const Scenario& a,
                                            const Engine& engine_b, const Scenario& b);

/// What a term is called in the report.
std::string_view account_term_name(AccountTermKind kind);
/// Whether a term is in GiB (the rest: a fraction, bytes per token).
bool account_term_is_gib(AccountTermKind kind);

}  // namespace servescope
