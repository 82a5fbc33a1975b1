// V7.3b (0.34.0+): prefill and decode CUDA graphs sized apart
// (config/vllm.py::VllmConfig._split_cudagraph_capture_sizes; the grids of config/compilation.py:
// prefill_cudagraph_capture_grid, decode_cudagraph_capture_grid, decode_cudagraph_capture_shapes;
// the drafter's one-token decodes of VllmConfig.get_draft_decode_cudagraph_request_sizes).
#include "engines/vllm/split_capture_sizes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace servescope::vllm {
namespace {

// compilation.py::_walk_grid: 1, …, limit, each the next multiple of the largest power of two not
// above step(size).
std::vector<std::int64_t> walk_grid(std::int64_t limit, const std::function<double(double)>& step) {
  std::vector<std::int64_t> grid;
  std::int64_t size = 1;
  while (size < limit) {
    grid.push_back(size);
    const double s = std::max(1.0, step(static_cast<double>(size)));
    const std::int64_t stride = std::int64_t{1}
                                << std::max(0, static_cast<int>(std::floor(std::log2(s))));
    size = (size / stride + 1) * stride;
  }
  if (limit > 0)
    grid.push_back(limit);
  return grid;
}

// decode_cudagraph_capture_shapes for one query length: the request counts reachable within the
// limit, the first above it captured at the limit.
std::vector<std::int64_t> decode_shapes(const std::vector<std::int64_t>& sizes,
                                        std::int64_t max_reqs, std::int64_t q,
                                        std::int64_t max_tokens) {
  std::vector<std::int64_t> sorted(sizes);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const std::int64_t limit = std::min(max_reqs, max_tokens / q);
  std::vector<std::int64_t> out;
  if (limit < 1)
    return out;
  for (std::int64_t n : sorted) {
    out.push_back(std::min(n, limit));
    if (n >= limit)
      break;
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> prefill_capture_grid(std::int64_t max_tokens, bool dense_head) {
  std::vector<std::int64_t> grid = walk_grid(max_tokens, [](double t) {
    return std::min({t, std::max(8.0, t / 4), 0.07 * std::max(t, 4096.0)});
  });
  if (dense_head) {
    std::set<std::int64_t> all(grid.begin(), grid.end());
    for (std::int64_t t = 1; t <= 32 && t < max_tokens; ++t)
      all.insert(t);
    grid.assign(all.begin(), all.end());
  }
  return grid;
}

std::vector<std::int64_t> decode_capture_grid(std::int64_t max_requests) {
  return walk_grid(max_requests, [](double n) { return 0.65 * std::pow(n, 2.0 / 3.0); });
}

SplitCaptureSizes split_capture_sizes(const SplitCaptureInputs& in) {
  SplitCaptureSizes out;
  const std::int64_t q = std::max<std::int64_t>(1, in.decode_query_len);
  const std::int64_t shared_max =
      in.shared_sizes.empty() ? 0
                              : *std::max_element(in.shared_sizes.begin(), in.shared_sizes.end());
  // On SM100 the unset kinds default to wider grids, and decode graphs hold up to 8192 tokens.
  const std::int64_t decode_max_tokens =
      in.wide_defaults ? std::min<std::int64_t>(in.max_num_batched_tokens, 8192)
                       : in.max_num_batched_tokens;
  if (!in.prefill_explicit.empty()) {
    for (std::int64_t t : in.prefill_explicit) {
      if (t >= 1 && t <= in.max_num_batched_tokens)
        out.prefill.push_back(t);
    }
    out.decode_requests = decode_capture_grid(
        in.max_decode_requests > 0 ? std::min(in.max_decode_requests, in.max_num_seqs)
                                   : in.max_num_seqs);
  } else if (in.wide_defaults) {
    out.prefill = prefill_capture_grid(std::min<std::int64_t>(8192, in.max_num_batched_tokens),
                                       in.interactivity);
    out.decode_requests = decode_capture_grid(in.max_num_seqs);
  } else {
    out.prefill = in.shared_sizes;
    std::set<std::int64_t> requests;
    for (std::int64_t s : in.shared_sizes) {
      const std::int64_t n = (s + q - 1) / q;
      if (n * q <= shared_max)
        requests.insert(std::min(n, in.max_num_seqs));
    }
    out.decode_requests.assign(requests.begin(), requests.end());
  }
  std::set<std::int64_t> decode_tokens;
  for (std::int64_t n : decode_shapes(out.decode_requests, in.max_num_seqs, q, decode_max_tokens))
    decode_tokens.insert(n * q);
  // A drafter's one-token decodes (EAGLE, EAGLE3, MTP, draft models with two or more tokens):
  // FULL graphs over the request grid up to max_num_seqs.
  if (in.drafter_decodes && !out.decode_requests.empty()) {
    for (std::int64_t n :
         decode_shapes(decode_capture_grid(in.max_num_seqs), in.max_num_seqs, 1, decode_max_tokens))
      decode_tokens.insert(n);
    out.drafter_graphs = true;
  }
  std::set<std::int64_t> tokens = decode_tokens;
  // FULL_DECODE_ONLY captures no prefill graph.
  if (!in.decode_only)
    tokens.insert(out.prefill.begin(), out.prefill.end());
  out.recorded.assign(tokens.begin(), tokens.end());
  return out;
}

}  // namespace servescope::vllm
