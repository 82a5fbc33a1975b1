#include "report/logs_text.h"

#include <gtest/gtest.h>

#include "evidence/log_reader.h"

namespace servescope {
namespace {

TEST(LogsText, Sparkline) {
  EXPECT_EQ(sparkline({0, 1, 2, 3, 4, 5, 6, 7}, 8), "▁▂▃▄▅▆▇█");
  EXPECT_EQ(sparkline({0, -1, 7}, 8), "▁ █");         // no data is a blank
  EXPECT_EQ(sparkline({1, 7, 1, 1}, 2), "█▂");        // columns keep their maximum
  EXPECT_EQ(sparkline({1, 7, 1, 1}, 2, true), "█▃");  // or their mean
  EXPECT_EQ(sparkline({}, 8), "");
  EXPECT_EQ(sparkline({0, 0}, 8), "▁▁");
}

TEST(LogsText, SummaryTimelineAndCounts) {
  const char* log =
      "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n"
      "[2026-07-20 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, "
      "dp_size=1, mem_fraction_static=0.88, [...])\n"
      "GPU 0,1: NVIDIA H100 80GB HBM3\n"
      "[2026-07-20 10:00:05 TP0] Load weight begin. avail mem=78.50 GB\n"
      "[2026-07-20 10:00:20 TP0] max_total_num_tokens=900000, chunked_prefill_size=8192, "
      "max_prefill_tokens=16384, max_running_requests=2048, context_len=40960, "
      "available_gpu_mem=7.50 GB\n"
      "[2026-07-20 10:00:21 TP0] Max running requests is reset to 48 for speculative decoding.\n"
      "[2026-07-20 10:01:00 TP0] Decode batch, #running-req: 12, #token: 100, token usage: 0.10, "
      "cuda graph: True, gen throughput (token/s): 100.00, #queue-req: 0\n"
      "[2026-07-20 10:02:00 TP0] Decode batch, #running-req: 48, #token: 900, token usage: 0.90, "
      "cuda graph: True, gen throughput (token/s): 900.00, #queue-req: 7\n"
      "Allocated KV cache of 5 tokens somewhere\n";
  auto facts = read_log_text(log, "t.log");
  ASSERT_TRUE(facts) << facts.message();
  const std::string text = render_logs_text(*facts, "t.log");
  for (const char* expected :
       {"sglang log · t.log", "model     Qwen/Qwen3-8B", "gpu       NVIDIA H100 80GB HBM3",
        "tp 2 · dp 1", "free before load (P)  78.50 GB", "max_running_requests  2,048", "line 5",
        "speculative decoding: max_running_requests set to 48",
        "2 decode + 0 prefill lines over 1m 00s", "max 48  line 8", "max 7  line 8",
        "max 900.0 tok/s", "1 unknown capacity-looking",
        "? line 9: Allocated KV cache of 5 tokens somewhere"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing '" << expected << "' in\n"
                                                      << text;
  }
}

// A speculative run allocates the target's pool, then the draft model's (an RTX 5090 thread):
// both are shown, and what is free after the last of them.
TEST(LogsText, TheDraftModelsPoolAndWhatIsFreeAfterIt) {
  const std::string pools =
      "[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: "
      "454112, K size: 3.46 GB, V size: 3.46 GB\n"
      "[2026-09-12 00:22:48 TP0] Memory pool end. avail mem=8.40 GB\n"
      "[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: "
      "454112, K size: 1.08 GB, V size: 1.08 GB\n"
      "[2026-09-12 00:22:48 TP0] Memory pool end. avail mem=6.23 GB\n";
  auto render = [](const std::string& log) {
    auto facts = read_log_text(log, "t.log");
    EXPECT_TRUE(facts) << facts.message();
    return facts ? render_logs_text(*facts, "t.log") : std::string();
  };
  const std::string eagle = render(
      "[2026-09-12 00:22:00] server_args=ServerArgs(model_path='m', speculative_algorithm='EAGLE', "
      "tp_size=1)\n" +
      pools);
  EXPECT_NE(eagle.find("draft KV cache    454,112 tokens (K 1.08 GB"), std::string::npos) << eagle;
  EXPECT_NE(eagle.find("free after pools  6.23 GB"), std::string::npos) << eagle;
  // Without a draft model a second pool is a restart: the first start's figures stand.
  const std::string plain = render(
      "[2026-09-12 00:22:00] server_args=ServerArgs(model_path='m', speculative_algorithm=None, "
      "tp_size=1)\n" +
      pools);
  EXPECT_EQ(plain.find("1.08 GB"), std::string::npos) << plain;
  EXPECT_NE(plain.find("free after pools  8.40 GB"), std::string::npos) << plain;
  // An excerpt without the dump cannot tell: it says so.
  EXPECT_NE(render(pools).find("second KV pool (a draft model's or a restart)"), std::string::npos);
}

}  // namespace
}  // namespace servescope
