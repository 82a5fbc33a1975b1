// The vLLM log grammar on a whole log of the corpus ($SERVESCOPE_CORPUS/raw): the engine config
// dump's capture sizes and both workers' memory lines.
#include <gtest/gtest.h>

#include <algorithm>

#include "evidence/log_reader.h"
#include "tests/golden/corpus.h"

namespace servescope::vllm {
namespace {

double num(const Fact& f, std::string_view field) {
  auto v = f.number(field);
  EXPECT_TRUE(v.has_value()) << f.kind << " has no " << field << ": " << f.raw;
  return v.value_or(-1);
}

TEST(VllmLogGrammar, CaptureSizesFromTheEngineConfigOfAFullLog) {
  const std::string path = golden::corpus_dir() +
                           "/raw/vllm-llm-d-planner-meta-llama-llama-3-1-8b---h100-80gb--"
                           "tp2pp1dp1--8192.log";
  auto facts = read_log_file(path);
  ASSERT_TRUE(facts) << facts.message();
  EXPECT_EQ(facts->engine(), "vllm");
  const Fact* config = facts->first("engine_config");
  ASSERT_NE(config, nullptr);
  EXPECT_FALSE(config->partial);
  const IntList* sizes = config->int_list("compilation_config.cudagraph_capture_sizes");
  ASSERT_NE(sizes, nullptr);
  EXPECT_EQ(sizes->size(), 51u);
  EXPECT_EQ(*std::max_element(sizes->begin(), sizes->end()), 512);
  EXPECT_EQ(*config->integer("tensor_parallel_size"), 2);
  // Both workers print their memory lines; the primary (TP0) is the one that stands for the
  // server, and the two agree.
  const Fact* tp0 = facts->first("memory_summary");
  const Fact* tp1 = facts->first("memory_summary", "Worker_TP1");
  ASSERT_NE(tp0, nullptr);
  ASSERT_NE(tp1, nullptr);
  EXPECT_EQ(tp0->rank.tp, 0);
  EXPECT_DOUBLE_EQ(num(*tp0, "free_memory_gib"), 77.66);
  EXPECT_DOUBLE_EQ(num(*tp1, "non_torch_gib"), 2.07);
  // The CUDA-graph profile's minimal KV cache ("Overriding num_gpu_blocks=0 with
  // num_gpu_blocks_override=512") is not reported as a setting the engine adjusted.
  EXPECT_EQ(facts->count("blocks_override"), 2u);
  for (const auto& note : facts->summary().notes)
    EXPECT_EQ(note.value.find("num_gpu_blocks_override"), std::string::npos) << note.value;
  // The log uses CRLF and bare CR line ends: every line is still read as one line.
  EXPECT_EQ(*facts->first("kv_cache_size")->integer("tokens"), 1044688);
  EXPECT_EQ(*facts->first("gpu_blocks")->integer("num_gpu_blocks"), 65293);
}

}  // namespace
}  // namespace servescope::vllm
