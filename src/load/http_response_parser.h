// An incremental HTTP/1.1 response parser for the load client: the status line and headers,
// then the body framed by Content-Length, chunked transfer coding, or the connection's close.
// Bytes go in as they arrive; body bytes come out without being buffered here. Header bytes
// are bounded; anything that is not HTTP is an error with a short reason.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace servescope {

class HttpResponseParser {
 public:
  enum class State { kHead, kBody, kDone, kError };

  explicit HttpResponseParser(std::size_t max_head_bytes = 64 * 1024)
      : max_head_bytes_(max_head_bytes) {}

  /// Feeds bytes; `on_body(std::string_view)` receives body bytes (after de-chunking) and
  /// returns false to stop. Returns the state after these bytes. Bytes after the end of the
  /// response are left unread (`consumed()` says how many of the last feed were read).
  template <class OnBody>
  State feed(std::string_view bytes, OnBody&& on_body);
  /// The connection closed: a close-delimited body ends here (kDone); otherwise the response
  /// was cut short (the state stays as it was).
  State close();

  State state() const { return state_; }
  int status() const { return status_; }
  bool keep_alive() const { return keep_alive_; }
  bool event_stream() const { return event_stream_; }
  /// -1 when the body is chunked or close-delimited.
  std::int64_t content_length() const { return content_length_; }
  const std::string& error() const { return error_; }
  std::size_t consumed() const { return consumed_; }
  bool head_done() const { return state_ != State::kHead && status_ != 0; }
  void reset();

 private:
  enum class Body { kLength, kChunked, kClose };
  enum class Chunk { kSize, kData, kDataEnd, kTrailer };

  bool parse_head();  // on head_ (complete through the blank line)
  State fail(std::string why);

  std::size_t max_head_bytes_;
  State state_ = State::kHead;
  std::string head_;
  std::string size_line_;
  int status_ = 0;
  bool keep_alive_ = true;
  bool event_stream_ = false;
  std::int64_t content_length_ = -1;
  std::uint64_t remaining_ = 0;
  Body body_ = Body::kClose;
  Chunk chunk_ = Chunk::kSize;
  std::string error_;
  std::size_t consumed_ = 0;
};

template <class OnBody>
HttpResponseParser::State HttpResponseParser::feed(std::string_view bytes, OnBody&& on_body) {
  std::size_t i = 0;
  const std::size_t n = bytes.size();
  while (i < n && state_ != State::kDone && state_ != State::kError) {
    if (state_ == State::kHead) {
      // Look for the blank line, across feeds.
      const std::size_t before = head_.size();
      head_.append(bytes.substr(i));
      const std::size_t start = before >= 3 ? before - 3 : 0;
      const std::size_t end = head_.find("\r\n\r\n", start);
      if (end == std::string::npos) {
        if (head_.size() > max_head_bytes_)
          return fail("the response head is longer than " + std::to_string(max_head_bytes_) +
                      " bytes");
        if (head_.size() >= 5 && head_.compare(0, 5, "HTTP/") != 0)
          return fail("the reply does not start with an HTTP status line");
        consumed_ = n;
        return state_;
      }
      i += end + 4 - before;
      head_.resize(end + 4);
      if (!parse_head())
        return state_;
      continue;
    }
    // Body.
    if (body_ == Body::kClose) {
      const std::string_view part = bytes.substr(i);
      i = n;
      if (!on_body(part)) {
        consumed_ = i;
        return state_;
      }
      continue;
    }
    if (body_ == Body::kLength) {
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, n - i));
      remaining_ -= take;
      const std::string_view part = bytes.substr(i, take);
      i += take;
      if (remaining_ == 0)
        state_ = State::kDone;
      if (take > 0 && !on_body(part)) {
        consumed_ = i;
        return state_;
      }
      continue;
    }
    // Chunked.
    switch (chunk_) {
      case Chunk::kSize:
      case Chunk::kTrailer: {
        const std::size_t lf = bytes.find('\n', i);
        const std::size_t stop = lf == std::string_view::npos ? n : lf;
        std::string_view line;
        if (lf != std::string_view::npos && size_line_.empty()) {
          line = bytes.substr(i, stop - i);  // the whole line is in these bytes: no copy
        } else {
          size_line_.append(bytes.substr(i, stop - i));
          line = size_line_;
        }
        if (line.size() > 4096)
          return fail("a chunk-size line is longer than 4096 bytes");
        if (lf == std::string_view::npos) {
          i = n;
          break;
        }
        i = lf + 1;
        if (!line.empty() && line.back() == '\r')
          line.remove_suffix(1);
        if (chunk_ == Chunk::kTrailer) {
          if (line.empty())
            state_ = State::kDone;
          size_line_.clear();
          break;
        }
        std::uint64_t size = 0;
        std::size_t k = 0;
        for (; k < line.size(); ++k) {
          const char c = line[k];
          int d;
          if (c >= '0' && c <= '9')
            d = c - '0';
          else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
          else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
          else
            break;
          if (size > (std::uint64_t{1} << 56))
            return fail("a chunk size is too large");
          size = size * 16 + static_cast<std::uint64_t>(d);
        }
        if (k == 0 || (k < line.size() && line[k] != ';' && line[k] != ' ' && line[k] != '\t'))
          return fail("a chunk-size line is not hexadecimal");
        size_line_.clear();
        if (size == 0) {
          chunk_ = Chunk::kTrailer;
        } else {
          remaining_ = size;
          chunk_ = Chunk::kData;
        }
        break;
      }
      case Chunk::kData: {
        const std::size_t take =
            static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, n - i));
        remaining_ -= take;
        const std::string_view part = bytes.substr(i, take);
        i += take;
        if (remaining_ == 0) {
          chunk_ = Chunk::kDataEnd;
          remaining_ = 2;  // CRLF
        }
        if (!on_body(part)) {
          consumed_ = i;
          return state_;
        }
        break;
      }
      case Chunk::kDataEnd: {
        while (i < n && remaining_ > 0) {
          const char want = remaining_ == 2 ? '\r' : '\n';
          if (bytes[i] != want) {
            if (remaining_ == 2 && bytes[i] == '\n') {
              remaining_ = 0;  // a bare LF is accepted
              ++i;
              break;
            }
            return fail("a chunk does not end with CRLF");
          }
          --remaining_;
          ++i;
        }
        if (remaining_ == 0)
          chunk_ = Chunk::kSize;
        break;
      }
    }
  }
  consumed_ = i;
  return state_;
}

}  // namespace servescope
