// What `fit` turns on a vLLM command (engines/fit_knobs.h).
#include "engines/vllm/vllm_engine.h"

namespace servescope::vllm {

const FitKnobs* VllmEngine::fit_knobs() const {
  static const FitKnobs kKnobs = [] {
    FitKnobs k;
    k.tensor_parallel = "--tensor-parallel-size";
    k.pipeline_parallel = "--pipeline-parallel-size";
    k.data_parallel = "--data-parallel-size";
    k.nodes = "--nnodes";
    k.node_rank = "--node-rank";
    k.memory_fraction = "--gpu-memory-utilization";
    k.context = "--max-model-len";
    k.request_limit = "--max-num-seqs";
    k.kv_cache_dtype = "--kv-cache-dtype";
    k.fp8_kv_cache = "fp8";
    k.model_flag = "";
    k.model_canonical = "--model";
    k.kv_tokens_output = "gpu_kv_cache_size_tokens";
    k.request_limit_output = "max_num_seqs";
    k.context_output = "max_model_len";
    k.fraction_output = "gpu_memory_utilization";
    // "Maximum concurrency for {max_model_len} tokens per request" (V5.x): stated at the
    // context length in force, so a target at L launches with --max-model-len L.
    k.concurrency_output = "maximum_concurrency";
    k.concurrency_at_context_flag = true;
    k.fraction_low = 0.80;
    k.fraction_high = 0.95;
    k.image_repository = "vllm/vllm-openai";
    k.multi_node_note =
        "run the same command on every node with --node-rank 1..N-1, --master-addr set to "
        "node 0's address and --headless on the workers";
    return k;
  }();
  return &kKnobs;
}

}  // namespace servescope::vllm
