// What one request did, on the run's monotonic clock (seconds from the point's start): when it
// was meant to go, when it could go, when it went, its first and last token, and how it
// ended. Plain data; the summary (point_summary.h) turns records into percentiles.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace servescope {

enum class ErrorKind : std::uint8_t {
  kNone,
  kConnect,        // the connection could not be opened
  kTimeout,        // no complete response within --timeout of the send
  kHttpStatus,     // a status other than 2xx
  kMalformedHttp,  // the reply is not HTTP, or its body is over the size limit
  kMalformedSse,   // an event is not JSON, is too long, or the stream is not SSE
  kClosedEarly,    // the connection ended before the response did
  kErrorEvent,     // the stream carried an error object
};
inline constexpr std::size_t kErrorKinds = 8;

/// The JSON key of a kind ("connect", "timeout", "http_status", ...).
std::string_view error_key(ErrorKind kind);
/// Words for people ("HTTP status", "stream closed early").
std::string_view error_words(ErrorKind kind);

struct RequestRecord {
  std::uint32_t index = 0;
  bool warmup = false;
  double intended = 0;  // the schedule's send time (closed loop: when its slot freed)
  double ready = 0;     // when a slot was free and the time had come (≥ intended)
  double sent = -1;     // when its bytes went to the transport
  double first_token = -1;
  double last_token = -1;
  double done = -1;  // complete or failed
  std::int64_t prompt_tokens_requested = 0;
  std::int64_t output_tokens_requested = 0;
  std::int64_t prompt_tokens_reported = -1;  // usage.prompt_tokens; -1 if the server did not say
  std::int64_t output_tokens = 0;            // reported, or counted from the events
  std::int32_t content_events = 0;           // events that carried output tokens
  std::int32_t events = 0;                   // all server-sent events
  int http_status = 0;
  ErrorKind error = ErrorKind::kNone;
  bool tokens_reported = false;   // output_tokens from the server's usage
  bool per_event_tokens = false;  // each event's token count was known (usage deltas)

  bool ok() const { return error == ErrorKind::kNone && done >= 0; }
};

}  // namespace servescope
