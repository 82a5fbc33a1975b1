// `bench` against servers that misbehave, each a tiny test server on 127.0.0.1 in a thread:
// garbage instead of HTTP, a 2 GB body, a 2 GB event, an endless stream, no response, and a
// refused connection. Each is reported by kind, and each run ends within its bounds (every
// server loop here is bounded too).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "load/bench_session.h"

namespace servescope::testing {
namespace {

// Accepts up to `max_connections`, reads each request's head, then runs `reply(fd)`.
class TinyServer {
 public:
  TinyServer(std::function<void(int fd)> reply, int max_connections)
      : reply_(std::move(reply)), max_(max_connections) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 64);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~TinyServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    for (std::thread& t : workers_)
      t.join();
  }
  int port() const { return port_; }
  static bool stopping(const std::atomic<bool>& s) { return s.load(); }
  const std::atomic<bool>& stop_flag() const { return stop_; }

 private:
  void serve() {
    for (int i = 0; i < max_ && !stop_; ++i) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0)
        return;
      workers_.emplace_back([this, c] {
        timeval tv{5, 0};
        ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        ::setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        std::string head;
        char buf[4096];
        while (head.find("\r\n\r\n") == std::string::npos) {
          const ssize_t n = ::recv(c, buf, sizeof buf, 0);
          if (n <= 0)
            break;
          head.append(buf, static_cast<std::size_t>(n));
        }
        reply_(c);
        ::close(c);
      });
    }
  }
  std::function<void(int)> reply_;
  int max_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<std::thread> workers_;
};

bool send_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0)
      return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

// Waits until the peer closes (or 10 s): a server that says nothing more.
void wait_for_close(int fd) {
  char buf[256];
  for (int i = 0; i < 100; ++i) {
    timeval tv{0, 100000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
      return;
  }
}

BenchReport bench_against(int port, int requests, double timeout_s, bool stream = true) {
  BenchOptions o;
  o.url = *parse_server_url("http://127.0.0.1:" + std::to_string(port));
  o.api = *resolve_api("openai-completions");
  o.model = "m";
  o.stream = stream;
  o.watch_server = false;
  o.dataset.input_len = "16";
  o.dataset.output_len = "8";
  PointPlan p;
  p.concurrency = 2;
  p.requests = requests;
  p.timeout_s = timeout_s;
  o.points.push_back(p);
  auto r = run_bench(o);
  EXPECT_TRUE(r.ok()) << r.message();
  return r.ok() ? *r : BenchReport{};
}

std::uint64_t errors_of(const BenchPoint& p, const char* kind) {
  auto it = p.errors.by_kind.find(kind);
  return it == p.errors.by_kind.end() ? 0 : it->second;
}

TEST(MisbehavingServer, GarbageInsteadOfHttpIsMalformedHttp) {
  TinyServer server(
      [](int fd) { send_all(fd, std::string("\x01\x02 not http at all\r\n\r\n", 22)); }, 8);
  const BenchReport r = bench_against(server.port(), 4, 5);
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(errors_of(r.points[0], "malformed_http"), 4u);
  EXPECT_EQ(r.points[0].requests_completed, 0u);
}

TEST(MisbehavingServer, AnSseStreamOfGarbageLinesIsMalformedSse) {
  TinyServer server(
      [](int fd) {
        send_all(fd,
                 "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                 "<html>oops</html>\nnot an event\n\n");
      },
      8);
  const BenchReport r = bench_against(server.port(), 4, 5);
  EXPECT_EQ(errors_of(r.points[0], "malformed_sse"), 4u);
}

TEST(MisbehavingServer, ATwoGigabyteBodyIsCutAtTheLimitNotBuffered) {
  TinyServer server(
      [](int fd) {
        const std::string head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
            "2147483648\r\n\r\n";
        if (!send_all(fd, head))
          return;
        const std::string block(1 << 20, ' ');
        for (int i = 0; i < 2048; ++i)  // 2 GiB at most; stops when the client closes
          if (!send_all(fd, block))
            return;
      },
      4);
  const BenchReport r = bench_against(server.port(), 2, 30, /*stream=*/false);
  EXPECT_EQ(errors_of(r.points[0], "malformed_http"), 2u);
  EXPECT_NE(r.points[0].errors.example.at("malformed_http").find("64 MiB"), std::string::npos);
}

TEST(MisbehavingServer, ATwoGigabyteEventIsCutAtTheEventLimit) {
  TinyServer server(
      [](int fd) {
        if (!send_all(fd,
                      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: "
                      "close\r\n\r\ndata: {\"choices\":[{\"text\":\""))
          return;
        const std::string block(1 << 20, 'x');
        for (int i = 0; i < 2048; ++i)
          if (!send_all(fd, block))
            return;
      },
      4);
  const BenchReport r = bench_against(server.port(), 2, 30);
  EXPECT_EQ(errors_of(r.points[0], "malformed_sse"), 2u);
}

constexpr const char* kEventStreamHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

// Two requests against a stream that never ends, with a 1 s timeout: both time out, and the
// run ends at the timeout plus the sweep's resolution. `done` stops the server's loop.
void expect_both_time_out_after_one_second(const TinyServer& server, std::atomic<bool>& done) {
  const BenchReport r = bench_against(server.port(), 2, 1.0);
  done = true;
  const BenchPoint& p = r.points[0];
  EXPECT_EQ(errors_of(p, "timeout"), 2u);
  EXPECT_LT(p.duration_s, 1.0 + 1.0);
  EXPECT_GE(p.duration_s, 1.0);
}

TEST(MisbehavingServer, AnEndlessStreamEndsAtTheTimeout) {
  std::atomic<bool> done{false};
  TinyServer server(
      [&done](int fd) {
        if (!send_all(fd, kEventStreamHead))
          return;
        for (int i = 0; i < 3000 && !done; ++i) {  // at most 30 s
          if (!send_all(fd, "data: {\"choices\":[{\"text\":\" x\"}]}\n\n"))
            return;
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
      },
      4);
  expect_both_time_out_after_one_second(server, done);
}

// A stream that keeps the client's socket full (no pause between events) must not hold the
// event loop: the timeout still fires on time.
TEST(MisbehavingServer, AStreamFasterThanTheClientEndsAtTheTimeout) {
  std::atomic<bool> done{false};
  TinyServer server(
      [&done](int fd) {
        if (!send_all(fd, kEventStreamHead))
          return;
        std::string burst;
        while (burst.size() < (std::size_t{1} << 20))
          burst += "data: {\"choices\":[{\"text\":\" x\"}]}\n\n";
        const auto stop = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        for (int i = 0; i < 100000 && !done && std::chrono::steady_clock::now() < stop; ++i) {
          if (!send_all(fd, burst))
            return;
        }
      },
      4);
  expect_both_time_out_after_one_second(server, done);
}

TEST(MisbehavingServer, NoResponseEndsAtTheTimeout) {
  TinyServer server([](int fd) { wait_for_close(fd); }, 4);
  const BenchReport r = bench_against(server.port(), 2, 0.5);
  const BenchPoint& p = r.points[0];
  EXPECT_EQ(errors_of(p, "timeout"), 2u);
  EXPECT_LT(p.duration_s, 0.5 + 1.0);
}

TEST(MisbehavingServer, ARefusedConnectionIsAConnectError) {
  int port;
  {
    TinyServer closed([](int) {}, 0);
    port = closed.port();
  }  // nothing listens there now
  const BenchReport r = bench_against(port, 3, 1.0);
  EXPECT_EQ(errors_of(r.points[0], "connect"), 3u);
}

}  // namespace
}  // namespace servescope::testing
