#include "catalog/http_get.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "core/env.h"
#include "core/text.h"

namespace servescope {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using Clock = std::chrono::steady_clock;

struct Url {
  std::string scheme, host, port, target, userinfo;
  bool tls() const { return scheme == "https"; }
  std::string authority() const {
    const bool v6 = host.find(':') != std::string::npos;
    return fmt::format("{}{}{}:{}", v6 ? "[" : "", host, v6 ? "]" : "", port);
  }
};

std::optional<Url> parse_url(std::string_view text) {
  Url u;
  const auto sep = text.find("://");
  if (sep == std::string_view::npos)
    return std::nullopt;
  u.scheme = to_lower(text.substr(0, sep));
  if (u.scheme != "http" && u.scheme != "https")
    return std::nullopt;
  std::string_view rest = text.substr(sep + 3);
  const auto slash = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, slash);
  u.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (const auto hash = u.target.find('#'); hash != std::string::npos)
    u.target.erase(hash);
  if (!u.target.empty() && u.target.front() == '?')
    u.target.insert(0, "/");
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    u.userinfo = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {  // [IPv6]:port
    const auto close = authority.find(']');
    if (close == std::string_view::npos)
      return std::nullopt;
    u.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':')
      port = authority.substr(close + 2);
  } else {
    const auto colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos)
      port = authority.substr(colon + 1);
  }
  if (u.host.empty())
    return std::nullopt;
  u.port = port.empty() ? (u.tls() ? "443" : "80") : std::string(port);
  return u;
}

// A Location header against the URL it answered.
std::optional<Url> resolve_location(const Url& base, std::string_view location) {
  if (location.find("://") != std::string_view::npos)
    return parse_url(location);
  Url u = base;
  u.userinfo.clear();
  if (location.substr(0, 2) == "//")
    return parse_url(base.scheme + ":" + std::string(location));
  if (!location.empty() && location.front() == '/') {
    u.target = std::string(location);
  } else {
    const auto dir = base.target.rfind('/', base.target.find('?'));
    u.target =
        base.target.substr(0, dir == std::string::npos ? 0 : dir + 1) + std::string(location);
  }
  return u;
}

bool bypasses_proxy(const std::string& host) {
  std::string list = env_or("no_proxy");
  if (list.empty())
    list = env_or("NO_PROXY");
  for (std::string_view item : split(list, ',')) {
    std::string entry = to_lower(trim(item));
    if (entry.empty())
      continue;
    if (entry == "*")
      return true;
    if (entry.front() == '.')
      entry.erase(0, 1);
    const std::string h = to_lower(host);
    if (h == entry || (h.size() > entry.size() && h.ends_with("." + entry)))
      return true;
  }
  return false;
}

