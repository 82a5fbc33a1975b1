#include "twin/http_session.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"

namespace servescope {
namespace {

namespace http = boost::beast::http;

std::string_view reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Content Too Large";
    case 415:
      return "Unsupported Media Type";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

std::string str(boost::beast::string_view s) {
  return std::string(s.data(), s.size());
}

std::string_view path_of(std::string_view target) {
  const auto q = target.find('?');
  return q == std::string_view::npos ? target : target.substr(0, q);
}

std::string request_id(std::uint64_t n, std::uint64_t seed) {
  // 32 hex digits, distinct per request, as the engine's request ids look.
  std::uint64_t a = n * 0x9e3779b97f4a7c15ULL ^ seed;
  std::uint64_t b = (n + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;
  a ^= a >> 31;
  b ^= b >> 29;
  return fmt::format("{:016x}{:016x}", a, b);
}

}  // namespace

HttpSession::HttpSession(tcp::socket socket, ServerContext& context)
    : socket_(std::move(socket)), ctx_(context) {
  boost::system::error_code ec;
  const auto remote = socket_.remote_endpoint(ec);
  client_ = ec ? std::string("unknown")
               : fmt::format("{}:{}", remote.address().to_string(), remote.port());
  socket_.set_option(tcp::no_delay(true), ec);
}

void HttpSession::start() {
  net::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->read_request(); });
}

void HttpSession::read_request() {
  if (closed_ || reading_)
    return;
  parser_.emplace();
  parser_->body_limit(ctx_.options.max_body_bytes);
  parser_->header_limit(64 * 1024);
  reading_ = true;
  http::async_read(socket_, buffer_, *parser_,
                   [self = shared_from_this()](boost::beast::error_code ec, std::size_t) {
                     self->reading_ = false;
                     self->on_read(ec);
                   });
}

void HttpSession::on_read(boost::beast::error_code ec) {
  if (closed_)
    return;
  method_.clear();
  target_.clear();
  if (ec == http::error::body_limit) {
    keep_alive_ = false;
    responding_ = true;
    respond_error(413, fmt::format("Request body exceeds the limit of {} bytes",
                                   ctx_.options.max_body_bytes));
    return;
  }
  if (ec == http::error::end_of_stream || ec == net::error::eof ||
      ec == net::error::connection_reset || ec == net::error::operation_aborted) {
    close();
    return;
  }
  if (ec) {
    keep_alive_ = false;
    responding_ = true;
    respond_error(400, fmt::format("Malformed HTTP request: {}", ec.message()));
    return;
  }
  responding_ = true;
  handle(parser_->release());
}

void HttpSession::handle(const Request& request) {
  keep_alive_ = request.keep_alive();
  const std::string target = str(request.target());
  const std::string_view path = path_of(target);
  const bool get = request.method() == http::verb::get;
  const bool post = request.method() == http::verb::post;
  // Watch the connection while answering: a closed socket cancels the work at once.
  watch();

  method_ = str(request.method_string());
  target_ = target;
  auto not_allowed = [&] {
    respond(405, "application/json", R"({"detail":"Method Not Allowed"})");
  };

  if (path == "/health" || path == "/health_generate") {
    if (!get)
      return not_allowed();
    return respond(ctx_.ready ? 200 : 503, ctx_.profile.health_content_type(), "");
  }
  const std::string native = ctx_.profile.native_generate_path();
  if (path == "/v1/completions" || path == "/v1/chat/completions" ||
      (!native.empty() && path == native)) {
    if (!post)
      return not_allowed();
    const ApiKind kind = path == "/v1/completions"        ? ApiKind::kCompletions
                         : path == "/v1/chat/completions" ? ApiKind::kChat
                                                          : ApiKind::kNative;
    return handle_generation(kind, request);
  }
  const auto& paths = ctx_.profile.status_paths();
  const bool status_path = std::find(paths.begin(), paths.end(), path) != paths.end();
  if (path == "/metrics" || path == "/v1/models" || status_path) {
    if (!get)
      return not_allowed();
    // The loop's state is read on its strand, then answered on ours.
    net::post(ctx_.loop_strand, [self = shared_from_this(), p = std::string(path)] {
      const ServingStatus status = self->ctx_.loop.status();
      std::string body, type = "application/json";
      if (p == "/metrics") {
        body = self->ctx_.profile.metrics_text(status);
        type = self->ctx_.profile.metrics_content_type();
      } else if (p == "/v1/models") {
        body = self->ctx_.profile.models_json(status);
      } else {
        body = self->ctx_.profile.status_json(p, status).value_or("{}");
      }
      net::post(self->socket_.get_executor(),
                [self, type, body = std::move(body)] { self->respond(200, type, body); });
    });
    return;
  }
  respond(404, "application/json", R"({"detail":"Not Found"})");
}

