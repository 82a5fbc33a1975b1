// The twin benchmark's load client: one thread of Boost.Asio, N connections each sending one
// streaming request and counting server-sent events ("data: " lines) until "data: [DONE]".
// It does no JSON parsing and no allocation per event, so it stays far from its core's limit
// while the server works; its own CPU time is measured and reported with every figure.
#pragma once

// clang-format off
#include <utility>  // first: Boost 1.74's asio/awaitable.hpp uses std::exchange without it
// clang-format on
#include <sys/resource.h>

#include <array>
#include <boost/asio.hpp>
#include <chrono>
#include <memory>
#include <string>

namespace servescope::bench {

namespace net = boost::asio;
using tcp = net::ip::tcp;

struct LoadResult {
  int streams = 0;
  int completed = 0;  // reached [DONE]
  int failed = 0;     // connect, write or read error, or closed before [DONE]
  int peak_open = 0;  // streams receiving at the same time
  std::uint64_t events = 0;
  std::uint64_t bytes = 0;
  double wall_s = 0;
  double client_cpu_s = 0;
};

inline double thread_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

class SseLoad {
 public:
  SseLoad(int port, int streams, std::string body, double timeout_s)
      : endpoint_(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)),
        streams_(streams),
        timeout_s_(timeout_s),
        timer_(ioc_) {
    request_ =
        "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  LoadResult run() {
    const double cpu0 = thread_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    result_.streams = streams_;
    // Connections open a few hundred at a time, so the listen backlog never overflows.
    for (int i = 0; i < std::min(streams_, kConnectWindow); ++i)
      open_next();
    timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(timeout_s_)));
    timer_.async_wait([this](boost::system::error_code ec) {
      if (!ec)
        ioc_.stop();
    });
    ioc_.run();
    result_.wall_s = std::chrono::duration<double>(last_done_ - t0).count();
    result_.client_cpu_s = thread_cpu_seconds() - cpu0;
    result_.failed = streams_ - result_.completed;
    return result_;
  }

 private:
  static constexpr int kConnectWindow = 256;

  struct Conn : std::enable_shared_from_this<Conn> {
    Conn(net::io_context& io, SseLoad& load) : socket(io), owner(load) {}
    tcp::socket socket;
    SseLoad& owner;
    std::array<char, 65536> buf{};
    int data_match = 0;   // bytes of "data: " matched so far
    int done_match = -1;  // bytes of "[DONE]" matched after a "data: ", -1 when not looking
    bool receiving = false;
    bool connected = false;

    void start() {
      auto self = shared_from_this();
      socket.async_connect(owner.endpoint_, [self](boost::system::error_code ec) {
        self->connected = !ec;
        self->owner.connected_one();
        if (ec)
          return self->finish(false);
        net::async_write(self->socket, net::buffer(self->owner.request_),
                         [self](boost::system::error_code wec, std::size_t) {
                           if (wec)
                             return self->finish(false);
                           self->read();
                         });
      });
    }
    void read() {
      auto self = shared_from_this();
      socket.async_read_some(net::buffer(buf), [self](boost::system::error_code ec, std::size_t n) {
        if (ec)
          return self->finish(false);
        if (!self->receiving) {
          self->receiving = true;
          self->owner.open_streams_ += 1;
          self->owner.result_.peak_open =
              std::max(self->owner.result_.peak_open, self->owner.open_streams_);
        }
        self->owner.result_.bytes += n;
        if (self->scan(n))
          return self->finish(true);
        self->read();
      });
    }
    // Counts "data: " prefixes byte by byte (events may be split across reads); true once the
    // event after a "data: " is "[DONE]".
    bool scan(std::size_t n) {
      static constexpr char kData[] = "data: ";
      static constexpr char kDone[] = "[DONE]";
      for (std::size_t i = 0; i < n; ++i) {
        const char c = buf[i];
        if (done_match >= 0) {
          done_match = c == kDone[done_match] ? done_match + 1 : -1;
          if (done_match == 6)
            return true;
        }
        if (c == kData[data_match]) {
          if (++data_match == 6) {
            ++owner.result_.events;
            data_match = 0;
            done_match = 0;
          }
        } else {
          data_match = c == 'd' ? 1 : 0;
        }
      }
      return false;
    }
    void finish(bool ok) {
      boost::system::error_code ignored;
      socket.close(ignored);
      if (receiving)
        owner.open_streams_ -= 1;
      owner.done_one(ok);
    }
  };

  void open_next() {
    if (opened_ >= streams_)
      return;
    ++opened_;
    std::make_shared<Conn>(ioc_, *this)->start();
  }
  void connected_one() { open_next(); }
  void done_one(bool ok) {
    if (ok)
      ++result_.completed;
    last_done_ = std::chrono::steady_clock::now();
    if (++finished_ == streams_) {
      timer_.cancel();
      ioc_.stop();
    }
  }

  net::io_context ioc_{1};
  tcp::endpoint endpoint_;
  int streams_;
  double timeout_s_;
  net::steady_timer timer_;
  std::string request_;
  LoadResult result_;
  int opened_ = 0;
  int finished_ = 0;
  int open_streams_ = 0;
  std::chrono::steady_clock::time_point last_done_;
};

}  // namespace servescope::bench
