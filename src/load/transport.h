// How the load runner sends one HTTP request and hears its response, whatever carries the
// bytes: Asio sockets to the server (asio_client.h) or a scripted fake in tests.
#pragma once

#include <cstdint>
#include <string_view>

namespace servescope {

enum class TransportFailure {
  kConnect,  // the connection could not be opened
  kClosed,   // the server closed the connection before the response was complete
  kIo,       // a read or write failed (reset)
};

/// One request's view of its connection. Called on the event loop.
class ExchangeHandler {
 public:
  enum class Next {
    kMore,       // keep reading
    kDone,       // the response is complete; the connection may carry the next request
    kDoneClose,  // the response is complete (or failed); close the connection
  };
  virtual ~ExchangeHandler() = default;
  /// Response bytes as they arrive.
  virtual Next on_bytes(std::string_view bytes) = 0;
  /// After kDone/kDoneClose was returned and the connection was put away.
  virtual void on_finished() = 0;
  /// The connection ended first; no more calls follow.
  virtual void on_failed(TransportFailure failure) = 0;
};

class Transport {
 public:
  using Handle = std::uint64_t;
  virtual ~Transport() = default;
  /// Sends `request` (kept alive by the caller until the exchange ends) on an idle kept-alive
  /// connection or a new one.
  virtual Handle send(std::string_view request, ExchangeHandler& handler) = 0;
  /// Drops an exchange: its connection is closed and the handler is not called again.
  virtual void abort(Handle handle) = 0;
  /// Closes idle connections.
  virtual void close_idle() = 0;
};

}  // namespace servescope
