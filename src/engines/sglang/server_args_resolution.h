// Phase A: what ServerArgs.__post_init__ resolves before any memory is measured —
// parallelism, context length, speculative defaults, CUDA-graph backends and batch sizes,
// the mamba radix-cache strategy, attention backend, page size, KV dtype and the FlashInfer
// allreduce fusion backend.
#pragma once

#include <initializer_list>
#include <string_view>

#include "core/result.h"
#include "engines/sglang/plan_context.h"

namespace servescope::sglang {

/// Fills ctx.args and records the nodes; fails on input SGLang itself rejects at argument
/// parsing (e.g. a context length above the model's without the override env var).
Status resolve_server_args(PlanContext& ctx);

/// R2.1–R2.3 and §9.3 (cuda_graphs.cc): chunked prefill, decode and prefill CUDA-graph
/// backends and batch sizes, in the form of the rule variant in force.
void resolve_cuda_graphs(PlanContext& ctx);

/// R8.2: with DP attention SGLang divides chunked_prefill_size after the memory heuristic
/// has used the undivided value; records the final chunked_prefill_size.
void resolve_dp_attention_chunking(PlanContext& ctx);

/// R2.10–R2.11 (attention_backend.cc): the attention backend and page size — model overrides,
/// the default backend, the backend's page-size snaps and the page-size default.
void resolve_attention_backend_and_page_size(PlanContext& ctx);

/// Whether the architecture is in one of SGLang's lists (a small helper shared by the rules).
bool contains_arch(std::initializer_list<std::string_view> list, std::string_view arch);

}  // namespace servescope::sglang
