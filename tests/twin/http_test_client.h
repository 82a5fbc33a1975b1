// A small blocking HTTP/1.1 client for the twin's end-to-end tests: loopback only, every read
// bounded by a socket timeout. Reads content-length, chunked and close-delimited bodies, and
// server-sent events one at a time.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"

namespace servescope::testing {

struct HttpReply {
  int status = 0;                              // 0: no reply (connection failed or closed first)
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  bool complete = false;  // the body ended as the headers said it would
};

class HttpConnection {
 public:
  explicit HttpConnection(int port, int timeout_s = 15) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{timeout_s, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~HttpConnection() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  bool connected() const { return connected_; }

  bool send(const std::string& method, const std::string& path, const std::string& body = "",
            const std::string& content_type = "application/json", const std::string& extra = "") {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra;
    if (!body.empty() || method == "POST")
      req += "Content-Type: " + content_type +
             "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    req += "\r\n" + body;
    return write_all(req);
  }
  bool write_all(const std::string& data) {
    std::size_t off = 0;
    while (off < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n <= 0)
        return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }

  /// Reads the status line and headers. False when the connection ends first.
  bool read_head(HttpReply& r) {
    std::size_t end;
    while ((end = raw_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill())
        return false;
    }
    const std::string head = raw_.substr(0, end);
    raw_.erase(0, end + 4);
    const auto lines = split(head, '\n');
    if (lines.empty())
      return false;
    const auto parts = split(trim(lines[0]), ' ');
    if (parts.size() < 2)
      return false;
    r.status = static_cast<int>(parse_int(parts[1]).value_or(0));
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const std::string_view l = trim(lines[i]);
      const auto colon = l.find(':');
      if (colon != std::string_view::npos)
        r.headers[to_lower(l.substr(0, colon))] = std::string(trim(l.substr(colon + 1)));
    }
    chunked_ = r.headers["transfer-encoding"] == "chunked";
    return true;
  }

  /// Reads a whole response.
  HttpReply read_reply() {
    HttpReply r;
    if (!read_head(r))
      return r;
    if (chunked_) {
      std::string piece;
      while (next_chunk(piece)) {
        if (piece.empty()) {
          r.complete = true;
          break;
        }
        r.body += piece;
      }
      return r;
    }
    if (r.headers.count("content-length")) {
      const auto want =
          static_cast<std::size_t>(parse_int(r.headers["content-length"]).value_or(0));
      while (raw_.size() < want && fill()) {
      }
      r.complete = raw_.size() >= want;
      r.body = raw_.substr(0, std::min(want, raw_.size()));
      raw_.erase(0, r.body.size());
      return r;
    }
    while (fill()) {
    }
    r.body = std::move(raw_);
    r.complete = true;
    return r;
  }

  /// The next server-sent event's data (without "data: "), from a chunked stream. nullopt when
  /// the stream ends: `ended_cleanly` says whether the terminating chunk arrived.
  std::optional<std::string> next_event() {
    std::size_t end;
    while ((end = events_.find("\n\n")) == std::string::npos) {
      std::string piece;
      if (!next_chunk(piece))
        return std::nullopt;
      if (piece.empty()) {
        ended_cleanly = true;
        return std::nullopt;
      }
      events_ += piece;
    }
    std::string event = events_.substr(0, end);
    events_.erase(0, end + 2);
    if (event.rfind("data: ", 0) == 0)
      event.erase(0, 6);
    else
      event = "<not an SSE data event> " + event;
    return event;
  }
  bool ended_cleanly = false;

 private:
  bool fill() {
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0)
      return false;
    raw_.append(buf, static_cast<std::size_t>(n));
    return true;
  }
  // One decoded chunk; "" for the terminating chunk; false when the connection ends first.
  bool next_chunk(std::string& out) {
    std::size_t eol;
    while ((eol = raw_.find("\r\n")) == std::string::npos) {
      if (!fill())
        return false;
    }
    const std::size_t size = std::strtoul(raw_.substr(0, eol).c_str(), nullptr, 16);
    while (raw_.size() < eol + 2 + size + 2) {
      if (!fill())
        return false;
    }
    out = raw_.substr(eol + 2, size);
    raw_.erase(0, eol + 2 + size + 2);
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  bool chunked_ = false;
  std::string raw_;
  std::string events_;
};

/// One request on a fresh connection.
inline HttpReply http_request(int port, const std::string& method, const std::string& path,
                              const std::string& body = "",
                              const std::string& content_type = "application/json") {
  HttpConnection c(port);
  if (!c.connected() || !c.send(method, path, body, content_type, "Connection: close\r\n"))
    return {};
  return c.read_reply();
}

}  // namespace servescope::testing
