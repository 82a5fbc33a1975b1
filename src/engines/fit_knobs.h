// The flags and outputs `fit` turns and reads, in each engine's own vocabulary: which flag sets
// the tensor-parallel size, the memory fraction, the context length, the running-request limit
// and the KV-cache dtype, and which plan output states the concurrency at a context length.
// Data per engine, so the search itself names no engine.
#pragma once

#include <string>

namespace servescope {

struct FitKnobs {
  std::string tensor_parallel;    // "--tensor-parallel-size" / "--tp-size" (canonical)
  std::string pipeline_parallel;  // "--pipeline-parallel-size" / "--pp-size"
  std::string data_parallel;      // "--data-parallel-size" / "--dp-size": whole replicas
  std::string nodes;              // "--nnodes"
  std::string node_rank;          // "--node-rank"
  std::string memory_fraction;    // "--gpu-memory-utilization" / "--mem-fraction-static"
  std::string context;            // "--max-model-len" / "--context-length"
  std::string request_limit;      // "--max-num-seqs" / "--max-running-requests"
  std::string kv_cache_dtype;     // "--kv-cache-dtype"
  std::string fp8_kv_cache;       // the value that stores the KV cache in FP8
  std::string model_canonical;    // the canonical flag the model path is parsed as
  // A flag under which the engine's data-parallel ranks live inside the TP group rather than
  // as replicas (SGLang's DP attention): fit does not vary replicas then.
  std::string data_parallel_inside_tp;
  std::string model_flag;            // "" where the model is positional ("vllm serve MODEL")
  std::string kv_tokens_output;      // plan output holding the KV cache's token capacity
  std::string request_limit_output;  // plan output holding the running-request limit
  std::string context_output;        // plan output holding the context length in force
  std::string fraction_output;       // plan output holding the memory fraction in force
  // Plan output holding how many requests of the context length the KV cache holds at once
  // (vLLM's "Maximum concurrency for N tokens per request"); "" when the engine states none,
  // and fit divides the token capacity by the context length.
  std::string concurrency_output;
  // The engine states its concurrency at its own context length, so a concurrency target at L
  // sets the context flag to L (vLLM); else the flag is set only when the default is shorter.
  bool concurrency_at_context_flag = false;
  // The memory-fraction grid fit searches when the fraction may vary: low to high in steps.
  double fraction_low = 0.80;
  double fraction_high = 0.95;
  double fraction_step = 0.01;
  std::string image_repository;  // the engine's own container image, tagged v<release>
  // What a multi-node command needs besides --nnodes/--node-rank, said beside the command.
  std::string multi_node_note;
};

}  // namespace servescope
