// Runs `servescope twin` as a child process for end-to-end tests: on 127.0.0.1 with an
// ephemeral port, stdout and stderr to temporary files, the port read from the twin's stdout
// line. Always killed in the destructor; every wait is bounded.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace servescope::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class TwinProcess {
 public:
  /// `options`: twin options; `command`: the launch command (a --port 0 is added).
  TwinProcess(std::vector<std::string> options, std::vector<std::string> command) {
    static int counter = 0;
    const std::string base =
        std::filesystem::temp_directory_path() /
        ("servescope-twin-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    out_path = base + ".out";
    err_path = base + ".err";
    std::vector<std::string> argv = {SERVESCOPE_BINARY, "twin"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    argv.insert(argv.end(), {"--host", "127.0.0.1", "--port", "0"});
    std::fflush(nullptr);  // the child must not repeat our buffered output
    pid_ = ::fork();
    if (pid_ == 0) {
      std::freopen(out_path.c_str(), "w", stdout);
      std::freopen(err_path.c_str(), "w", stderr);
      std::vector<char*> args;
      for (std::string& a : argv)
        args.push_back(a.data());
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      std::_Exit(127);
    }
  }
  ~TwinProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    std::filesystem::remove(out_path, ec);
    std::filesystem::remove(err_path, ec);
  }
  TwinProcess(const TwinProcess&) = delete;
  TwinProcess& operator=(const TwinProcess&) = delete;

  /// The port from the twin's "served at http://127.0.0.1:PORT" line; 0 if it exits or 20 s pass.
  int wait_port() {
    static const std::regex kServed(R"(served at http://127\.0\.0\.1:(\d+))");
    for (int i = 0; i < 400; ++i) {
      std::smatch m;
      const std::string out = read_text(out_path);
      if (std::regex_search(out, m, kServed))
        return port = std::stoi(m[1]);
      if (poll_exit())
        return 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return 0;
  }
  /// Waits for the ready line on stderr (bounded).
  bool wait_ready() {
    for (int i = 0; i < 400; ++i) {
      // SGLang's ready line, or uvicorn's that vLLM prints.
      const std::string err = read_text(err_path);
      if (err.find("The server is fired up and ready to roll!") != std::string::npos ||
          err.find("Application startup complete.") != std::string::npos)
        return true;
      if (poll_exit())
        return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  /// True once the child has exited (then `status` holds its exit code, or 128 + signal).
  bool poll_exit() {
    if (exited_)
      return true;
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) {
      exited_ = true;
      status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    return exited_;
  }
  /// Waits up to `limit` for the child to exit.
  bool wait_exit(std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      if (poll_exit())
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return poll_exit();
  }
  void signal(int sig) { ::kill(pid_, sig); }
  std::string err() const { return read_text(err_path); }
  std::string out() const { return read_text(out_path); }

  int port = 0;
  int status = -1;
  std::string out_path, err_path;

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
};

/// Runs a shell command (fixed arguments only) and returns its stdout.
inline std::string run_capture(const std::string& command, int* exit_code = nullptr) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr)
    return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  const int st = ::pclose(p);
  if (exit_code != nullptr)
    *exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

inline const std::vector<std::string>& founding_command() {
  static const std::vector<std::string> kCommand = {
      "python", "-m", "sglang.launch_server",    "--model-path", "Qwen/Qwen3.5-122B-A10B-FP8",
      "--tp",   "4",  "--speculative-algorithm", "NEXTN"};
  return kCommand;
}

inline std::vector<std::string> founding_options(std::vector<std::string> more = {}) {
  // On the release the founding case was found on (0.5.16), whose figures the tests hold.
  std::vector<std::string> o = {"--engine",
                                "sglang@0.5.16",
                                "--gpu",
                                "rtx-pro-6000",
                                "--gpus",
                                "4",
                                "--free-before-load",
                                "94.6",
                                "--free-after-load",
                                "64.6",
                                "--no-access-log"};
  o.insert(o.end(), more.begin(), more.end());
  return o;
}

}  // namespace servescope::testing
