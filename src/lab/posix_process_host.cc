#include "lab/posix_process_host.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/text.h"

extern char** environ;

namespace servescope {
namespace {

class PosixServerProcess final : public ServerProcess {
 public:
  explicit PosixServerProcess(pid_t pid) : pid_(pid) {}
  ~PosixServerProcess() override {
    // The runner tears the group down; this only keeps a forgotten group from outliving us.
    if (group_alive()) {
      ::kill(-pid_, SIGKILL);
      for (int i = 0; i < 200 && group_alive(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  int pid() const override { return pid_; }

  std::optional<int> exit_status() override {
    reap();
    return status_;
  }
  void signal_group(int signal) override { ::kill(-pid_, signal); }
  bool group_alive() override {
    reap();
    return ::kill(-pid_, 0) == 0 || errno == EPERM;
  }

 private:
  void reap() {
    int st = 0;
    pid_t p;
    // The leader, then any member of its group that became our child (we are a subreaper).
    while ((p = ::waitpid(-pid_, &st, WNOHANG)) > 0) {
      if (p == pid_)
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    if (!status_ && ::waitpid(pid_, &st, WNOHANG) == pid_)
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }

  pid_t pid_;
  std::optional<int> status_;
};

// argv[0] as execve needs it: a path containing '/' as is, else the first PATH entry that
// holds an executable file of that name ("" when none does).
std::string resolve_program(const std::string& name, const std::string& cwd) {
  if (name.find('/') != std::string::npos) {
    if (name.front() == '/' || cwd.empty())
      return name;
    return cwd + "/" + name;
  }
  const char* path = std::getenv("PATH");
  for (std::string_view dir : split(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin", ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "";
}

int open_output(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

void write_all(int fd, const char* text) {
  std::size_t n = std::strlen(text);
  while (n > 0) {
    const ssize_t w = ::write(fd, text, n);
    if (w <= 0)
      return;
    text += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

PosixProcessHost::PosixProcessHost() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

Result<std::unique_ptr<ServerProcess>> PosixProcessHost::launch(const LaunchSpec& spec) {
  if (spec.argv.empty())
    return fail("launch: empty command");
  const int out = open_output(spec.stdout_path);
  if (out < 0)
    return fail(fmt::format("cannot write {}: {}", spec.stdout_path, std::strerror(errno)));
  const int err = open_output(spec.stderr_path);
  if (err < 0) {
    ::close(out);
    return fail(fmt::format("cannot write {}: {}", spec.stderr_path, std::strerror(errno)));
  }
  // Everything the child needs is built before fork: between fork and exec only
  // async-signal-safe calls are allowed (other threads may hold the allocator's locks).
  const std::string program = resolve_program(spec.argv[0], spec.cwd);
  const std::string not_found =
      fmt::format("servescope bisect: cannot execute '{}': not found in PATH\n", spec.argv[0]);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view kv(*e);
    const std::string_view key = kv.substr(0, kv.find('='));
    bool overridden = false;
    for (const auto& [k, v] : spec.env)
      overridden = overridden || k == key;
    if (!overridden)
      env_strings.emplace_back(kv);
  }
  for (const auto& [k, v] : spec.env)
    env_strings.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  std::vector<std::string> args = spec.argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env_strings)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out);
    ::close(err);
    return fail(fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
    if (::getppid() != parent)  // the tool died before prctl took effect
      ::_exit(127);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    const int null_in = ::open("/dev/null", O_RDONLY);
    if (null_in >= 0)
      ::dup2(null_in, STDIN_FILENO);
    if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) {
      write_all(STDERR_FILENO, "servescope bisect: cannot change to the working directory\n");
      ::_exit(127);
    }
    if (program.empty()) {
      write_all(STDERR_FILENO, not_found.c_str());
      ::_exit(127);
    }
    ::execve(program.c_str(), argv.data(), envp.data());
    write_all(STDERR_FILENO, "servescope bisect: exec failed: ");
    write_all(STDERR_FILENO, std::strerror(errno));
    write_all(STDERR_FILENO, "\n");
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so the group exists before we signal it
  ::close(out);
  ::close(err);
  return std::unique_ptr<ServerProcess>(std::make_unique<PosixServerProcess>(pid));
}

std::optional<HttpUrl> parse_http_url(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme)
    return std::nullopt;
  url.remove_prefix(kScheme.size());
  HttpUrl out;
  const auto slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  out.target = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  if (authority.empty())
    return std::nullopt;
  if (authority.front() == '[') {  // [::1]:8000
    const auto close = authority.find(']');
    if (close == std::string_view::npos)
      return std::nullopt;
    out.host = std::string(authority.substr(1, close - 1));
    authority.remove_prefix(close + 1);
    if (!authority.empty() && authority.front() != ':')
      return std::nullopt;
    if (!authority.empty())
      authority.remove_prefix(0);
  } else {
    const auto colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    authority = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
  }
  if (!authority.empty()) {
    auto port = parse_int(authority.substr(1));
    if (!port || *port <= 0 || *port > 65535)
      return std::nullopt;
    out.port = static_cast<int>(*port);
  }
  return out.host.empty() ? std::nullopt : std::optional<HttpUrl>(out);
}

HttpReply PosixProcessHost::http_get(const std::string& url, std::chrono::milliseconds timeout) {
  HttpReply reply;
  const auto parsed = parse_http_url(url);
  if (!parsed) {
    reply.error = "not an http:// URL";
    return reply;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left_ms = [&] {
    const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<long long>(0, d.count()));
  };
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(parsed->host.c_str(), std::to_string(parsed->port).c_str(), &hints, &found) !=
          0 ||
      found == nullptr) {
    reply.error = "cannot resolve " + parsed->host;
    return reply;
  }
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    ::freeaddrinfo(found);
    reply.error = std::strerror(errno);
    return reply;
  }
  int rc = ::connect(fd, found->ai_addr, found->ai_addrlen);
  ::freeaddrinfo(found);
  auto finish = [&](std::string error) {
    ::close(fd);
    reply.error = std::move(error);
    return reply;
  };
  if (rc != 0 && errno != EINPROGRESS)
    return finish(std::strerror(errno));
  pollfd p{fd, POLLOUT, 0};
  if (rc != 0) {
    if (::poll(&p, 1, left_ms()) <= 0)
      return finish("timed out");
    int so_error = 0;
    socklen_t len = sizeof so_error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
    if (so_error != 0)
      return finish(std::strerror(so_error));
  }
  const std::string request =
      fmt::format("GET {} HTTP/1.0\r\nHost: {}:{}\r\nAccept: */*\r\nConnection: close\r\n\r\n",
                  parsed->target, parsed->host, parsed->port);
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t w = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (w > 0) {
      sent += static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && errno != EAGAIN && errno != EINTR)
      return finish(std::strerror(errno));
    p = {fd, POLLOUT, 0};
    if (::poll(&p, 1, left_ms()) <= 0)
      return finish("timed out");
  }
  std::string response;
  constexpr std::size_t kMaxBytes = std::size_t{8} << 20;
  char buf[16384];
  for (;;) {
    const ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r > 0) {
      response.append(buf, static_cast<std::size_t>(r));
      if (response.size() > kMaxBytes)
        return finish("response larger than 8 MiB");
      continue;
    }
    if (r == 0)
      break;
    if (errno != EAGAIN && errno != EINTR)
      return finish(std::strerror(errno));
    p = {fd, POLLIN, 0};
    if (::poll(&p, 1, left_ms()) <= 0)
      return finish("timed out");
  }
  ::close(fd);
  // "HTTP/1.x NNN reason"
  if (response.size() < 12 || response.compare(0, 5, "HTTP/") != 0) {
    reply.error = "not an HTTP response";
    return reply;
  }
  const auto space = response.find(' ');
  auto code = parse_int(std::string_view(response).substr(space + 1, 3));
  reply.status = code ? static_cast<int>(*code) : 0;
  const auto body = response.find("\r\n\r\n");
  if (body != std::string::npos)
    reply.body = response.substr(body + 4);
  return reply;
}

bool PosixProcessHost::port_free(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return false;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

int PosixProcessHost::pick_port() {
  std::lock_guard lock(mutex_);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      port = ntohs(addr.sin_port);
    ::close(fd);
    if (port > 0 && handed_out_.insert(port).second)
      return port;
  }
  return 0;
}

double PosixProcessHost::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double PosixProcessHost::wall_time() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void PosixProcessHost::sleep(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace servescope
