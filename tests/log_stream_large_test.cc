// A 1 GiB synthetic SGLang log, generated in a temporary directory and streamed through the
// reader: every line is counted and the peak resident memory barely moves. Slow (it writes
// and reads a gigabyte): its own test, named for it.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "evidence/log_reader.h"

namespace servescope {
namespace {

constexpr std::uint64_t kTargetBytes = std::uint64_t{1} << 30;

// VmHWM (peak resident set) in KiB after resetting it to the current RSS, or -1.
long reset_and_read_peak_kib(bool reset) {
  if (reset) {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    if (!clear)
      return -1;
  }
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0)
      return std::stol(line.substr(6));
  }
  return -1;
}

struct Generated {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
  std::uint64_t decode = 0;
  std::uint64_t prefill = 0;
};

Generated write_log(const std::string& path) {
  Generated g;
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr)
    return g;
  std::string buf;
  buf.reserve(std::size_t{4} << 20);
  auto put = [&](const std::string& s) {
    buf += s;
    ++g.lines;
    if (buf.size() >= (std::size_t{4} << 20)) {
      std::fwrite(buf.data(), 1, buf.size(), out);
      g.bytes += buf.size();
      buf.clear();
    }
  };
  put("[2026-07-20 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, "
      "mem_fraction_static=0.88, max_running_requests=None)\n");
  put("[2026-07-20 10:00:05 TP0] Load weight begin. avail mem=78.50 GB\n");
  put("[2026-07-20 10:00:09 TP0] Load weight end. elapsed=4.00 s, type=Qwen3ForCausalLM, avail "
      "mem=62.10 GB, mem usage=16.40 GB.\n");
  put("[2026-07-20 10:00:09 TP0] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 900000, "
      "K size: 25.00 GB, V size: 25.00 GB\n");
  put("[2026-07-20 10:00:20 TP0] max_total_num_tokens=900000, chunked_prefill_size=8192, "
      "max_prefill_tokens=16384, max_running_requests=2048, context_len=40960, "
      "available_gpu_mem=7.50 GB\n");
  std::uint64_t i = 0;
  while (g.bytes + buf.size() < kTargetBytes) {
    const int tp = static_cast<int>(i % 2);
    const unsigned sec = static_cast<unsigned>(i / 8);
    const std::string ts = fmt::format("2026-07-{:02} {:02}:{:02}:{:02}", 20 + sec / 86400 % 8,
                                       sec / 3600 % 24, sec / 60 % 60, sec % 60);
    if (i % 10 == 9) {
      put(
          fmt::format("[{} TP{}] Prefill batch, #new-seq: 2, #new-token: {}, #cached-token: 512, "
                      "token usage: 0.{:02}, #running-req: {}, #queue-req: {}, #pending-token: 0, "
                      "cuda graph: False, input throughput (token/s): {}.25\n",
                      ts, tp, 1000 + i % 7000, i % 100, i % 300, i % 17, 10000 + i % 5000));
      ++g.prefill;
    } else {
      put(
          fmt::format("[{} TP{}] Decode batch, #running-req: {}, #token: {}, token usage: 0.{:02}, "
                      "cuda graph: True, gen throughput (token/s): {}.50, #queue-req: {}\n",
                      ts, tp, i % 300, 100000 + i % 800000, i % 100, 2000 + i % 3000, i % 17));
      ++g.decode;
    }
    if (i % 100000 == 50000) {  // now and then, a line nobody knows
      put(fmt::format("[{}] INFO:     127.0.0.1:4000 - \"POST /generate HTTP/1.1\" 200 OK\n", ts));
    }
    ++i;
  }
  std::fwrite(buf.data(), 1, buf.size(), out);
  g.bytes += buf.size();
  std::fclose(out);
  return g;
}

TEST(LogStreamLarge, OneGigabyteLogIsReadInConstantMemory) {
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("servescope-1gib-log-{}", static_cast<long>(::getpid()));
  std::filesystem::create_directories(dir);
  const auto space = std::filesystem::space(dir);
  if (space.available < 3 * kTargetBytes) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "needs 3 GiB free in " << dir.parent_path() << " for a 1 GiB log";
  }
  const std::string path = (dir / "big.log").string();
  const Generated g = write_log(path);
  ASSERT_GE(g.bytes, kTargetBytes);

  const long before = reset_and_read_peak_kib(true);
  auto r = read_log_file(path);
  const long after = reset_and_read_peak_kib(false);
  std::filesystem::remove_all(dir);

  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->counts().bytes, g.bytes);
  EXPECT_EQ(r->counts().lines, g.lines);
  EXPECT_EQ(r->count("decode_batch"), g.decode);
  EXPECT_EQ(r->count("prefill_batch"), g.prefill);
  EXPECT_EQ(r->counts().unknown, 0u);
  EXPECT_EQ(r->counts().unknown_capacity, 0u);
  ASSERT_NE(r->timeline(), nullptr);
  EXPECT_EQ(r->timeline()->peak_running().value, 298);  // TP0 prints the even steps
  EXPECT_EQ(r->timelines().size(), 2u);
  if (before < 0 || after < 0)
    GTEST_SKIP() << "no /proc/self/clear_refs: peak memory not measured";
  // Constant memory: the reader's buffers, the kept facts and the bounded timelines.
  EXPECT_LT(after - before, 64 * 1024) << "peak RSS grew by " << (after - before) << " KiB";
  std::printf("[ info ] 1 GiB log: peak RSS grew by %ld KiB while reading it\n", after - before);
}

}  // namespace
}  // namespace servescope
