// The twin server under load, on two cores: `servescope twin` pinned to CPU 0 (one thread),
// this process's load client (bench/sse_load_client.h, one Asio thread) pinned to CPU 1.
// The twin runs Llama-3.1-8B on one H100 (--max-running-requests 5000): at --speed inf the
// tokens come as fast as the server can produce and send them; at --speed 1 the 5,000 streams
// last long enough to be open together. Both processes' CPU shares are printed, so a saturated
// client would show, and events per second of server CPU time give the one-core rate even on a
// machine whose cores are shared. Targets (issue 5): 5,000 concurrent streams and at
// least 100,000 SSE events per second on one core.
#include <benchmark/benchmark.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "sse_load_client.h"

namespace servescope::bench {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double process_cpu_seconds(pid_t pid) {
  // utime and stime are fields 14 and 15 of /proc/PID/stat, in clock ticks.
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos)
    return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14 || i == 15)
      ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

class PinnedTwin {
 public:
  explicit PinnedTwin(const std::string& speed) {
    const std::string binary =
        (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "servescope").string();
    out_ = (std::filesystem::temp_directory_path() /
            ("twin-bench-" + std::to_string(getpid()) + ".out"))
               .string();
    err_ = out_ + ".err";
    std::fflush(nullptr);  // the child must not repeat our buffered output
    pid_ = fork();
    if (pid_ == 0) {
      std::freopen(out_.c_str(), "w", stdout);
      std::freopen(err_.c_str(), "w", stderr);
      execlp("taskset", "taskset", "-c", "0", binary.c_str(), "twin", "--gpu", "h100-sxm",
             "--speed", speed.c_str(), "--no-access-log", "--", "python", "-m",
             "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct",
             "--max-running-requests", "5000", "--host", "127.0.0.1", "--port", "0",
             static_cast<char*>(nullptr));
      std::_Exit(127);
    }
    static const std::regex kServed(R"(served at http://127\.0\.0\.1:(\d+))");
    for (int i = 0; i < 400 && port == 0; ++i) {
      std::smatch m;
      const std::string out = slurp(out_);
      if (std::regex_search(out, m, kServed))
        port = std::stoi(m[1]);
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~PinnedTwin() {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    std::filesystem::remove(out_);
    std::filesystem::remove(err_);
  }
  pid_t pid() const { return pid_; }
  int port = 0;

 private:
  pid_t pid_ = -1;
  std::string out_, err_;
};

void pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

// Arguments: streams, output tokens per stream, --speed (0: inf).
void BM_TwinSseStreams(benchmark::State& state) {
  pin_to_cpu(1);
  PinnedTwin twin(state.range(2) == 0 ? std::string("inf") : std::to_string(state.range(2)));
  if (twin.port == 0) {
    state.SkipWithError("the twin did not start");
    return;
  }
  const int streams = static_cast<int>(state.range(0));
  const auto tokens = state.range(1);
  const std::string body = R"({"prompt": "Benchmark the twin server now", "max_tokens": )" +
                           std::to_string(tokens) + R"(, "stream": true, "ignore_eos": true})";
  LoadResult r;
  double server_cpu = 0;
  for (auto _ : state) {
    const double cpu0 = process_cpu_seconds(twin.pid());
    SseLoad load(twin.port, streams, body, 120);
    r = load.run();
    server_cpu = process_cpu_seconds(twin.pid()) - cpu0;
    state.SetIterationTime(r.wall_s);
  }
  state.counters["streams_completed"] = r.completed;
  state.counters["streams_failed"] = r.failed;
  state.counters["peak_open_streams"] = r.peak_open;
  state.counters["sse_events"] = static_cast<double>(r.events);
  state.counters["sse_events_per_s"] = r.wall_s > 0 ? static_cast<double>(r.events) / r.wall_s : 0;
  state.counters["client_cpu_share"] = r.wall_s > 0 ? r.client_cpu_s / r.wall_s : 0;
  state.counters["server_cpu_share"] = r.wall_s > 0 ? server_cpu / r.wall_s : 0;
  // Per second of the server's own CPU time: its one-core rate even when the core is shared.
  state.counters["sse_events_per_server_cpu_s"] =
      server_cpu > 0 ? static_cast<double>(r.events) / server_cpu : 0;
}
BENCHMARK(BM_TwinSseStreams)
    ->Args({1000, 1000, 0})  // events per second: tokens as fast as the server sends them
    ->Args({5000, 100, 1})   // 5,000 streams at once at the model's own pace
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace servescope::bench
