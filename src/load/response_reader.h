// Reads one generation response as its bytes arrive: the HTTP framing, the server-sent events,
// and in each event the text and token counts (json_scan.h, no allocation per event). It
// fills the request's record — first content token (a role-only chat chunk is not one),
// last token, output and prompt tokens as the server reports them, events — and keeps each
// content event's gap and token count for per-token and per-event inter-token latency.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "load/api.h"
#include "load/http_response_parser.h"
#include "load/json_scan.h"
#include "load/request_record.h"
#include "load/sse_parser.h"

namespace servescope {

/// One content event after the first: the time since the previous one and its tokens
/// (0 when unknown: the server reported no per-event usage).
struct TokenGap {
  float gap_s = 0;
  std::int32_t tokens = 0;
};

class ResponseReader {
 public:
  enum class Progress { kMore, kComplete, kFailed };

  /// Non-streaming bodies (and error bodies) are held up to this many bytes.
  static constexpr std::size_t kMaxBodyBytes = std::size_t{64} << 20;

  void start(const ApiSpec& api, bool stream, RequestRecord& record);
  /// Bytes that arrived at `now`.
  Progress on_bytes(double now, std::string_view bytes);
  /// The connection ended at `now` (clean close or failure) before kComplete.
  Progress on_closed(double now);

  bool keep_alive() const { return http_.keep_alive(); }
  const std::vector<TokenGap>& gaps() const { return gaps_; }
  /// Why the request failed, for the first-error line ("" if it did not).
  const std::string& detail() const { return detail_; }

 private:
  Progress event(double now, std::string_view data);
  Progress body_done(double now);
  Progress failed(ErrorKind kind, std::string why);
  void content(double now, std::int64_t tokens_after, bool known);

  const ApiSpec* api_ = nullptr;
  JsonPaths native_paths_;  // the native API's fields, compiled when `api_` is set
  bool stream_ = true;
  RequestRecord* rec_ = nullptr;
  HttpResponseParser http_;
  SseParser sse_;
  std::string body_;  // non-streaming or error body
  std::vector<TokenGap> gaps_;
  std::int64_t tokens_seen_ = 0;  // cumulative output tokens known from usage
  bool usage_seen_ = false;
  bool done_event_ = false;
  bool finish_seen_ = false;
  Progress state_ = Progress::kMore;
  std::string detail_;
};

}  // namespace servescope
