#include "diagnose/cross_engine_diff.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace servescope {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The account's terms by kind, so one side's values can be swapped for the other's.
using Terms = std::array<double, kAccountTermKinds>;

Terms values_of(const CapacityAccount& acc) {
  Terms t{};
  for (int k = 0; k < kAccountTermKinds; ++k)
    t[static_cast<std::size_t>(k)] = acc.terms[static_cast<std::size_t>(k)].value;
  return t;
}

double at(const Terms& t, AccountTermKind kind) {
  return t[static_cast<std::size_t>(kind)];
}

double budget_gib(const Terms& t) {
  return at(t, AccountTermKind::kFraction) * at(t, AccountTermKind::kBase) -
         at(t, AccountTermKind::kWeights) - at(t, AccountTermKind::kActivation) -
         at(t, AccountTermKind::kNonTorch) - at(t, AccountTermKind::kCudaGraphs) -
         at(t, AccountTermKind::kOtherPools);
}

// Tokens the shared formula gives: the budget over the per-token cost, no rounding.
double modelled_tokens(const Terms& t) {
  const double per_token = at(t, AccountTermKind::kBytesPerToken);
  if (per_token <= 0)
    return 0;
  return std::max(0.0, budget_gib(t)) * kGiB / per_token;
}

double output_number(const Plan& plan, const std::string& id) {
  if (id.empty() || plan.graph.find(id) == nullptr)
    return 0;
  return plan.graph.value(id).as_number();
}

}  // namespace

std::string_view account_term_name(AccountTermKind kind) {
  switch (kind) {
    case AccountTermKind::kBase:
      return "memory the fraction applies to";
    case AccountTermKind::kFraction:
      return "memory fraction";
    case AccountTermKind::kWeights:
      return "weights";
    case AccountTermKind::kActivation:
      return "activation peak";
    case AccountTermKind::kNonTorch:
      return "non-torch memory";
    case AccountTermKind::kCudaGraphs:
      return "CUDA graphs";
    case AccountTermKind::kOtherPools:
      return "other pools";
    case AccountTermKind::kBytesPerToken:
      return "KV bytes per token";
  }
  return "";
}

bool account_term_is_gib(AccountTermKind kind) {
  return kind != AccountTermKind::kFraction && kind != AccountTermKind::kBytesPerToken;
}

Result<CrossEngineDiff> diff_across_engines(const Engine& engine_a, const Scenario& a,
                                            const Engine& engine_b, const Scenario& b) {
  auto pa = engine_a.plan(a);
  if (!pa)
    return fail("A: " + pa.message());
  auto pb = engine_b.plan(b);
  if (!pb)
    return fail("B: " + pb.message());
  for (const auto& [side, plan] : {std::pair{"A", &*pa}, std::pair{"B", &*pb}}) {
    if (!plan->starts)
      return fail(fmt::format("diff: {} ({}) would not start ({}); compare capacity once it starts",
                              side, plan->engine, plan->startup_error));
    if (plan->account.empty())
      return fail(fmt::format("diff: {} ({}) sizes no KV cache to compare", side, plan->engine));
  }

  CrossEngineDiff d;
  d.a = std::move(*pa);
  d.b = std::move(*pb);
  d.engine_a = std::string(engine_a.name());
  d.engine_b = std::string(engine_b.name());
  const Terms ta = values_of(d.a.account);
  const Terms tb = values_of(d.b.account);
  d.budget_gib_a = budget_gib(ta);
  d.budget_gib_b = budget_gib(tb);
  d.modelled_a = modelled_tokens(ta);
  d.modelled_b = modelled_tokens(tb);
  d.tokens_a = output_number(d.a, d.a.account.tokens_output);
  d.tokens_b = output_number(d.b, d.b.account.tokens_output);
  d.residual_a = d.tokens_a - d.modelled_a;
  d.residual_b = d.tokens_b - d.modelled_b;
  d.request_limit_a = output_number(d.a, d.a.account.request_limit_output);
  d.request_limit_b = output_number(d.b, d.b.account.request_limit_output);

  // Sequential substitution: swap A's terms for B's one at a time, in the account's order.
  Terms current = ta;
  double before = d.modelled_a;
  for (int k = 0; k < kAccountTermKinds; ++k) {
    const auto idx = static_cast<std::size_t>(k);
    current[idx] = tb[idx];
    const double after = modelled_tokens(current);
    d.steps.push_back({static_cast<AccountTermKind>(k), d.a.account.terms[idx],
                       d.b.account.terms[idx], after - before});
    before = after;
  }

  if (a.model.source != b.model.source)
    d.notes.push_back(
        fmt::format("A serves {} and B serves {}: the comparison is of different models",
                    a.model.source, b.model.source));
  if (a.hardware.gpu.key != b.hardware.gpu.key)
    d.notes.push_back(
        fmt::format("A runs on {} and B on {}", a.hardware.gpu.key, b.hardware.gpu.key));
  for (const auto& [side, plan] : {std::pair{"a", &d.a}, std::pair{"b", &d.b}}) {
    std::string estimated;
    for (const AccountTerm& t : plan->account.terms) {
      if (t.estimated)
        estimated += (estimated.empty() ? "" : ", ") + std::string(account_term_name(t.kind));
    }
    if (!estimated.empty())
      d.notes.push_back(fmt::format(
          "{} estimates {} ({}); --{}-calibrate-from LOG makes them "
          "exact",
          side[0] == 'a' ? "A" : "B", estimated, side[0] == 'a' ? d.engine_a : d.engine_b, side));
  }
  return d;
}

}  // namespace servescope
