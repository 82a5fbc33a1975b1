// The real side effects: an event loop on one Boost.Asio io_context (steady clock, timers)
// and an HTTP/1.1 transport over TCP to the one server given, with kept-alive connections
// reused and no thread or timer per request. A kept-alive connection the server closed while
// idle is retried once on a new connection.
#pragma once

// clang-format off
#include <utility>  // first: Boost 1.74's asio/awaitable.hpp uses std::exchange without it
// clang-format on
#include <boost/asio.hpp>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "load/event_loop.h"
#include "load/transport.h"
#include "load/url.h"

namespace servescope {

class AsioLoop final : public EventLoop {
 public:
  AsioLoop();
  ~AsioLoop() override;
  double now() const override;
  TimerId at(double t, Callback fn) override;
  void cancel(TimerId id) override;
  void run() override;
  void stop() override;
  boost::asio::io_context& context() { return ioc_; }

 private:
  boost::asio::io_context ioc_{1};
  std::unordered_map<TimerId, std::shared_ptr<boost::asio::steady_timer>> timers_;
  TimerId next_ = 0;
};

class AsioTransport final : public Transport {
 public:
  /// Resolves the URL's host once (it is the only host contacted).
  static Result<std::unique_ptr<AsioTransport>> open(AsioLoop& loop, const ServerUrl& url);
  ~AsioTransport() override;

  Handle send(std::string_view request, ExchangeHandler& handler) override;
  void abort(Handle handle) override;
  void close_idle() override;
  std::size_t connections_opened() const { return opened_; }

 private:
  struct Conn;
  AsioTransport(AsioLoop& loop, boost::asio::ip::tcp::endpoint endpoint);
  void connect(const std::shared_ptr<Conn>& c);
  void write(const std::shared_ptr<Conn>& c);
  void read(const std::shared_ptr<Conn>& c);
  void drain(const std::shared_ptr<Conn>& c);
  bool moved_on(const std::shared_ptr<Conn>& c, Handle id, boost::system::error_code ec);
  void fail(const std::shared_ptr<Conn>& c, TransportFailure failure);
  bool retry(const std::shared_ptr<Conn>& c);

  AsioLoop& loop_;
  boost::asio::ip::tcp::endpoint endpoint_;
  std::vector<std::shared_ptr<Conn>> idle_;
  std::unordered_map<Handle, std::shared_ptr<Conn>> active_;
  Handle next_ = 0;
  std::size_t opened_ = 0;
  std::unique_ptr<char[]> buffer_;  // every read lands here and is handled before the next
};

/// One GET (or a request given whole) on `transport`, running `loop` until the reply is in or
/// `timeout_s` passes: the status and body, or an error naming the URL.
struct FetchReply {
  int status = 0;
  std::string body;
};
Result<FetchReply> fetch(EventLoop& loop, Transport& transport, const std::string& request,
                         double timeout_s, const std::string& what);

}  // namespace servescope