std::optional<Url> proxy_for(const Url& target) {
  if (bypasses_proxy(target.host))
    return std::nullopt;
  const std::vector<const char*> names =
      target.tls()
          ? std::vector<const char*>{"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}
          : std::vector<const char*>{"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"};
  for (const char* name : names) {
    std::string value = env_or(name);
    if (value.empty())
      continue;
    if (value.find("://") == std::string::npos)
      value = "http://" + value;  // curl's reading of a bare host:port
    auto proxy = parse_url(value);
    if (!proxy || proxy->tls())
      throw std::runtime_error(fmt::format(
          "the proxy {}={} is not an http:// proxy (servescope speaks HTTP and CONNECT to "
          "proxies, not SOCKS or TLS); set {} to an http:// proxy, or add the host to NO_PROXY",
          name, value, name));
    return proxy;
  }
  return std::nullopt;
}

std::string base64(std::string_view text) {
  std::string out(4 * ((text.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  out.resize(static_cast<std::size_t>(std::max(n, 0)));
  return out;
}

// CA bundles of the common distributions, in the order curl's configure probes them.
constexpr const char* kBundles[] = {
    "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu, Arch, Gentoo
    "/etc/pki/tls/certs/ca-bundle.crt",                   // Fedora, RHEL, CentOS
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // RHEL 7+
    "/etc/ssl/ca-bundle.pem",                             // openSUSE
    "/etc/ssl/cert.pem",                                  // Alpine, macOS
    "/usr/local/share/certs/ca-root-nss.crt",             // FreeBSD
};

struct Exchange {
  const Url& url;
  const HttpGetOptions& options;
  ssl::context& tls;
  Clock::time_point deadline;
  HttpGetResponse response;
  std::string stage = "connect";

  std::chrono::steady_clock::duration left() const {
    return std::max(deadline - Clock::now(), Clock::duration(std::chrono::milliseconds(1)));
  }

  template <class Stream>
  net::awaitable<void> request(Stream& stream, beast::tcp_stream& lowest, bool absolute_form,
                               const std::optional<Url>& proxy) {
    http::request<http::empty_body> req{
        http::verb::get,
        absolute_form ? url.scheme + "://" + url.authority() + url.target : url.target, 11};
    req.set(http::field::host, url.host);
    req.set(http::field::user_agent, options.user_agent);
    req.set(http::field::accept, "*/*");
    for (const auto& [name, value] : options.headers)
      req.set(name, value);
    if (absolute_form && proxy && !proxy->userinfo.empty())
      req.set(http::field::proxy_authorization, "Basic " + base64(proxy->userinfo));
    stage = "send";
    lowest.expires_after(left());
    co_await http::async_write(stream, req, net::use_awaitable);
    stage = "read";
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(options.max_body);
    lowest.expires_after(left());
    co_await http::async_read(stream, buffer, parser, net::use_awaitable);
    const auto& res = parser.get();
    response.status = static_cast<int>(res.result_int());
    response.body = res.body();
    for (const auto& field : res)
      response.headers[to_lower(std::string(field.name_string()))] = std::string(field.value());
  }

  net::awaitable<void> run() {
    auto executor = co_await net::this_coro::executor;
    const std::optional<Url> proxy = proxy_for(url);
    const Url& peer = proxy ? *proxy : url;
    tcp::resolver resolver(executor);
    beast::tcp_stream stream(executor);
    stage = fmt::format("resolve {}", peer.host);
    stream.expires_after(left());
    const auto endpoints =
        co_await resolver.async_resolve(peer.host, peer.port, net::use_awaitable);
    stage = fmt::format("connect to {}", peer.authority());
    stream.expires_after(left());
    co_await stream.async_connect(endpoints, net::use_awaitable);
    if (proxy && url.tls()) {  // a tunnel through the proxy
      http::request<http::empty_body> connect{http::verb::connect, url.authority(), 11};
      connect.set(http::field::host, url.authority());
      if (!proxy->userinfo.empty())
        connect.set(http::field::proxy_authorization, "Basic " + base64(proxy->userinfo));
      stage = "proxy CONNECT";
      co_await http::async_write(stream, connect, net::use_awaitable);
      beast::flat_buffer buffer;
      http::response_parser<http::empty_body> reply;
      reply.skip(true);  // a CONNECT answer has no body
      co_await http::async_read(stream, buffer, reply, net::use_awaitable);
      if (reply.get().result_int() != 200)
        throw std::runtime_error(fmt::format("the proxy {} refused the tunnel (HTTP {})",
                                             proxy->authority(), reply.get().result_int()));
    }
    if (!url.tls()) {
      co_await request(stream, stream, proxy.has_value(), proxy);
      co_return;
    }
    beast::ssl_stream<beast::tcp_stream> secure(std::move(stream), tls);
    // SSL_set_tlsext_host_name, without the macro's C cast.
    if (SSL_ctrl(secure.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                 static_cast<void*>(const_cast<char*>(url.host.c_str()))) != 1)
      throw std::runtime_error("cannot set the TLS server name");
    secure.set_verify_callback(ssl::host_name_verification(url.host));
    stage = "TLS handshake";
    beast::get_lowest_layer(secure).expires_after(left());
    co_await secure.async_handshake(ssl::stream_base::client, net::use_awaitable);
    co_await request(secure, beast::get_lowest_layer(secure), false, proxy);
    beast::get_lowest_layer(secure).close();  // no close_notify wait: the body is complete
  }
};

HttpGetResult get_once(const Url& url, const HttpGetOptions& options, ssl::context& tls,
                       Clock::time_point deadline) {
  HttpGetResult out;
  net::io_context io;
  Exchange exchange{url, options, tls, deadline, {}, {}};
  std::exception_ptr failure;
  net::co_spawn(io, exchange.run(), [&](std::exception_ptr e) { failure = e; });
  io.run();
  if (!failure) {
    out.response = std::move(exchange.response);
    return out;
  }
  HttpGetError error;
  try {
    std::rethrow_exception(failure);
  } catch (const boost::system::system_error& e) {
    error.timed_out = e.code() == beast::error::timeout;
    if (e.code() == http::error::body_limit)
      error.message = fmt::format("the body exceeds {} bytes", options.max_body);
    else
      error.message = fmt::format("{}: {}", exchange.stage, e.code().message());
  } catch (const std::exception& e) {
    error.message = e.what();
  }
  out.error = error;
  return out;
}

}  // namespace

std::pair<std::string, std::string> ca_bundle() {
  for (const char* name : {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"}) {
    if (std::string v = env_or(name); !v.empty())
      return {v, name};
  }
  for (const char* path : kBundles) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec))
      return {path, path};
  }
  return {"", ""};
}

HttpGetResult http_get(const std::string& text, const HttpGetOptions& options) {
  HttpGetResult out;
  auto url = parse_url(text);
  if (!url) {
    out.error = HttpGetError{false, "not an http:// or https:// URL"};
    return out;
  }
  ssl::context tls(ssl::context::tls_client);
  tls.set_verify_mode(ssl::verify_peer);
  const auto [bundle, source] = ca_bundle();
  boost::system::error_code ec;
  if (!bundle.empty()) {
    tls.load_verify_file(bundle, ec);
    if (ec) {
      out.error = HttpGetError{false, fmt::format("cannot read the CA bundle {} ({}): {}", bundle,
                                                  source, ec.message())};
      return out;
    }
  } else {
    tls.set_default_verify_paths(ec);
  }
  if (const std::string dir = env_or("SSL_CERT_DIR"); !dir.empty())
    tls.add_verify_path(dir, ec);
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(std::max(options.timeout_s, 0.001)));
  for (int hop = 0;; ++hop) {
    HttpGetResult r = get_once(*url, options, tls, deadline);
    if (r.error)
      return r;
    const int s = r.response.status;
    const auto location = r.response.headers.find("location");
    if ((s == 301 || s == 302 || s == 303 || s == 307 || s == 308) &&
        location != r.response.headers.end()) {
      if (hop >= options.max_redirects) {
        r.error = HttpGetError{false, fmt::format("more than {} redirects", options.max_redirects)};
        return r;
      }
      auto next = resolve_location(*url, location->second);
      if (!next) {
        r.error = HttpGetError{false, "a redirect to " + location->second + " that is not a URL"};
        return r;
      }
      url = next;
      continue;
    }
    r.response.url = fmt::format("{}://{}{}", url->scheme, url->authority(), url->target);
    return r;
  }
}

}  // namespace servescope
