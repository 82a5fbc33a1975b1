// An incremental server-sent-events parser (WHATWG HTML §9.2.6): bytes go in as they arrive,
// split anywhere; each complete event's data comes out. Lines end in LF, CRLF or CR; `data:`
// lines join with LF; comments and other fields are skipped but lines that are not SSE at all
// are counted, so a caller can tell garbage from a quiet stream. Memory is bounded: an event
// longer than the limit is an error, never buffered further.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace servescope {

class SseParser {
 public:
  explicit SseParser(std::size_t max_event_bytes = std::size_t{4} << 20)
      : max_event_bytes_(max_event_bytes) {}

  enum class Status { kOk, kStop, kTooLong };

  /// Feeds bytes; calls `on_event(std::string_view data)` for each complete event with data,
  /// which returns false to stop parsing (the rest of `bytes` is not read). Returns kTooLong
  /// once an event passes the limit (the parser is then spent).
  template <class OnEvent>
  Status feed(std::string_view bytes, OnEvent&& on_event);

  /// Lines that were neither a field, a comment nor blank (garbage in the stream).
  std::uint64_t foreign_lines() const { return foreign_lines_; }
  std::uint64_t events() const { return events_; }
  /// Bytes held for an unfinished line or event.
  std::size_t pending_bytes() const { return line_.size() + data_.size(); }
  void reset();

 private:
  // One complete line; returns false when the event callback asked to stop. `in_feed`: the
  // line lies in the bytes of this feed (so a view of it lives until the feed returns).
  template <class OnEvent>
  bool line(std::string_view text, bool in_feed, OnEvent& on_event);
  // The current event's data: the view of this feed's bytes, or the copy.
  std::string_view data() const { return data_in_feed_ ? data_view_ : std::string_view(data_); }
  // Before `feed` returns, an event's data still held as a view of its bytes is copied.
  void keep_data();

  std::size_t max_event_bytes_;
  std::string line_;  // an unfinished line carried to the next feed
  // The current event's data. An event of one `data:` line that ends within the bytes it
  // came in (the common case) is handed out as a view of them, never copied.
  std::string data_;
  std::string_view data_view_;
  bool data_in_feed_ = false;
  bool has_data_ = false;
  bool after_cr_ = false;  // the last byte seen was CR: a following LF belongs to it
  bool too_long_ = false;
  std::uint64_t foreign_lines_ = 0;
  std::uint64_t events_ = 0;
};

template <class OnEvent>
bool SseParser::line(std::string_view text, bool in_feed, OnEvent& on_event) {
  if (text.empty()) {
    if (!has_data_)
      return true;
    has_data_ = false;
    ++events_;
    const bool go_on = on_event(data());
    data_in_feed_ = false;
    data_.clear();
    return go_on;
  }
  if (text.front() == ':')
    return true;  // comment (keep-alive pings)
  const std::size_t colon = text.find(':');
  const std::string_view field = text.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = text.substr(colon + 1);
    if (!value.empty() && value.front() == ' ')
      value.remove_prefix(1);
  }
  if (field == "data") {
    if (!has_data_ && in_feed) {
      data_view_ = value;
      data_in_feed_ = true;
    } else {
      keep_data();
      if (has_data_)
        data_.push_back('\n');
      data_.append(value);
    }
    has_data_ = true;
    if (data().size() > max_event_bytes_)
      too_long_ = true;
  } else if (field != "event" && field != "id" && field != "retry") {
    ++foreign_lines_;
  }
  return true;
}

template <class OnEvent>
SseParser::Status SseParser::feed(std::string_view bytes, OnEvent&& on_event) {
  if (too_long_)
    return Status::kTooLong;
  std::size_t i = 0;
  const std::size_t n = bytes.size();
  const char* p = bytes.data();
  if (after_cr_ && n > 0 && p[0] == '\n')
    i = 1;
  after_cr_ = false;
  // Lines end in LF, CR or CRLF. Servers send LF; the next CR is looked up once and again
  // only after it was passed, so the search per line is one memchr for LF.
  const auto find = [&](char c, std::size_t from) {
    if (from >= n)
      return n;
    const void* at = std::memchr(p + from, c, n - from);
    return at == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(at) - p);
  };
  std::size_t next_cr = find('\r', i);
  while (i < n) {
    if (next_cr < i)
      next_cr = find('\r', i);
    const std::size_t end = std::min(find('\n', i), next_cr);
    if (end == n) {
      keep_data();
      line_.append(bytes.substr(i));
      if (line_.size() + data_.size() > max_event_bytes_) {
        too_long_ = true;
        return Status::kTooLong;
      }
      return Status::kOk;
    }
    bool go_on;
    if (line_.empty()) {
      go_on = line(bytes.substr(i, end - i), true, on_event);
    } else {
      line_.append(bytes.substr(i, end - i));
      std::string whole;
      whole.swap(line_);
      go_on = line(std::string_view(whole), false, on_event);
      whole.clear();
      line_.swap(whole);  // keep the capacity
    }
    if (too_long_) {
      data_in_feed_ = false;  // the parser is spent: nothing of the event is kept
      data_.clear();
      return Status::kTooLong;
    }
    std::size_t next = end + 1;
    if (p[end] == '\r') {
      if (next < n && p[next] == '\n')
        ++next;
      else if (next == n)
        after_cr_ = true;
    }
    i = next;
    if (!go_on) {
      keep_data();
      return Status::kStop;
    }
  }
  keep_data();
  return Status::kOk;
}

}  // namespace servescope
