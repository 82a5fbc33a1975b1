// SGLang's KV arithmetic in the engine-neutral account (engines/plan.h). By R3.3–R4.6,
//   max_total_num_tokens = (A − P·(1 − mfs) − mamba/intermediate pools) · 2^30 // cell
//                        = (mfs·P − (P − A) − pools) · 2^30 // cell,
// so the fraction multiplies P (free memory before the weights load, not the device total),
// the weights are P − A, and activations and CUDA graphs live in the slack P·(1 − mfs):
// SGLang never subtracts them from the budget.
#include "engines/sglang/capacity_rules.h"

namespace servescope::sglang {

void fill_capacity_account(PlanContext& ctx) {
  const Derivation& g = ctx.graph();
  if (g.find("kv_cell_bytes") == nullptr || g.find("max_total_num_tokens") == nullptr)
    return;
  auto number = [&](const char* id) { return g.value(id).as_number(); };
  auto estimated = [&](const char* id) {
    const Node* n = g.find(id);
    return n != nullptr && n->origin == Origin::kEstimate;
  };
  const double p = number("free_before_load_gib");
  const double a = number("free_after_load_gib");
  const bool weights_estimated = g.find("weights_gib") != nullptr;
  const char* slack =
      "inside the slack P·(1 − mem_fraction_static) (R3.3), not taken from the budget";

  CapacityAccount& acc = ctx.plan.account;
  acc.tokens_output = "max_total_num_tokens";
  acc.request_limit_output =
      g.find("max_running_requests") != nullptr ? "max_running_requests" : "";
  acc.terms = {
      {AccountTermKind::kBase, p, "P: free memory before the weights load", "free_before_load_gib",
       "the device total less the CUDA context and NCCL buffers",
       estimated("free_before_load_gib")},
      {AccountTermKind::kFraction, number("mem_fraction_static"), "mem_fraction_static",
       "mem_fraction_static", "", false},
      {AccountTermKind::kWeights, p - a, "P − A: target and draft weights", "free_after_load_gib",
       "", weights_estimated || estimated("free_after_load_gib")},
      {AccountTermKind::kActivation, 0, "activations", "", slack, false},
      {AccountTermKind::kNonTorch, 0, "non-torch memory", "", slack, false},
      {AccountTermKind::kCudaGraphs, 0, "CUDA graphs", "", slack, false},
      {AccountTermKind::kOtherPools, 0, "mamba state and speculative intermediates", "", "", false},
      {AccountTermKind::kBytesPerToken, number("kv_cell_bytes"), "KV cell (bytes per token)",
       "kv_cell_bytes", "", false},
  };
  if (g.find("kv_budget_gib") != nullptr) {
    AccountTerm& pools = acc.terms[static_cast<int>(AccountTermKind::kOtherPools)];
    pools.value = number("rest_gib") - number("kv_budget_gib");
    pools.node = "kv_budget_gib";
    pools.note = "taken from the rest before the KV pool (R6.10)";
  }
}

}  // namespace servescope::sglang
