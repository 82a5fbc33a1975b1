// A server that outruns any client: it answers every streaming completions request with the
// whole event stream at once (the twin's event format, usage in every event, one HTTP chunk per
// event, then the usage event and [DONE]), prebuilt per max_tokens and sent with one write. A
// client reading it is limited by its own per-event cost only, which is what
// bench/bench-client.sh compares between `servescope bench` and a Python asyncio+aiohttp client.
//
// usage: servescope_sse_firehose   (prints "listening on PORT" on stdout; loopback only)
// clang-format off
#include <utility>  // first: Boost 1.74's asio/awaitable.hpp uses std::exchange without it
// clang-format on
#include <fmt/format.h>

#include <boost/asio.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

void append_chunk(std::string& out, const std::string& payload) {
  out += fmt::format("{:x}\r\n", payload.size());
  out += payload;
  out += "\r\n";
}

// The response to a request for `tokens` tokens (64 prompt tokens, as the benchmark asks).
std::string build_response(long tokens) {
  constexpr long kPrompt = 64;
  std::string out =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  const std::string head =
      R"(data: {"id":"cmpl-1","object":"text_completion","created":1790000000,"model":"m","choices":[{"index":0,"text":" tok)";
  for (long i = 1; i <= tokens; ++i) {
    append_chunk(
        out,
        fmt::format(
            R"({}","logprobs":null,"finish_reason":{},"matched_stop":null}}],"usage":{{"prompt_tokens":{},"total_tokens":{},"completion_tokens":{},"prompt_tokens_details":null}}}})"
            "\n\n",
            head, i == tokens ? R"("length")" : "null", kPrompt, kPrompt + i, i));
  }
  append_chunk(
      out,
      fmt::format(
          R"(data: {{"id":"cmpl-1","object":"text_completion","created":1790000000,"model":"m","choices":[],"usage":{{"prompt_tokens":{},"total_tokens":{},"completion_tokens":{},"prompt_tokens_details":null}}}})"
          "\n\n",
          kPrompt, kPrompt + tokens, tokens));
  append_chunk(out, "data: [DONE]\n\n");
  out += "0\r\n\r\n";
  return out;
}

const std::string& response_for(long tokens) {
  static std::map<long, std::string> cache;
  auto it = cache.find(tokens);
  if (it == cache.end())
    it = cache.emplace(tokens, build_response(tokens)).first;
  return it->second;
}

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  explicit Connection(tcp::socket socket) : socket_(std::move(socket)) {}
  void start() { read_head(); }

 private:
  void read_head() {
    auto self = shared_from_this();
    net::async_read_until(socket_, net::dynamic_buffer(in_), "\r\n\r\n",
                          [self](boost::system::error_code ec, std::size_t head) {
                            if (!ec)
                              self->read_body(head);
                          });
  }
  void read_body(std::size_t head) {
    std::size_t length = 0;
    const auto cl = in_.find("Content-Length: ");
    if (cl != std::string::npos && cl < head)
      length = std::stoul(in_.substr(cl + 16));
    const std::size_t need = head + length;
    auto self = shared_from_this();
    if (in_.size() >= need)
      return respond(head, length);
    net::async_read(socket_, net::dynamic_buffer(in_), net::transfer_exactly(need - in_.size()),
                    [self, head, length](boost::system::error_code ec, std::size_t) {
                      if (!ec)
                        self->respond(head, length);
                    });
  }
  void respond(std::size_t head, std::size_t length) {
    const std::string body = in_.substr(head, length);
    in_.erase(0, head + length);
    long tokens = 16;
    if (const auto m = body.find("\"max_tokens\":"); m != std::string::npos)
      tokens = std::max(1L, std::strtol(body.c_str() + m + 13, nullptr, 10));
    const std::string& out = response_for(tokens);
    auto self = shared_from_this();
    net::async_write(socket_, net::buffer(out), [self](boost::system::error_code ec, std::size_t) {
      if (!ec)
        self->read_head();
    });
  }

  tcp::socket socket_;
  std::string in_;
};

void accept(tcp::acceptor& acceptor) {
  acceptor.async_accept([&acceptor](boost::system::error_code ec, tcp::socket socket) {
    if (!ec)
      std::make_shared<Connection>(std::move(socket))->start();
    accept(acceptor);
  });
}

}  // namespace

int main() {
  net::io_context io(1);
  tcp::acceptor acceptor(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  acceptor.listen(4096);
  std::printf("listening on %d\n", acceptor.local_endpoint().port());
  std::fflush(stdout);
  accept(acceptor);
  io.run();
}
