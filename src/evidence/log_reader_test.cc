#include "evidence/log_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "report/logs_json.h"

namespace servescope {
namespace {

const char* kSmallLog =
    "[2025-03-08 12:29:04] server_args=ServerArgs(model_path='/m/QwQ-32B', tp_size=2, "
    "mem_fraction_static=0.85, max_running_requests=None, chunked_prefill_size=2048)\n"
    "[2025-03-08 12:29:13 TP1] Load weight begin. avail mem=21.60 GB\n"
    "[2025-03-08 12:29:13 TP0] Load weight begin. avail mem=21.63 GB\n"
    "Loading safetensors checkpoint shards: 100% Completed | 14/14 [00:07<00:00,  1.85it/s]\n"
    "[2025-03-08 12:29:21 TP1] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, "
    "avail mem=6.10 GB, mem usage=15.54 GB.\n"
    "[2025-03-08 12:29:21 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, "
    "avail mem=6.09 GB, mem usage=15.54 GB.\n"
    "[2025-03-08 12:29:21 TP0] KV Cache is allocated. #tokens: 46611, K size: 1.42 GB, V size: "
    "1.42 GB\n"
    "[2025-03-08 12:29:29 TP0] max_total_num_tokens=46611, chunked_prefill_size=2048, "
    "max_prefill_tokens=16384, max_running_requests=2049, context_len=131072\n"
    "[2025-03-08 12:29:29] INFO:     Started server process [3207]\n";

TEST(CleanLogLine, AnsiCrAndInvalidUtf8) {
  std::string scratch;
  CleanedLine c;
  clean_log_line("plain line", scratch, c);
  ASSERT_EQ(c.segments.size(), 1u);
  EXPECT_EQ(c.segments[0], "plain line");
  EXPECT_FALSE(c.changed);

  clean_log_line("\x1b[32m[2025-01-01 00:00:00 TP0]\x1b[0m Memory pool end.\r", scratch, c);
  ASSERT_EQ(c.segments.size(), 1u);
  EXPECT_EQ(c.segments[0], "[2025-01-01 00:00:00 TP0] Memory pool end.");
  EXPECT_TRUE(c.changed);

  clean_log_line(" 50%|##  | 1/2\r100%|####| 2/2\r[2025-01-01 00:00:00] x", scratch, c);
  ASSERT_EQ(c.segments.size(), 3u);
  EXPECT_EQ(c.segments[2], "[2025-01-01 00:00:00] x");

  clean_log_line(std::string_view("a\xff\xfe b\0c \xe2\x96\x88 \xed\xa0\x80", 15), scratch, c);
  ASSERT_EQ(c.segments.size(), 1u);
  EXPECT_TRUE(c.invalid_utf8);
  EXPECT_EQ(c.segments[0],
            "a\xEF\xBF\xBD\xEF\xBF\xBD bc \xe2\x96\x88 \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(LogReader, DetectsTheEngineAndCollectsFacts) {
  auto r = read_log_text(kSmallLog, "small.log");
  ASSERT_TRUE(r) << r.message();
  const LogFacts& f = *r;
  EXPECT_EQ(f.engine(), "sglang");
  EXPECT_EQ(f.counts().lines, 9u);
  EXPECT_EQ(f.counts().fact_lines, 7u);
  EXPECT_EQ(f.counts().known, 2u);  // progress bar, uvicorn line
  EXPECT_EQ(f.counts().unknown, 0u);
  EXPECT_FALSE(f.counts().truncated_last_line);
  EXPECT_EQ(f.server_arg("tp_size")->as_int(), 2);
  EXPECT_DOUBLE_EQ(*f.first("load_weight_begin")->number("avail_mem_gb"), 21.63);  // TP0
  EXPECT_DOUBLE_EQ(*f.first("load_weight_begin", "TP1")->number("avail_mem_gb"), 21.60);
  EXPECT_DOUBLE_EQ(*f.last("load_weight_end")->number("avail_mem_gb"), 6.09);
  EXPECT_EQ(f.first("capacity")->integer("max_running_requests"), 2049);
  EXPECT_EQ(f.count("load_weight_begin"), 2u);
  EXPECT_EQ(f.all_of("load_weight_end").size(), 2u);
  EXPECT_EQ(f.summary().tp, 2);
  EXPECT_EQ(f.summary().model, "/m/QwQ-32B");
  EXPECT_EQ(f.version().until_date, "2025-03-08");
}

TEST(LogReader, ALogCutMidLine) {
  std::string cut = std::string(kSmallLog).substr(0, 180);  // inside the first load line
  auto r = read_log_text(cut, "cut.log");
  ASSERT_TRUE(r) << r.message();
  EXPECT_TRUE(r->counts().truncated_last_line);
  EXPECT_EQ(r->counts().lines, 2u);
  EXPECT_EQ(r->server_arg("chunked_prefill_size")->as_int(), 2048);
  // Cut inside the dump itself: the fields before the cut survive, marked partial.
  auto dump = read_log_text(std::string(kSmallLog).substr(0, 90), "cut2.log");
  ASSERT_TRUE(dump) << dump.message();
  EXPECT_TRUE(dump->server_args()->partial);
  EXPECT_EQ(dump->server_arg("tp_size")->as_int(), 2);
}

TEST(LogReader, BinaryGarbageAroundRealLines) {
  std::mt19937 rng(7);
  std::string text;
  for (int block = 0; block < 50; ++block) {
    for (int i = 0; i < 400; ++i)
      text += static_cast<char>(rng() & 0xFF);
    text +=
        "\n[2025-03-08 12:29:21 TP0] KV Cache is allocated. #tokens: 46611, K size: 1.42 GB, "
        "V size: 1.42 GB\n";
  }
  auto r = read_log_text(text, "garbage.log");
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->count("kv_cache_allocated"), 50u);
  EXPECT_GT(r->counts().invalid_utf8, 0u);
  // Every fact serialises to valid JSON.
  for (const Fact& f : r->all()) {
    std::string json;
    append_fact_json(json, f);
    EXPECT_TRUE(nlohmann::json::accept(json)) << json;
  }
  const nlohmann::json tail = logs_tail_to_json(*r);
  EXPECT_TRUE(
      nlohmann::json::accept(tail.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

TEST(LogReader, CrlfAndAnsiColours) {
  std::string text;
  for (const char* line :
       {"\x1b[36m[2025-03-08 12:29:13 TP0]\x1b[0m Load weight begin. avail mem=21.63 GB",
        "\x1b[1;33m[2025-03-08 12:29:21 TP0] Load weight end. type=Q, dtype=torch.bfloat16, avail "
        "mem=6.09 GB, mem usage=15.54 GB.\x1b[0m"}) {
    text += line;
    text += "\r\n";
  }
  auto r = read_log_text(text, "crlf.log");
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->counts().lines, 2u);
  EXPECT_EQ(r->counts().control_chars, 2u);
  EXPECT_DOUBLE_EQ(*r->first("load_weight_begin")->number("avail_mem_gb"), 21.63);
  EXPECT_DOUBLE_EQ(*r->first("load_weight_end")->number("mem_usage_gb"), 15.54);
  EXPECT_EQ(r->first("load_weight_end")->raw.find('\x1b'), std::string::npos);
}

TEST(LogReader, InterleavedRanksKeepTheirOwnFactsAndTimelines) {
  std::string text;
  for (int step = 0; step < 30; ++step) {
    for (int dp : {1, 0}) {  // DP1 first, so "first seen" is not the primary rank
      text += "[2026-07-20 10:00:" + std::string(step < 10 ? "0" : "") + std::to_string(step) +
              " DP" + std::to_string(dp) + " TP" + std::to_string(dp * 4) +
              "] Decode batch, #running-req: " + std::to_string(dp == 0 ? step : 100 + step) +
              ", #token: 10, token usage: 0.10, cuda graph: True, gen throughput (token/s): "
              "50.00, #queue-req: 0\n";
    }
  }
  auto r = read_log_text(text, "dp.log");
  ASSERT_TRUE(r) << r.message();
  ASSERT_EQ(r->timelines().size(), 2u);
  ASSERT_NE(r->timeline(), nullptr);
  EXPECT_EQ(r->timeline()->rank(), "DP0 TP0");
  EXPECT_EQ(r->timeline()->peak_running().value, 29);
  EXPECT_EQ(r->first("decode_batch")->rank.label, "DP0 TP0");
  EXPECT_EQ(r->first("decode_batch", "DP1 TP4")->integer("running_req"), 100);
  EXPECT_EQ(r->last("decode_batch", "DP1 TP4")->integer("running_req"), 129);
  EXPECT_EQ(r->ranks().front(), "DP1 TP4");
  EXPECT_EQ(r->count("decode_batch"), 60u);
}

TEST(LogReader, ChunkBoundariesDoNotChangeTheFacts) {
  std::string text;
  for (int i = 0; i < 300; ++i)
    text += kSmallLog;
  LogReadOptions tiny;
  tiny.chunk_bytes = 4096;
  auto a = read_log_text(text, "a", tiny);
  auto b = read_log_text(text, "b");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->counts().lines, b->counts().lines);
  EXPECT_EQ(a->counts().facts, b->counts().facts);
  EXPECT_EQ(a->counts().lines, 2700u);
  EXPECT_EQ(a->count("capacity"), 300u);
  EXPECT_EQ(a->all().back().raw, b->all().back().raw);
}

TEST(LogReader, OverlongLinesAreCutAndCounted) {
  std::string text = std::string(kSmallLog) + std::string(5000, 'x') + "\n" + kSmallLog;
  LogReadOptions o;
  o.max_line_bytes = 1024;
  auto r = read_log_text(text, "long.log", o);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->counts().overlong, 1u);
  EXPECT_EQ(r->counts().lines, 19u);
  EXPECT_EQ(r->count("capacity"), 2u);
}

TEST(LogReader, KeepsBoundedFactsButCountsAll) {
  std::string text;
  for (int i = 0; i < 500; ++i)
    text += "[2026-07-20 10:00:00 TP0] Decode batch, #running-req: " + std::to_string(i) +
            ", #token: 10, token usage: 0.10, gen throughput (token/s): 1.00, #queue-req: 0\n";
  LogReadOptions o;
  o.keep_batch_per_kind = 10;
  auto r = read_log_text(text, "many.log", o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->all_of("decode_batch").size(), 10u);
  EXPECT_EQ(r->count("decode_batch"), 500u);
  EXPECT_EQ(r->dropped().at("decode_batch"), 490u);
  EXPECT_EQ(r->timeline()->samples(), 500u);
  EXPECT_EQ(r->timeline()->peak_running().value, 499);
}

TEST(LogReader, StreamsEveryFactToTheSinkInOrder) {
  struct Lines final : FactSink {
    std::vector<std::uint64_t> lines;
    void on_fact(const Fact& f) override { lines.push_back(f.line); }
  } sink;
  LogReadOptions o;
  o.sink = &sink;
  auto r = read_log_text(kSmallLog, "s", o);
  ASSERT_TRUE(r);
  EXPECT_EQ(sink.lines, (std::vector<std::uint64_t>{1, 2, 3, 5, 6, 7, 8}));
}

TEST(LogReader, UnusableInputsAreOneLineErrors) {
  auto empty = read_log_text("", "e.log");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.message(), "e.log: empty log");
  auto other = read_log_text("hello\nworld\nINFO 03-07 12:29:02 vllm started\n", "o.log");
  ASSERT_FALSE(other);
  EXPECT_NE(other.message().find("no sglang or vllm log lines recognised in 3 lines"),
            std::string::npos)
      << other.message();
  // Nor does a document that quotes a launch command and a capacity figure in prose.
  EXPECT_FALSE(
      read_log_text("# Setup\npython -m sglang.launch_server --model-path M --tp 4\nWe saw "
                    "max_running_requests fall from 48 to 26.\n",
                    "README.md"));
  // A traceback alone does not make a log an SGLang log.
  EXPECT_FALSE(read_log_text("Traceback (most recent call last):\nValueError: x\n", "t.log"));

  const auto dir = std::filesystem::temp_directory_path() / "servescope-log-reader-test";
  std::filesystem::create_directories(dir);
  auto is_dir = read_log_file(dir.string());
  ASSERT_FALSE(is_dir);
  EXPECT_NE(is_dir.message().find("is a directory"), std::string::npos);
  auto missing = read_log_file((dir / "missing.log").string());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("no such file"), std::string::npos);
  const auto empty_file = dir / "empty.log";
  std::ofstream(empty_file).close();
  auto e = read_log_file(empty_file.string());
  ASSERT_FALSE(e);
  EXPECT_NE(e.message().find("empty file"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(LogReader, ACallerChosenEngineSkipsDetection) {
  auto engine = find_engine("sglang");
  ASSERT_TRUE(engine);
  LogReadOptions o;
  o.engine = *engine;
  auto r = read_log_text(kSmallLog, "x", o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->engine(), "sglang");
  auto none = read_log_text("nothing here\n", "n", o);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.message(), "n: no sglang log lines recognised in 1 lines");
}

}  // namespace
}  // namespace servescope
