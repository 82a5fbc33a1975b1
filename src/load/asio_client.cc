#include "load/asio_client.h"

#include <fmt/format.h>

#include <chrono>

#include "load/http_response_parser.h"

namespace servescope {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

constexpr std::size_t kReadBytes = 64 * 1024;
constexpr int kReadsPerTurn = 16;  // 1 MiB from one socket before the others get a turn

double steady_seconds(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

}  // namespace

AsioLoop::AsioLoop() = default;
AsioLoop::~AsioLoop() = default;

double AsioLoop::now() const {
  return steady_seconds(std::chrono::steady_clock::now());
}

EventLoop::TimerId AsioLoop::at(double t, Callback fn) {
  const TimerId id = ++next_;
  auto timer = std::make_shared<net::steady_timer>(ioc_);
  timer->expires_at(std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(t))));
  timers_.emplace(id, timer);
  timer->async_wait([this, id, timer, fn = std::move(fn)](boost::system::error_code ec) {
    auto it = timers_.find(id);
    if (it == timers_.end() || it->second != timer)
      return;
    timers_.erase(it);
    if (!ec)
      fn();
  });
  return id;
}

void AsioLoop::cancel(TimerId id) {
  auto it = timers_.find(id);
  if (it == timers_.end())
    return;
  it->second->cancel();
  timers_.erase(it);
}

void AsioLoop::run() {
  auto guard = net::make_work_guard(ioc_);
  ioc_.restart();
  ioc_.run();
}

void AsioLoop::stop() {
  ioc_.stop();
}

struct AsioTransport::Conn {
  explicit Conn(net::io_context& io) : socket(io) {}
  tcp::socket socket;
  ExchangeHandler* handler = nullptr;
  Handle id = 0;
  std::string_view request;
  bool reused = false;     // this exchange runs on a kept-alive connection
  bool got_bytes = false;  // the current exchange has seen response bytes
  bool retried = false;
};

AsioTransport::AsioTransport(AsioLoop& loop, tcp::endpoint endpoint)
    : loop_(loop), endpoint_(std::move(endpoint)), buffer_(new char[kReadBytes]) {}

AsioTransport::~AsioTransport() {
  for (auto& [id, c] : active_) {
    c->handler = nullptr;
    boost::system::error_code ignored;
    c->socket.close(ignored);
  }
  close_idle();
}

Result<std::unique_ptr<AsioTransport>> AsioTransport::open(AsioLoop& loop, const ServerUrl& url) {
  boost::system::error_code ec;
  tcp::resolver resolver(loop.context());
  auto results = resolver.resolve(url.host, std::to_string(url.port), ec);
  if (ec || results.empty())
    return servescope::fail(
        fmt::format("--url {}: cannot resolve {}: {}", url.str(), url.host, ec.message()));
  return std::unique_ptr<AsioTransport>(new AsioTransport(loop, results.begin()->endpoint()));
}

Transport::Handle AsioTransport::send(std::string_view request, ExchangeHandler& handler) {
  std::shared_ptr<Conn> c;
  while (!idle_.empty() && !c) {
    c = std::move(idle_.back());
    idle_.pop_back();
    if (!c->socket.is_open())
      c.reset();
  }
  const bool reused = c != nullptr;
  if (!c)
    c = std::make_shared<Conn>(loop_.context());
  c->handler = &handler;
  c->id = ++next_;
  c->request = request;
  c->reused = reused;
  c->got_bytes = false;
  c->retried = false;
  active_.emplace(c->id, c);
  if (reused)
    write(c);
  else
    connect(c);
  return c->id;
}

void AsioTransport::connect(const std::shared_ptr<Conn>& c) {
  ++opened_;
  const Handle id = c->id;
  c->socket.async_connect(endpoint_, [this, c, id](boost::system::error_code ec) {
    if (c->id != id || c->handler == nullptr)
      return;
    if (ec)
      return fail(c, TransportFailure::kConnect);
    boost::system::error_code ignored;
    c->socket.set_option(tcp::no_delay(true), ignored);
    c->socket.non_blocking(true, ignored);  // reads are tried and return at once (drain)
    write(c);
  });
}

void AsioTransport::write(const std::shared_ptr<Conn>& c) {
  const Handle id = c->id;
  net::async_write(c->socket, net::buffer(c->request.data(), c->request.size()),
                   [this, c, id](boost::system::error_code ec, std::size_t) {
                     if (!moved_on(c, id, ec))
                       read(c);
                   });
}

// Reads wait for readiness, then `drain` reads into the transport's one buffer: a thousand
// streams share 64 KiB that stays in cache instead of each holding its own.
void AsioTransport::read(const std::shared_ptr<Conn>& c) {
  const Handle id = c->id;
  c->socket.async_wait(tcp::socket::wait_read, [this, c, id](boost::system::error_code ec) {
    if (!moved_on(c, id, ec))
      drain(c);
  });
}

