#include "load/request_record.h"

namespace servescope {

std::string_view error_key(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNone:
      return "none";
    case ErrorKind::kConnect:
      return "connect";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kHttpStatus:
      return "http_status";
    case ErrorKind::kMalformedHttp:
      return "malformed_http";
    case ErrorKind::kMalformedSse:
      return "malformed_sse";
    case ErrorKind::kClosedEarly:
      return "closed_early";
    case ErrorKind::kErrorEvent:
      return "error_event";
  }
  return "none";
}

std::string_view error_words(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNone:
      return "none";
    case ErrorKind::kConnect:
      return "connect";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kHttpStatus:
      return "HTTP status";
    case ErrorKind::kMalformedHttp:
      return "malformed HTTP";
    case ErrorKind::kMalformedSse:
      return "malformed SSE";
    case ErrorKind::kClosedEarly:
      return "stream closed early";
    case ErrorKind::kErrorEvent:
      return "error event";
  }
  return "none";
}

}  // namespace servescope
