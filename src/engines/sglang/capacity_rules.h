// Phases B–E of SGLang's capacity derivation, each a rule function over the PlanContext:
// mem_fraction_static (R2.4–R2.9), the memory budget (R3), the mamba state pool (R6),
// the KV pool (R4) and max_running_requests (R5).
#pragma once

#include "engines/sglang/plan_context.h"

namespace servescope::sglang {

/// R2.4–R2.9: the static memory fraction, from the flag or the reserve heuristic.
void resolve_mem_fraction(PlanContext& ctx);

/// R3.1–R3.4: free memory before (P) and after (A) the weight load, the runtime slack and
/// the rest left for KV cache and mamba state. Estimates P and A when no calibration is
/// given, and says so.
void resolve_memory_budget(PlanContext& ctx);

/// R6.1–R6.10 and R5.8: per-request mamba state, the slot ratio and the mamba pool; takes
/// the pool out of the rest. No-op for models without linear attention.
void resolve_mamba_pool(PlanContext& ctx);

/// R4.1–R4.9: bytes per KV token and max_total_num_tokens.
void resolve_kv_pool(PlanContext& ctx);

/// R5.1–R5.7, R5.15: max_running_requests and the decode graphs actually captured.
void resolve_running_requests(PlanContext& ctx);

/// The plan's KV arithmetic (R3–R4) in the engine-neutral account (engines/plan.h), for the
/// cross-engine diff. Leaves the account empty when sizing stopped before the KV pool.
void fill_capacity_account(PlanContext& ctx);

}  // namespace servescope::sglang
