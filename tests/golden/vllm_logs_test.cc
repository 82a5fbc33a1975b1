// `servescope logs` on a vLLM log: the startup excerpt of a v0.19.0 sweep run (Qwen3-8B on an
// H100, the corpus at $SERVESCOPE_CORPUS) followed by periodic stats lines in the shape vLLM issue
// 43295 published (the corpus has none): the text report shows the capacity lines and the timeline
// the stats lines make, and the JSON document carries the same summary and timeline with the
// seconds between lines read from vLLM's yearless "MM-DD HH:MM:SS" timestamps.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "evidence/log_reader.h"
#include "report/logs_json.h"
#include "report/logs_text.h"
#include "tests/golden/corpus.h"

namespace servescope {
namespace {

std::string sweep_log(const std::string& id) {
  std::ifstream in(golden::corpus_dir() + "/vllm-llm-d-sweep-v0.19.0.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    if (j.at("id") == id)
      return j.at("raw_log").get<std::string>() + "\n";
  }
  return "";
}

// Running, waiting, KV usage %, generation throughput, every 10 s.
std::string stats_lines() {
  struct Row {
    int running, waiting;
    double usage, gen;
  };
  const Row rows[] = {{18, 43, 95.9, 1055.3},
                      {18, 33, 87.7, 734.9},
                      {21, 23, 95.9, 589.8},
                      {20, 23, 98.4, 1242.7},
                      {0, 0, 0.0, 0.0}};
  std::string out;
  int second = 11;
  for (const Row& r : rows) {
    out += "(APIServer pid=1) INFO 04-22 01:31:" + std::to_string(second) +
           " [v1/metrics/loggers.py:271] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg "
           "generation throughput: " +
           std::to_string(r.gen).substr(0, std::to_string(r.gen).find('.') + 2) +
           " tokens/s, Running: " + std::to_string(r.running) +
           " reqs, Waiting: " + std::to_string(r.waiting) + " reqs, GPU KV cache usage: " +
           std::to_string(r.usage).substr(0, std::to_string(r.usage).find('.') + 2) +
           "%, Prefix cache hit rate: 0.0%\n";
    second += 10;
  }
  return out;
}

const char* const kRun = "vllm-llmd-qwen-qwen3-8b--h100-80gb--tp1pp1dp1--8192";

TEST(VllmLogs, TextReportShowsCapacityAndTheStatsTimeline) {
  const std::string startup = sweep_log(kRun);
  ASSERT_FALSE(startup.empty());
  auto facts = read_log_text(startup + stats_lines(), "qwen3-8b.log");
  ASSERT_TRUE(facts) << facts.message();
  EXPECT_EQ(facts->engine(), "vllm");
  EXPECT_EQ(facts->count("decode_batch"), 5u);
  const std::string text = render_logs_text(*facts, "qwen3-8b.log");
  EXPECT_NE(text.find("vllm log"), std::string::npos) << text;
  EXPECT_NE(text.find("Qwen/Qwen3-8B"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU KV cache size"), std::string::npos) << text;
  EXPECT_NE(text.find("418,688 tokens"), std::string::npos) << text;
  EXPECT_NE(text.find("51.11x for 8,192 tokens per request"), std::string::npos) << text;
  EXPECT_NE(text.find("26,168"), std::string::npos) << text;  // num_gpu_blocks
  EXPECT_NE(text.find("prints version 0.19.0"), std::string::npos) << text;
  EXPECT_NE(text.find("5 decode"), std::string::npos) << text;
  EXPECT_NE(text.find("max 21"), std::string::npos) << text;  // running requests
  EXPECT_NE(text.find("max 43"), std::string::npos) << text;  // waiting requests
  EXPECT_NE(text.find("max 1242.7 tok/s"), std::string::npos) << text;
  EXPECT_EQ(facts->counts().unknown, 0u) << text;
}

// A 0.10-era EngineCore reports each worker's KV cache config (the shape of vLLM issue threads
// on TP 8): the engine keeps the least, which the summary shows beside the first.
TEST(VllmLogs, WorkersWithDifferentKvSizesShowTheLeastTheEngineKeeps) {
  std::string text;
  for (const char* tokens : {"238,208", "237,392", "237,344", "238,256"}) {
    text += std::string(
                "(EngineCore_DP0 pid=1944) INFO 09-24 20:53:41 [kv_cache_utils.py:864] "
                "GPU KV cache size: ") +
            tokens + " tokens\n";
  }
  auto facts = read_log_text(text, "tp.log");
  ASSERT_TRUE(facts) << facts.message();
  const std::string report = render_logs_text(*facts, "tp.log");
  EXPECT_NE(report.find("238,208 tokens"), std::string::npos) << report;
  EXPECT_NE(report.find("KV cache kept (least of 4 lines)  237,344 tokens"), std::string::npos)
      << report;
  // One line, or lines that agree: nothing more to say.
  auto one = read_log_text(text.substr(0, text.find('\n') + 1), "one.log");
  ASSERT_TRUE(one);
  EXPECT_EQ(render_logs_text(*one, "one.log").find("KV cache kept"), std::string::npos);
}

// A V0 worker excerpt (vLLM PR 14447's thread): the weights are only in the profile line, and
// the failure line names its error once.
TEST(VllmLogs, V0WeightsFromTheProfileLineAndTheFailureNamedOnce) {
  const std::string text =
      "(VllmWorkerProcess pid=521) INFO 04-12 08:21:19 [worker.py:267] model weights take "
      "21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; "
      "the rest of the memory reserved for KV Cache is 1.57GiB.\n"
      "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens "
      "that can be stored in KV cache (81536).\n";
  auto facts = read_log_text(text, "v0.log");
  ASSERT_TRUE(facts) << facts.message();
  const std::string report = render_logs_text(*facts, "v0.log");
  EXPECT_NE(report.find("weights (memory profile)"), std::string::npos) << report;
  EXPECT_NE(report.find("21.21 GiB"), std::string::npos) << report;
  EXPECT_NE(report.find("ValueError: The model's max seq len"), std::string::npos) << report;
  EXPECT_EQ(report.find("ValueError: ValueError"), std::string::npos) << report;
}

// A README that quotes a command, or an SGLang log that names a kernel config, is not a vLLM
// log: those facts are read but do not identify the engine.
TEST(VllmLogs, ACommandOrAGpuNameAloneIsNotALog) {
  EXPECT_FALSE(
      read_log_text("$ vllm serve Qwen/Qwen3-8B --max-model-len 4096\nthen run it\n", "readme.md"));
  auto facts = read_log_text(
      "$ vllm serve Qwen/Qwen3-8B --max-model-len 4096\n"
      "INFO 01-30 03:18:12 gpu_model_runner.py:848] Loading model weights took 15.27 GB\n",
      "excerpt.log");
  ASSERT_TRUE(facts) << facts.message();
  EXPECT_EQ(facts->engine(), "vllm");
}

TEST(VllmLogs, JsonCarriesTheSummaryAndATimedTimeline) {
  const std::string startup = sweep_log(kRun);
  ASSERT_FALSE(startup.empty());
  std::FILE* tmp = std::tmpfile();
  ASSERT_NE(tmp, nullptr);
  LogsJsonWriter writer(tmp, "qwen3-8b.log", /*with_facts=*/false);
  LogReadOptions o;
  o.sink = &writer;
  auto facts = read_log_text(startup + stats_lines(), "qwen3-8b.log", o);
  ASSERT_TRUE(facts) << facts.message();
  writer.finish(*facts);
  std::rewind(tmp);
  std::string text;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, tmp))
    text.append(buf, n);
  std::fclose(tmp);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("engine"), "vllm");
  bool kv_size = false;
  for (const auto& item : j.at("summary").at("capacity")) {
    if (item.at("name") == "GPU KV cache size") {
      kv_size = true;
      EXPECT_EQ(item.at("value"), "418,688 tokens");
    }
  }
  EXPECT_TRUE(kv_size) << j.at("summary").dump();
  ASSERT_EQ(j.at("timelines").size(), 1u);
  const auto& t = j.at("timelines")[0];
  EXPECT_EQ(t.at("decode_samples"), 5);
  EXPECT_EQ(t.at("peaks").at("running_req").at("value"), 21.0);
  EXPECT_EQ(t.at("peaks").at("queue_req").at("value"), 43.0);
  EXPECT_NEAR(t.at("peaks").at("token_usage").at("value").get<double>(), 0.984, 1e-9);
  const auto& points = t.at("points");
  ASSERT_EQ(points.size(), 5u);
  EXPECT_EQ(points[0].at("running_req"), 18);
  EXPECT_EQ(points[0].at("queue_req"), 43);
  EXPECT_EQ(points[4].at("running_req"), 0);
  // The stats lines come every 10 s: the offsets are read from the timestamps.
  EXPECT_EQ(points[0].at("time"), "04-22 01:31:11");
  EXPECT_DOUBLE_EQ(points[0].at("offset_s").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(points[4].at("offset_s").get<double>(), 40.0);
}

}  // namespace
}  // namespace servescope
