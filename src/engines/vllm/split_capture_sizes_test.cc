// V7.3b (vLLM 0.34.0): the prefill and decode grids as config/compilation.py's docstrings state
// them, and what a drafter adds (VllmConfig.get_draft_decode_cudagraph_request_sizes).
#include "engines/vllm/split_capture_sizes.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

using vllm::decode_capture_grid;
using vllm::prefill_capture_grid;

TEST(SplitCaptureSizes, TheGridsHaveTheSizesTheEngineDocuments) {
  // "1, 2, 4, every 8 up to 64, four sizes per doubling up to 1024 ... 54 sizes at 8192."
  const auto prefill = prefill_capture_grid(8192, false);
  EXPECT_EQ(prefill.size(), 54u);
  EXPECT_EQ(std::vector<std::int64_t>(prefill.begin(), prefill.begin() + 4),
            (std::vector<std::int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(prefill.back(), 8192);
  // "every count up to 6, then a step of ... 2 from 8, 4 from 16 ...: 64 sizes at 1024."
  const auto decode = decode_capture_grid(1024);
  EXPECT_EQ(decode.size(), 64u);
  EXPECT_EQ(std::vector<std::int64_t>(decode.begin(), decode.begin() + 8),
            (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 8, 10}));
  // interactivity: every prefill size to 32.
  const auto dense = prefill_capture_grid(8192, true);
  for (std::int64_t t = 1; t <= 32; ++t)
    EXPECT_TRUE(std::binary_search(dense.begin(), dense.end(), t)) << t;
}

TEST(SplitCaptureSizes, Sm100RecordsThePrefillAndDecodeGridsTogether) {
  const Plan b200 = vllm_plan({"vllm serve Qwen/Qwen3-8B", "b200", "vllm@0.34.0"});
  const Node* sizes = b200.graph.find("cudagraph_capture_sizes");
  ASSERT_NE(sizes, nullptr);
  // max_num_seqs 1024 on B200: decode counts such as 3, 5, 6 appear beside the prefill grid.
  EXPECT_NE(sizes->why.find("V7.3b"), std::string::npos) << sizes->why;
  EXPECT_EQ(value_of(b200, "max_cudagraph_capture_size"), 8192);
  // Before 0.34.0 one list up to 1024.
  const Plan before = vllm_plan({"vllm serve Qwen/Qwen3-8B", "b200", "vllm@0.33.0"});
  EXPECT_EQ(value_of(before, "max_cudagraph_capture_size"), 1024);
}

TEST(SplitCaptureSizes, ADrafterWithTwoTokensAddsOneTokenDecodeGraphsToMaxNumSeqs) {
  vllm::SplitCaptureInputs in;
  for (std::int64_t s : {1, 2, 4, 8, 16, 24, 32})
    in.shared_sizes.push_back(s);
  in.max_num_seqs = 256;
  in.max_num_batched_tokens = 8192;
  in.decode_query_len = 3;  // two speculative tokens
  const auto without = vllm::split_capture_sizes(in);
  in.drafter_decodes = true;
  const auto with = vllm::split_capture_sizes(in);
  EXPECT_TRUE(with.drafter_graphs);
  EXPECT_EQ(with.recorded.back(), 256);  // the request grid reaches max_num_seqs
  EXPECT_GT(with.recorded.size(), without.recorded.size());
  EXPECT_EQ(without.recorded.back(), 32);
}

}  // namespace
}  // namespace servescope::testing