void HttpSession::handle_generation(ApiKind kind, const Request& request) {
  GenerationRequest g;
  if (kind == ApiKind::kNative) {
    auto native = ctx_.profile.parse_native_generate(request.body());
    if (!native)
      return respond_error(400, native.message());
    g = native_request(*native);
  } else {
    // The OpenAI routes take JSON only (http_server.py::validate_json_request).
    const std::string type = str(request[http::field::content_type]);
    if (trim(std::string_view(type).substr(0, type.find(';'))) != "application/json")
      return respond_error(400, "Unsupported Media Type: Only 'application/json' is allowed");
    auto parsed = parse_openai_request(kind, request.body(), ctx_.extra_fields);
    if (!parsed)
      return respond_error(400, parsed.message());
    g = *parsed;
  }
  if (kind != ApiKind::kNative && ctx_.profile.openai_dialect().check_model_name &&
      !g.model.empty() && g.model != ctx_.model_name)
    return respond_error(404, ctx_.profile.model_not_found(g.model, ctx_.model_name));
  if (!ctx_.ready)
    return respond_error(503, "The server is not ready yet");
  if (ctx_.draw_error())
    return respond_error(500, "Internal server error (twin fault: error-rate)");
  const std::uint64_t n = ctx_.next_id.fetch_add(1);
  const OpenAiDialect& dialect = ctx_.profile.openai_dialect();
  const std::string& id_prefix = kind == ApiKind::kChat          ? dialect.chat_id_prefix
                                 : kind == ApiKind::kCompletions ? dialect.completion_id_prefix
                                                                 : std::string();
  renderer_.emplace(g, id_prefix + request_id(n, ctx_.options.seed),
                    g.model.empty() ? ctx_.model_name : g.model,
                    std::chrono::system_clock::to_time_t(ctx_.clock.wall()), ctx_.profile);
  streaming_ = g.stream;
  tokens_ = 0;
  started_ = ctx_.clock.now();
  if (streaming_)
    start_stream();
  net::post(ctx_.loop_strand, [self = shared_from_this(), g]() mutable {
    ServerContext& c = self->ctx_;
    if (const std::string error = c.loop.check(g); !error.empty()) {
      net::post(self->socket_.get_executor(), [self, error] {
        if (self->streaming_) {
          // Headers are out: the engine reports the error as an event, then ends the stream.
          std::string event =
              fmt::format("data: {}\n\n", self->ctx_.profile.error_json(400, error));
          event += "data: [DONE]\n\n";
          append_http_chunk(self->out_, event);
          self->out_ += "0\r\n\r\n";
          self->renderer_.reset();
          self->flush();
          self->response_done();
        } else {
          self->renderer_.reset();
          self->respond_error(400, error);
        }
      });
      return;
    }
    g.max_tokens = c.loop.fitted_max_tokens(g);
    self->ticket_ = c.loop.submit(g, self);
    c.kick();
  });
}

void HttpSession::start_stream() {
  out_ +=
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: "
      "chunked\r\n";
  if (!keep_alive_)
    out_ += "connection: close\r\n";
  out_ += "\r\n";
  flush();
}

// On the loop's strand: the ticket is the loop's; the bytes are ours. Tokens queue here and
// one handler per batch renders them (the loop may run several steps in one wake-up), so a
// step costs no allocation or handler per request beyond the first of its batch.
void HttpSession::on_tokens(std::int64_t from, std::int32_t count, bool finished) {
  if (finished)
    ticket_.reset();
  bool first;
  {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    first = pending_.empty();
    pending_.push_back({from, count, finished});
  }
  if (first)
    net::post(socket_.get_executor(), [self = shared_from_this()] { self->deliver_pending(); });
}

void HttpSession::deliver_pending() {
  {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    delivering_.swap(pending_);
  }
  const double now = ctx_.clock.now();  // one reading for the batch
  for (const PendingTokens& t : delivering_)
    deliver(t.from, t.count, t.finished, now);
  delivering_.clear();
  flush();
}

