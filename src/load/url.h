// The one server a run talks to: `http://HOST[:PORT][/BASE]`. Only this host and port are
// ever contacted (the API path, the metrics path and the status paths are joined to BASE).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace servescope {

struct ServerUrl {
  std::string host;
  std::uint16_t port = 80;
  std::string base;  // without a trailing slash; "" for the root

  /// "HOST:PORT", as the Host header says it.
  std::string authority() const;
  /// BASE joined with `path` ("/v1/completions").
  std::string target(std::string_view path) const;
  std::string str() const;
};

/// Parses `--url`. Fails for another scheme (https is not supported), a missing host or a bad
/// port, with the fix.
Result<ServerUrl> parse_server_url(std::string_view text);

}  // namespace servescope
