#include "load/http_response_parser.h"

#include <charconv>

#include "core/text.h"

namespace servescope {
namespace {

bool icontains(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size())
    return false;
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (iequals(hay.substr(i, needle.size()), needle))
      return true;
  }
  return false;
}

std::string_view strip(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

HttpResponseParser::State HttpResponseParser::fail(std::string why) {
  error_ = std::move(why);
  state_ = State::kError;
  return state_;
}

void HttpResponseParser::reset() {
  state_ = State::kHead;
  head_.clear();
  size_line_.clear();
  status_ = 0;
  keep_alive_ = true;
  event_stream_ = false;
  content_length_ = -1;
  remaining_ = 0;
  body_ = Body::kClose;
  chunk_ = Chunk::kSize;
  error_.clear();
  consumed_ = 0;
}

bool HttpResponseParser::parse_head() {
  std::string_view head = head_;
  std::size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  // HTTP/1.x SSS reason
  if (status_line.size() < 12 || status_line.compare(0, 5, "HTTP/") != 0 || status_line[8] != ' ') {
    fail("the reply does not start with an HTTP status line");
    return false;
  }
  const bool http10 = status_line.compare(0, 8, "HTTP/1.0") == 0;
  keep_alive_ = !http10;
  int code = 0;
  auto [end, ec] = std::from_chars(status_line.data() + 9, status_line.data() + 12, code);
  if (ec != std::errc() || end != status_line.data() + 12 || code < 100 || code > 999) {
    fail("the HTTP status code is not a number");
    return false;
  }
  status_ = code;
  bool chunked = false;
  head.remove_prefix(eol + 2);
  while (!head.empty()) {
    eol = head.find("\r\n");
    const std::string_view line = head.substr(0, eol);
    head.remove_prefix(eol == std::string_view::npos ? head.size() : eol + 2);
    if (line.empty())
      break;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      fail("a response header line has no name");
      return false;
    }
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = strip(line.substr(colon + 1));
    if (iequals(name, "content-length")) {
      std::int64_t len = -1;
      auto [e, err] = std::from_chars(value.data(), value.data() + value.size(), len);
      if (err != std::errc() || e != value.data() + value.size() || len < 0) {
        fail("Content-Length is not a number");
        return false;
      }
      content_length_ = len;
    } else if (iequals(name, "transfer-encoding")) {
      chunked = icontains(value, "chunked");
    } else if (iequals(name, "connection")) {
      if (icontains(value, "close"))
        keep_alive_ = false;
      else if (icontains(value, "keep-alive"))
        keep_alive_ = true;
    } else if (iequals(name, "content-type")) {
      event_stream_ = icontains(value, "text/event-stream");
    }
  }
  head_.clear();
  head_.shrink_to_fit();
  if (status_ < 200 || status_ == 204 || status_ == 304) {
    // 1xx interim responses are not expected from a generation endpoint; no body otherwise.
    state_ = status_ < 200 ? State::kHead : State::kDone;
    if (status_ < 200)
      status_ = 0;
    return true;
  }
  if (chunked) {
    body_ = Body::kChunked;
    content_length_ = -1;
  } else if (content_length_ >= 0) {
    body_ = Body::kLength;
    remaining_ = static_cast<std::uint64_t>(content_length_);
  } else {
    body_ = Body::kClose;
    keep_alive_ = false;
  }
  state_ = body_ == Body::kLength && remaining_ == 0 ? State::kDone : State::kBody;
  return true;
}

HttpResponseParser::State HttpResponseParser::close() {
  if (state_ == State::kBody && body_ == Body::kClose)
    state_ = State::kDone;
  return state_;
}

}  // namespace servescope
