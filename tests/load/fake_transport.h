// A scripted server for the runner's unit tests, on the fake event loop: each request gets a
// reply made of timed byte chunks (offsets from its send), or a refused connection, or
// silence. Exact and instant; the same parsers read the bytes as in a real run.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "load/event_loop.h"
#include "load/transport.h"

namespace servescope::testing {

struct ScriptedReply {
  bool refuse = false;                                 // the connection fails
  std::vector<std::pair<double, std::string>> chunks;  // (seconds after the send, bytes)
  double close_at = -1;  // the server closes the connection then (-1: never)
};

class FakeTransport final : public Transport {
 public:
  using Script = std::function<ScriptedReply(std::uint64_t index, double now)>;
  FakeTransport(FakeEventLoop& loop, Script script) : loop_(loop), script_(std::move(script)) {}

  Handle send(std::string_view request, ExchangeHandler& handler) override {
    const Handle h = ++next_;
    requests_.emplace_back(request);
    const std::uint64_t index = sent_++;
    const double now = loop_.now();
    ScriptedReply reply = script_(index, now);
    Exchange& ex = exchanges_[h];
    ex.handler = &handler;
    if (reply.refuse) {
      ex.timers.push_back(loop_.at(now, [this, h] { fail(h, TransportFailure::kConnect); }));
      return h;
    }
    for (auto& [offset, bytes] : reply.chunks) {
      ex.timers.push_back(
          loop_.at(now + offset, [this, h, b = std::move(bytes)] { deliver(h, b); }));
    }
    if (reply.close_at >= 0)
      ex.timers.push_back(
          loop_.at(now + reply.close_at, [this, h] { fail(h, TransportFailure::kClosed); }));
    return h;
  }
  void abort(Handle h) override {
    auto it = exchanges_.find(h);
    if (it == exchanges_.end())
      return;
    for (auto id : it->second.timers)
      loop_.cancel(id);
    exchanges_.erase(it);
    ++aborted_;
  }
  void close_idle() override {}

  std::uint64_t sent() const { return sent_; }
  std::uint64_t aborted() const { return aborted_; }
  const std::vector<std::string>& requests() const { return requests_; }

 private:
  struct Exchange {
    ExchangeHandler* handler = nullptr;
    std::vector<EventLoop::TimerId> timers;
  };
  void deliver(Handle h, const std::string& bytes) {
    auto it = exchanges_.find(h);
    if (it == exchanges_.end())
      return;
    ExchangeHandler* handler = it->second.handler;
    const auto next = handler->on_bytes(bytes);
    if (next == ExchangeHandler::Next::kMore)
      return;
    finish(h);
    handler->on_finished();
  }
  void fail(Handle h, TransportFailure f) {
    auto it = exchanges_.find(h);
    if (it == exchanges_.end())
      return;
    ExchangeHandler* handler = it->second.handler;
    finish(h);
    handler->on_failed(f);
  }
  void finish(Handle h) {
    auto it = exchanges_.find(h);
    for (auto id : it->second.timers)
      loop_.cancel(id);
    exchanges_.erase(it);
  }

  FakeEventLoop& loop_;
  Script script_;
  std::map<Handle, Exchange> exchanges_;
  Handle next_ = 0;
  std::uint64_t sent_ = 0;
  std::uint64_t aborted_ = 0;
  std::vector<std::string> requests_;
};

/// A whole non-streaming completions reply with usage.
inline std::string json_reply(int prompt_tokens, int completion_tokens, int status = 200) {
  const std::string body =
      R"({"id":"x","object":"text_completion","choices":[{"index":0,"text":"hi","finish_reason":"length"}],"usage":{"prompt_tokens":)" +
      std::to_string(prompt_tokens) + R"(,"completion_tokens":)" +
      std::to_string(completion_tokens) + "}}";
  return "HTTP/1.1 " + std::to_string(status) +
         " OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

inline std::string sse_head() {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
}

/// One HTTP chunk carrying `payload`.
inline std::string http_chunk(const std::string& payload) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", payload.size());
  return size + payload + "\r\n";
}

}  // namespace servescope::testing
