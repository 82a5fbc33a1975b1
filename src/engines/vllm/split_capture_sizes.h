// V7.3b (vLLM 0.34.0+): the prefill token sizes and decode request counts of CUDA-graph capture,
// and the token counts vLLM records from them as cudagraph_capture_sizes.
#pragma once

#include <cstdint>
#include <vector>

namespace servescope::vllm {

struct SplitCaptureInputs {
  std::vector<std::int64_t> shared_sizes;  // the token sizes resolved as before 0.34
  std::int64_t max_num_seqs = 0;
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t decode_query_len = 1;  // 1 + num_speculative_tokens
  bool wide_defaults = false;         // SM100 family, no deprecated size flag typed
  bool interactivity = false;         // performance_mode interactivity: every prefill size to 32
  bool drafter_decodes = false;       // EAGLE/EAGLE3/MTP/draft model with ≥ 2 tokens
  bool decode_only = false;           // cudagraph_mode FULL_DECODE_ONLY
  // Set by a model's config hook (gpt-oss off SM100): explicit prefill sizes and a decode cap.
  std::vector<std::int64_t> prefill_explicit;
  std::int64_t max_decode_requests = 0;  // 0: unset
};

struct SplitCaptureSizes {
  std::vector<std::int64_t> prefill;          // PIECEWISE graphs, in tokens
  std::vector<std::int64_t> decode_requests;  // FULL decode graphs, in requests
  std::vector<std::int64_t> recorded;         // every graph's token count, ascending
  bool drafter_graphs = false;
};

/// compilation.py::prefill_cudagraph_capture_grid: 54 sizes at 8192.
std::vector<std::int64_t> prefill_capture_grid(std::int64_t max_tokens, bool dense_head);
/// compilation.py::decode_cudagraph_capture_grid: 64 sizes at 1024.
std::vector<std::int64_t> decode_capture_grid(std::int64_t max_requests);

/// VllmConfig._split_cudagraph_capture_sizes for one decode query length.
SplitCaptureSizes split_capture_sizes(const SplitCaptureInputs& in);

}  // namespace servescope::vllm
