// Phase A: what ServerArgs.__post_init__ resolves before any memory is measured —
// parallelism, context length, speculative defaults, CUDA-graph backends and batch sizes,
// the mamba radix-cache strategy, attention backend, page size, KV dtype and the FlashInfer
// allreduce fusion backend.
#pragma once

#include "core/result.h"
#include "engines/sglang/plan_context.h"

namespace servescope::sglang {

/// Fills ctx.args and records the nodes; fails on input SGLang itself rejects at argument
/// parsing (e.g. a context length above the model's without the override env var).
Status resolve_server_args(PlanContext& ctx);

}  // namespace servescope::sglang
