// One HTTP(S) GET as the Hub client needs it, on Boost.Beast and OpenSSL (so a static build
// carries its own TLS and runs on hosts with no libcurl): redirects followed (at most five,
// relative or absolute), an overall deadline, a body limit, proxies from the environment as
// curl and requests read them (HTTPS_PROXY/https_proxy, HTTP_PROXY/http_proxy, ALL_PROXY,
// NO_PROXY; CONNECT for HTTPS, Basic credentials from the proxy URL), and the certificate
// authorities from SSL_CERT_FILE, REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE, SSL_CERT_DIR, else the
// first CA bundle found at the usual places of Debian, Fedora/RHEL, SUSE, Alpine and macOS.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace servescope {

struct HttpGetOptions {
  double timeout_s = 10;  // the whole exchange, redirects included
  std::vector<std::pair<std::string, std::string>> headers;
  std::size_t max_body = 64u << 20;
  int max_redirects = 5;
  std::string user_agent = "servescope";
};

struct HttpGetResponse {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // names in lower case; the final response's
  std::string url;                             // after redirects
};

struct HttpGetError {
  bool timed_out = false;
  std::string message;  // what failed, without the URL ("TLS handshake: certificate verify failed")
};

struct HttpGetResult {
  HttpGetResponse response;
  std::optional<HttpGetError> error;
};

HttpGetResult http_get(const std::string& url, const HttpGetOptions& options);

/// The CA bundle a TLS connection trusts, and where that choice came from ("SSL_CERT_FILE",
/// "/etc/pki/tls/certs/ca-bundle.crt", ...); empty when none is found (OpenSSL's defaults).
std::pair<std::string, std::string> ca_bundle();

}  // namespace servescope