void HttpSession::deliver(std::int64_t from, std::int32_t count, bool finished, double now) {
  if (closed_ || !renderer_)
    return;
  tokens_ = from + count;
  const std::int64_t drop = ctx_.options.faults.drop_stream_after;
  const bool cut_now = drop > 0 && !finished && tokens_ >= drop;
  if (streaming_) {
    scratch_.clear();  // keeps its capacity: no allocation per event
    renderer_->stream_tokens(scratch_, from, count, finished, now - started_);
    if (finished)
      renderer_->stream_end(scratch_, tokens_);
    append_http_chunk(out_, scratch_);
    if (finished) {
      out_ += "0\r\n\r\n";
      renderer_.reset();
      flush();
      response_done();
      return;
    }
  } else if (finished) {
    std::string body = renderer_->body(tokens_, now - started_);
    renderer_.reset();
    respond(200, "application/json", body);
    return;
  }
  if (cut_now)
    cut();
}

// The drop-stream fault: what is written stays written; the connection ends without the rest.
void HttpSession::cut() {
  renderer_.reset();
  keep_alive_ = false;
  close_after_write_ = true;
  net::post(ctx_.loop_strand, [self = shared_from_this()] {
    if (self->ticket_) {
      self->ctx_.loop.cancel(*self->ticket_);
      self->ticket_.reset();
    }
  });
  if (!write_in_flight_ && out_.empty())
    close();
}

void HttpSession::respond(int status, std::string_view content_type, std::string_view body) {
  if (closed_)
    return;
  if (!method_.empty())
    ctx_.access(client_, method_, target_, status);
  out_ += fmt::format("HTTP/1.1 {} {}\r\n", status, reason(status));
  if (!content_type.empty())
    out_ += fmt::format("content-type: {}\r\n", content_type);
  out_ += fmt::format("content-length: {}\r\n", body.size());
  if (!keep_alive_)
    out_ += "connection: close\r\n";
  out_ += "\r\n";
  out_ += body;
  flush();
  response_done();
}

void HttpSession::respond_error(int status, std::string_view message) {
  respond(status, "application/json", ctx_.profile.error_json(status, message));
}

void HttpSession::response_done() {
  responding_ = false;
  if (!keep_alive_) {
    close_after_write_ = true;
    if (!write_in_flight_ && out_.empty())
      close();
    return;
  }
  // The next request: at once when no read is in flight; else when the watch read returns.
  if (!reading_)
    read_request();
}

void HttpSession::watch() {
  if (closed_ || reading_)
    return;
  // A pipelined request is already waiting in the buffer: it is read after this response,
  // and a closed connection shows at the next write.
  if (buffer_.size() > 0)
    return;
  reading_ = true;
  socket_.async_read_some(buffer_.prepare(4096),
                          [self = shared_from_this()](boost::beast::error_code ec, std::size_t n) {
                            self->reading_ = false;
                            self->on_watch(ec, n);
                          });
}

void HttpSession::on_watch(boost::beast::error_code ec, std::size_t n) {
  if (closed_)
    return;
  if (ec) {
    close();  // the client went away: cancels its generation
    return;
  }
  buffer_.commit(n);
  if (responding_) {
    watch();
  } else {
    read_request();
  }
}

void HttpSession::flush() {
  if (closed_ || write_in_flight_ || out_.empty())
    return;
  writing_.swap(out_);
  out_.clear();
  write_in_flight_ = true;
  net::async_write(socket_, net::buffer(writing_),
                   [self = shared_from_this()](boost::beast::error_code ec, std::size_t) {
                     self->on_write(ec);
                   });
}

void HttpSession::on_write(boost::beast::error_code ec) {
  write_in_flight_ = false;
  writing_.clear();
  if (ec) {
    close();
    return;
  }
  if (!out_.empty()) {
    flush();
    return;
  }
  if (close_after_write_)
    close();
}

void HttpSession::close() {
  if (closed_)
    return;
  closed_ = true;
  renderer_.reset();
  net::post(ctx_.loop_strand, [self = shared_from_this()] {
    if (self->ticket_) {
      self->ctx_.loop.cancel(*self->ticket_);
      self->ticket_.reset();
    }
  });
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace servescope
