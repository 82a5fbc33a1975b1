#include "load/url.h"

#include <charconv>

namespace servescope {

std::string ServerUrl::authority() const {
  return host + ":" + std::to_string(port);
}

std::string ServerUrl::target(std::string_view path) const {
  return base + std::string(path);
}

std::string ServerUrl::str() const {
  return "http://" + authority() + base;
}

Result<ServerUrl> parse_server_url(std::string_view text) {
  constexpr std::string_view kScheme = "http://";
  const std::string shown(text);
  if (text.substr(0, 8) == "https://")
    return fail("--url " + shown + ": https is not supported; give the plain http address");
  if (text.substr(0, kScheme.size()) != kScheme)
    return fail("--url " + shown + ": give an address like http://127.0.0.1:30000");
  std::string_view rest = text.substr(kScheme.size());
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  ServerUrl url;
  if (slash != std::string_view::npos) {
    url.base = std::string(rest.substr(slash));
    while (!url.base.empty() && url.base.back() == '/')
      url.base.pop_back();
  }
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && authority.find(']') == std::string_view::npos) {
    std::string_view port = authority.substr(colon + 1);
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535)
      return fail("--url " + shown + ": the port must be a number from 1 to 65535");
    url.port = static_cast<std::uint16_t>(value);
    authority = authority.substr(0, colon);
  }
  if (authority.empty())
    return fail("--url " + shown + ": the host is missing");
  url.host = std::string(authority);
  return url;
}

}  // namespace servescope
