// SGLang sizes its pools from the least free memory over the ranks of its world group (an
// all_reduce MIN over get_available_gpu_memory), while each rank prints its own "Load weight"
// lines; a log that shows fewer ranks than tp × pp shows readings at or above the ones used
// (issue 30 item 5). The lines are SGLang's formats of early 2026; the figures are servescope's
// own prediction for Llama-3.1-8B at tp 2 on an H100 with the pool 0.03 GiB (491 tokens of
// 65,536 B) smaller than rank 0's readings give, as published 2026 logs show it.
#include <gtest/gtest.h>

#include "tests/check_fixture.h"

namespace servescope {
namespace {

constexpr char kDump[] =
    "[2026-03-02 10:00:00] server_args=ServerArgs(model_path='meta-llama/"
    "Meta-Llama-3.1-8B-Instruct', tokenizer_path='meta-llama/Meta-Llama-3.1-8B-Instruct', "
    "dtype='auto', kv_cache_dtype='auto', quantization=None, context_length=None, "
    "device='cuda', host='127.0.0.1', port=30000, mem_fraction_static=0.88, "
    "max_running_requests=None, max_total_tokens=None, chunked_prefill_size=8192, "
    "max_prefill_tokens=16384, schedule_policy='fcfs', tp_size=2, pp_size=1, dp_size=1, "
    "nnodes=1, attention_backend='flashinfer', disable_radix_cache=False, "
    "disable_cuda_graph=False, enable_dp_attention=False)\n";
constexpr char kInit[] =
    "[2026-03-02 10:00:05 TP0] Init torch distributed ends. elapsed=1.20 s, mem usage=0.10 GB\n";
constexpr char kRank0Load[] =
    "[2026-03-02 10:00:06 TP0] Load weight begin. avail mem=78.00 GB\n"
    "[2026-03-02 10:00:10 TP0] Load weight end. elapsed=4.00 s, type=LlamaForCausalLM, "
    "dtype=torch.bfloat16, avail mem=70.40 GB, mem usage=7.60 GB.\n";
constexpr char kRank1Load[] =
    "[2026-03-02 10:00:06 TP1] Load weight begin. avail mem=78.00 GB\n"
    "[2026-03-02 10:00:10 TP1] Load weight end. elapsed=4.00 s, type=LlamaForCausalLM, "
    "dtype=torch.bfloat16, avail mem=70.40 GB, mem usage=7.60 GB.\n";
// Rank 0's readings give 999,358 tokens (3,906 requests).
constexpr char kCapacity[] =
    "[2026-03-02 10:00:11 TP0] max_total_num_tokens=998867, chunked_prefill_size=8192, "
    "max_prefill_tokens=16384, max_running_requests=3900, context_len=131072, "
    "available_gpu_mem=5.00 GB\n";

CheckResult checked(const std::string& log) {
  CheckOptions o;
  o.gpu = "h100-sxm";
  return testing::check_text(log, o);
}

const Comparison& field(const CheckResult& r, const std::string& name) {
  const Comparison* c = testing::comparison_of(r, name);
  if (c == nullptr) {
    ADD_FAILURE() << "no comparison of " << name;
    static const Comparison none;
    return none;
  }
  return *c;
}

TEST(CheckUnseenRanks, OneRankOfTwoShownWidensByTheDistributedInitsUsage) {
  const CheckResult r = checked(std::string(kDump) + kInit + kRank0Load + kCapacity);
  const Comparison& tokens = field(r, "max_total_num_tokens");
  EXPECT_TRUE(tokens.checked && tokens.match) << tokens.note;
  EXPECT_FALSE(tokens.bound);
  ASSERT_TRUE(tokens.predicted_low && tokens.predicted_high);
  // Two-sided still, and narrow: 0.10 GB over a 61 GiB pool.
  EXPECT_GT(*tokens.predicted_low, 998000);
  EXPECT_LT(*tokens.predicted_high, 1001000);
  EXPECT_TRUE(field(r, "max_running_requests").match);
  ASSERT_FALSE(r.inferences.empty());
  EXPECT_NE(r.inferences.back().find("load lines of 1 of the 2 ranks"), std::string::npos)
      << r.inferences.back();
  EXPECT_NE(r.inferences.back().find("up to 0.10 GB below"), std::string::npos);
}

TEST(CheckUnseenRanks, EveryRankShownIsExactAndTheShortfallAMismatch) {
  const CheckResult r = checked(std::string(kDump) + kInit + kRank0Load + kRank1Load + kCapacity);
  const Comparison& tokens = field(r, "max_total_num_tokens");
  EXPECT_TRUE(tokens.checked);
  EXPECT_FALSE(tokens.match) << tokens.note;
  EXPECT_GT(*tokens.predicted_low, 999900);
}

// From 0.5.22 the distributed init prints no usage: the pool is bounded above only.
TEST(CheckUnseenRanks, WithoutTheInitsUsageThePoolIsBoundedAbove) {
  const CheckResult r = checked(std::string(kDump) + kRank0Load + kCapacity);
  const Comparison& tokens = field(r, "max_total_num_tokens");
  EXPECT_TRUE(tokens.bound);
  EXPECT_TRUE(tokens.match) << tokens.note;
  EXPECT_NE(tokens.note.find("1 of the 2 ranks"), std::string::npos) << tokens.note;
}

}  // namespace
}  // namespace servescope
