// One client connection of the twin server: reads HTTP/1.1 requests (Beast's parser, with a
// body limit), routes them, and writes responses — JSON bodies, or a chunked event stream fed
// by the serving loop. A read stays open while a generation runs, so a client that goes away
// cancels its request at once. Faults that act on one response (an injected 500, a stream cut
// after K tokens) live here.
#pragma once

// clang-format off
#include <utility>  // first: Boost 1.74's asio/awaitable.hpp uses std::exchange without it
// clang-format on
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>  // Boost 1.74's asio/awaitable.hpp uses std::exchange without it
#include <vector>

#include "twin/api_response.h"
#include "twin/random.h"
#include "twin/serving_loop.h"
#include "twin/twin_server.h"

namespace servescope {

namespace net = boost::asio;
using tcp = net::ip::tcp;

/// What every session shares with the server.
struct ServerContext {
  ServerContext(net::io_context& io, ServingLoop& serving_loop, const TwinProfile& twin_profile,
                const TwinServerOptions& twin_options, LogSink& sink, Clock& c, std::string model)
      : ioc(io),
        loop_strand(net::make_strand(io)),
        loop(serving_loop),
        profile(twin_profile),
        options(twin_options),
        log(sink),
        clock(c),
        rng(twin_options.seed),
        model_name(std::move(model)),
        extra_fields(twin_profile.extra_request_fields()) {}

  net::io_context& ioc;
  net::strand<net::io_context::executor_type> loop_strand;  // every ServingLoop call runs here
  ServingLoop& loop;
  const TwinProfile& profile;
  const TwinServerOptions& options;
  LogSink& log;
  Clock& clock;
  std::atomic<bool> ready{false};
  std::mutex rng_mutex;
  Random rng;  // the error-rate fault's draws
  std::atomic<std::uint64_t> next_id{1};
  std::string model_name;
  std::vector<std::string> extra_fields;
  std::function<void()> kick;  // on loop_strand: poll the loop and arm its timer

  bool draw_error() {
    if (options.faults.error_rate <= 0)
      return false;
    std::lock_guard<std::mutex> lock(rng_mutex);
    return rng.uniform() < options.faults.error_rate;
  }
  void access(const std::string& client, std::string_view method, std::string_view target,
              int status) {
    if (!options.access_log)
      return;
    const std::string text = profile.access_log_line(client, method, target, status);
    if (!text.empty())
      log.write(profile.access_log_prefixed() ? profile.format_log_line(clock.wall(), "", text)
                                              : text);
  }
};

class HttpSession final : public TokenSink, public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, ServerContext& context);
  void start();
  /// Called by the serving loop on its strand.
  void on_tokens(std::int64_t from, std::int32_t count, bool finished) override;

 private:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;

  void read_request();
  void on_read(boost::beast::error_code ec);
  void handle(const Request& request);
  void handle_generation(ApiKind kind, const Request& request);
  void deliver_pending();
  void deliver(std::int64_t from, std::int32_t count, bool finished, double now);
  void respond(int status, std::string_view content_type, std::string_view body);
  void respond_error(int status, std::string_view message);
  void start_stream();
  void watch();
  void on_watch(boost::beast::error_code ec, std::size_t n);
  void flush();
  void on_write(boost::beast::error_code ec);
  void response_done();
  void cut();
  void close();

  tcp::socket socket_;
  ServerContext& ctx_;
  std::string client_;
  std::string method_;  // of the request being answered, for the access log
  std::string target_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  bool keep_alive_ = true;
  bool closed_ = false;

  std::string out_;      // bytes to write next
  std::string writing_;  // bytes being written
  std::string scratch_;  // one stream event being built
  bool write_in_flight_ = false;
  bool reading_ = false;     // a read (request or watch) is in flight
  bool responding_ = false;  // between a request and the end of its response
  bool close_after_write_ = false;

  // Tokens from the serving loop not yet rendered (filled on the loop's strand).
  struct PendingTokens {
    std::int64_t from;
    std::int32_t count;
    bool finished;
  };
  std::mutex pending_mutex_;
  std::vector<PendingTokens> pending_;
  std::vector<PendingTokens> delivering_;  // the batch being rendered (this session only)

  // The generation in progress.
  std::optional<ResponseRenderer> renderer_;
  std::optional<ServingLoop::Ticket> ticket_;
  bool streaming_ = false;
  std::int64_t tokens_ = 0;
  double started_ = 0;
};

}  // namespace servescope