// Reads until the socket has no more bytes. A read shorter than the buffer took all the socket
// held; bytes that arrive after it raise readiness again (the loop is single-threaded, so the
// next wait is queued before readiness is looked at again). A socket that stays full (a server
// faster than the client) yields after a few reads, so other streams and the run's timers go on.
void AsioTransport::drain(const std::shared_ptr<Conn>& c) {
  const Handle id = c->id;
  for (int reads = 0;; ++reads) {
    if (reads == kReadsPerTurn) {
      net::post(loop_.context(), [this, c, id] {
        if (c->id == id && c->handler != nullptr)
          drain(c);
      });
      return;
    }
    boost::system::error_code ec;
    const std::size_t n = c->socket.read_some(net::buffer(buffer_.get(), kReadBytes), ec);
    if (ec == net::error::would_block || ec == net::error::try_again)
      return read(c);
    if (ec) {
      if (retry(c))
        return;
      return fail(c, ec == net::error::eof ? TransportFailure::kClosed : TransportFailure::kIo);
    }
    c->got_bytes = true;
    ExchangeHandler* h = c->handler;
    const auto next = h->on_bytes(std::string_view(buffer_.get(), n));
    if (next == ExchangeHandler::Next::kMore) {
      if (c->id != id || c->handler == nullptr)
        return;  // aborted from inside on_bytes
      if (n < kReadBytes)
        return read(c);
      continue;
    }
    if (c->id != id || c->handler == nullptr)
      return;  // aborted from inside on_bytes
    c->handler = nullptr;
    active_.erase(id);
    if (next == ExchangeHandler::Next::kDone) {
      idle_.push_back(c);
    } else {
      boost::system::error_code ignored;
      c->socket.close(ignored);
    }
    h->on_finished();
    return;
  }
}

// In a completion handler: whether the exchange has moved on — it was aborted, or the operation
// failed and the exchange was retried on a fresh connection or failed — so the handler stops.
bool AsioTransport::moved_on(const std::shared_ptr<Conn>& c, Handle id,
                             boost::system::error_code ec) {
  if (c->id != id || c->handler == nullptr)
    return true;
  if (!ec)
    return false;
  if (!retry(c))
    fail(c, TransportFailure::kIo);
  return true;
}

// A kept-alive connection the server had closed: send again once on a fresh one, before any
// byte of the response arrived.
bool AsioTransport::retry(const std::shared_ptr<Conn>& c) {
  if (!c->reused || c->got_bytes || c->retried)
    return false;
  ExchangeHandler* h = c->handler;
  const Handle id = c->id;
  c->handler = nullptr;
  boost::system::error_code ignored;
  c->socket.close(ignored);
  auto fresh = std::make_shared<Conn>(loop_.context());
  fresh->handler = h;
  fresh->id = id;
  fresh->request = c->request;
  fresh->retried = true;
  active_[id] = fresh;
  connect(fresh);
  return true;
}

void AsioTransport::fail(const std::shared_ptr<Conn>& c, TransportFailure failure) {
  ExchangeHandler* h = c->handler;
  active_.erase(c->id);
  c->handler = nullptr;
  boost::system::error_code ignored;
  c->socket.close(ignored);
  if (h != nullptr)
    h->on_failed(failure);
}

void AsioTransport::abort(Handle handle) {
  auto it = active_.find(handle);
  if (it == active_.end())
    return;
  std::shared_ptr<Conn> c = it->second;
  active_.erase(it);
  c->handler = nullptr;
  boost::system::error_code ignored;
  c->socket.close(ignored);
}

void AsioTransport::close_idle() {
  for (auto& c : idle_) {
    boost::system::error_code ignored;
    c->socket.close(ignored);
  }
  idle_.clear();
}

namespace {

class FetchHandler final : public ExchangeHandler {
 public:
  explicit FetchHandler(EventLoop& loop) : loop_(loop) {}
  Next on_bytes(std::string_view bytes) override {
    const auto state = parser_.feed(bytes, [&](std::string_view part) {
      if (reply_.body.size() + part.size() > (std::size_t{16} << 20)) {
        error_ = "the reply is over 16 MiB";
        return false;
      }
      reply_.body.append(part);
      return true;
    });
    if (!error_.empty())
      return Next::kDoneClose;
    if (state == HttpResponseParser::State::kError) {
      error_ = parser_.error();
      return Next::kDoneClose;
    }
    if (state == HttpResponseParser::State::kDone) {
      reply_.status = parser_.status();
      return parser_.keep_alive() ? Next::kDone : Next::kDoneClose;
    }
    return Next::kMore;
  }
  void on_finished() override {
    done_ = true;
    loop_.stop();
  }
  void on_failed(TransportFailure f) override {
    if (parser_.state() == HttpResponseParser::State::kBody &&
        parser_.close() == HttpResponseParser::State::kDone) {
      reply_.status = parser_.status();
    } else {
      error_ = f == TransportFailure::kConnect ? "connection refused or unreachable"
                                               : "the connection closed before the reply";
    }
    done_ = true;
    loop_.stop();
  }
  EventLoop& loop_;
  HttpResponseParser parser_;
  FetchReply reply_;
  std::string error_;
  bool done_ = false;
};

}  // namespace

Result<FetchReply> fetch(EventLoop& loop, Transport& transport, const std::string& request,
                         double timeout_s, const std::string& what) {
  FetchHandler h(loop);
  const Transport::Handle handle = transport.send(request, h);
  bool timed_out = false;
  const auto timer = loop.at(loop.now() + timeout_s, [&] {
    timed_out = true;
    loop.stop();
  });
  loop.run();
  loop.cancel(timer);
  if (!h.done_) {
    transport.abort(handle);
    return fail(fmt::format("{}: no reply within {} s", what, timeout_s));
  }
  (void)timed_out;
  if (!h.error_.empty())
    return fail(fmt::format("{}: {}", what, h.error_));
  return h.reply_;
}

}  // namespace servescope
