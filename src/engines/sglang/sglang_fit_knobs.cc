// What `fit` turns on an SGLang command (engines/fit_knobs.h).
#include "engines/sglang/sglang_engine.h"

namespace servescope::sglang {

const FitKnobs* SglangEngine::fit_knobs() const {
  static const FitKnobs kKnobs = [] {
    FitKnobs k;
    k.tensor_parallel = "--tp-size";
    k.pipeline_parallel = "--pp-size";
    k.data_parallel = "--dp-size";
    k.nodes = "--nnodes";
    k.node_rank = "--node-rank";
    k.memory_fraction = "--mem-fraction-static";
    k.context = "--context-length";
    k.request_limit = "--max-running-requests";
    k.kv_cache_dtype = "--kv-cache-dtype";
    k.fp8_kv_cache = "fp8_e4m3";
    k.model_flag = "--model-path";
    k.model_canonical = "--model-path";
    k.data_parallel_inside_tp = "--enable-dp-attention";
    k.kv_tokens_output = "max_total_num_tokens";
    k.request_limit_output = "max_running_requests";
    k.context_output = "context_len";
    k.fraction_output = "mem_fraction_static";
    // SGLang states no concurrency: N requests of L tokens are resident at once when the pool
    // holds N·L tokens and the running-request limit is at least N.
    k.concurrency_output = "";
    k.concurrency_at_context_flag = false;
    k.fraction_low = 0.70;
    k.fraction_high = 0.93;
    k.image_repository = "lmsysorg/sglang";
    k.multi_node_note =
        "run the same command on every node with --node-rank 1..N-1 and --dist-init-addr set "
        "to node 0's address:port";
    return k;
  }();
  return &kKnobs;
}

}  // namespace servescope::sglang
