// The vLLM 0.34 twin prints the extensible KV cache's startup lines in the engine's order
// ('Available KV cache memory' as the capacity, 'Memory after warmup', 'Extended KV cache to',
// then the one 'GPU KV cache size' line), and check reads its own log back to the same figures.
#include <gtest/gtest.h>

#include "diagnose/check.h"
#include "diagnose/scenario_builder.h"
#include "engines/twin_profile.h"
#include "evidence/log_reader.h"
#include "tests/twin/twin_fixture.h"

namespace servescope {
namespace {

TEST(VllmTwinExtensible, TheStartupLogCarriesTheMeasurementAndChecksBack) {
  ScenarioOptions o;
  o.engine = "vllm@0.34.0";
  o.gpu = "h100-sxm";
  o.command = {"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "32768"};
  auto c = testing::twin_case_of(o);
  ASSERT_TRUE(c);
  const TwinProfile& p = *c->profile;
  StartupContext ctx{{"127.0.0.1", 8077}, 0, 42};
  std::string log;
  const auto now = std::chrono::system_clock::now();
  for (const LogLine& l : p.startup_log(c->built.scenario, c->plan, ctx))
    log += (l.raw ? l.text : p.format_log_line(now, l.tag, l.text)) + "\n";
  const auto capacity = log.find("Available KV cache memory");
  const auto warmup = log.find("Memory after warmup: ");
  const auto extended = log.find("Extended KV cache to ");
  const auto size = log.find("GPU KV cache size: ");
  ASSERT_NE(warmup, std::string::npos) << log;
  EXPECT_LT(capacity, warmup);
  EXPECT_LT(warmup, extended);
  EXPECT_LT(extended, size);

  auto facts = read_log_text(log, "twin.log");
  ASSERT_TRUE(facts) << facts.message();
  CheckOptions co;
  co.gpu = "h100-sxm";
  co.command = o.command;
  auto r = check_log(*facts, co);
  ASSERT_TRUE(r) << r.message();
  int matched = 0;
  for (const Comparison& cmp : r->comparisons) {
    if (cmp.field == "num_gpu_blocks" || cmp.field == "gpu_kv_cache_size_tokens") {
      EXPECT_TRUE(cmp.checked) << cmp.field << ": " << cmp.needs;
      EXPECT_TRUE(cmp.match) << cmp.field << ": logged " << cmp.logged.to_string() << ", predicted "
                             << cmp.predicted.to_string();
      ++matched;
    }
  }
  EXPECT_EQ(matched, 2) << log;
}

}  // namespace
}  // namespace servescope
