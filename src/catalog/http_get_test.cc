// http_get against servers on loopback started by each test: HTTPS with a certificate made for
// the test (trusted through SSL_CERT_FILE, refused without it or for another host name),
// redirects, the deadline, and an HTTP proxy that tunnels with CONNECT.
#include "catalog/http_get.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <filesystem>
#include <thread>

namespace servescope {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
namespace fs = std::filesystem;

// A self-signed certificate for 127.0.0.1 only, made with the openssl command.
struct TestCertificate {
  fs::path dir, cert, key;
  TestCertificate() {
    dir = fs::temp_directory_path() / ("servescope-tls-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    cert = dir / "cert.pem";
    key = dir / "key.pem";
    const std::string cmd =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=servescope-test "
        "-addext subjectAltName=IP:127.0.0.1 -keyout " +
        key.string() + " -out " + cert.string() + " >/dev/null 2>&1";
    ok = std::system(cmd.c_str()) == 0;
  }
  ~TestCertificate() { fs::remove_all(dir); }
  bool ok = false;
};

// Serves /ok (200 "hello"), /moved (302 to the relative "ok"), /loop (302 to itself) and
// /slow (answers after 1.5 s), over TLS when given a certificate.
class TestServer {
 public:
  explicit TestServer(const TestCertificate* cert = nullptr)
      : tls_(ssl::context::tls_server), acceptor_(io_, {net::ip::make_address("127.0.0.1"), 0}) {
    if (cert != nullptr) {
      tls_.use_certificate_chain_file(cert->cert.string());
      tls_.use_private_key_file(cert->key.string(), ssl::context::pem);
      secure_ = true;
    }
    thread_ = std::thread([this] { serve(); });
  }
  ~TestServer() {
    stop_ = true;
    boost::system::error_code ec;
    tcp::socket poke(io_);
    poke.connect(acceptor_.local_endpoint(), ec);  // wakes accept()
    thread_.join();
  }
  std::string url(const std::string& path) const {
    return std::string(secure_ ? "https" : "http") +
           "://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + path;
  }
  int port() const { return acceptor_.local_endpoint().port(); }
  std::atomic<int> requests{0};

 private:
  template <class Stream>
  void answer(Stream& stream) {
    beast::flat_buffer buffer;
    http::request<http::string_body> req;
    boost::system::error_code ec;
    http::read(stream, buffer, req, ec);
    if (ec)
      return;
    ++requests;
    http::response<http::string_body> res{http::status::ok, 11};
    const std::string target(req.target());
    if (target == "/moved") {
      res.result(http::status::found);
      res.set(http::field::location, "ok");
    } else if (target == "/loop") {
      res.result(http::status::found);
      res.set(http::field::location, "/loop");
    } else if (target == "/slow") {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    } else if (target != "/ok") {
      res.result(http::status::not_found);
    }
    res.set("X-Repo-Commit", "abc123");
    res.body() = target == "/ok" ? "hello" : "";
    res.prepare_payload();
    http::write(stream, res, ec);
  }
  void serve() {
    while (!stop_) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stop_)
        return;
      if (!secure_) {
        answer(socket);
        continue;
      }
      beast::ssl_stream<tcp::socket> stream(std::move(socket), tls_);
      stream.handshake(ssl::stream_base::server, ec);
      if (!ec)
        answer(stream);
    }
  }
  net::io_context io_;
  ssl::context tls_;
  tcp::acceptor acceptor_;
  bool secure_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// An HTTP proxy that only tunnels: CONNECT host:port, then bytes both ways.
class TunnelProxy {
 public:
  TunnelProxy() : acceptor_(io_, {net::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] { serve(); });
  }
  ~TunnelProxy() {
    stop_ = true;
    boost::system::error_code ec;
    tcp::socket poke(io_);
    poke.connect(acceptor_.local_endpoint(), ec);
    thread_.join();
  }
  std::string url() const {
    return "http://user:secret@127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }
  std::atomic<int> tunnels{0};
  std::string authorization;

 private:
  static void pipe(tcp::socket& from, tcp::socket& to) {
    char data[4096];
    boost::system::error_code ec;
    for (;;) {
      const std::size_t n = from.read_some(net::buffer(data), ec);
      if (ec || net::write(to, net::buffer(data, n), ec) == 0 || ec)
        break;
    }
    to.shutdown(tcp::socket::shutdown_send, ec);
  }
  void serve() {
    while (!stop_) {
      tcp::socket client(io_);
      boost::system::error_code ec;
      acceptor_.accept(client, ec);
      if (ec || stop_)
        return;
      beast::flat_buffer buffer;
      http::request<http::empty_body> req;
      http::read(client, buffer, req, ec);
      if (ec || req.method() != http::verb::connect)
        continue;
      authorization = std::string(req[http::field::proxy_authorization]);
      const std::string target(req.target());
      const auto colon = target.rfind(':');
      tcp::socket upstream(io_);
      upstream.connect({net::ip::make_address(target.substr(0, colon)),
                        static_cast<unsigned short>(std::stoi(target.substr(colon + 1)))},
                       ec);
      if (ec)
        continue;
      ++tunnels;
      net::write(client, net::buffer(std::string("HTTP/1.1 200 Connection established\r\n\r\n")),
                 ec);
      std::thread back([&] { pipe(upstream, client); });
      pipe(client, upstream);
      back.join();
    }
  }
  net::io_context io_;
  tcp::acceptor acceptor_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Each test sets only the variables it needs; these are cleared around it.
class HttpGet : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name : {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                             "SSL_CERT_DIR", "https_proxy", "HTTPS_PROXY", "http_proxy",
                             "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"})
      ::unsetenv(name);
  }
};

TEST_F(HttpGet, HttpsWithTheCertificateTrustedThroughSslCertFile) {
  TestCertificate cert;
  ASSERT_TRUE(cert.ok) << "the openssl command could not make a certificate";
  TestServer server(&cert);
  ::setenv("SSL_CERT_FILE", cert.cert.c_str(), 1);
  const HttpGetResult r = http_get(server.url("/ok"), {});
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.body, "hello");
  EXPECT_EQ(r.response.headers.at("x-repo-commit"), "abc123");
  EXPECT_EQ(ca_bundle().second, "SSL_CERT_FILE");
}

TEST_F(HttpGet, AnUntrustedCertificateIsRefusedAndSaid) {
  TestCertificate cert;
  ASSERT_TRUE(cert.ok);
  TestServer server(&cert);
  const HttpGetResult r = http_get(server.url("/ok"), {});  // the system's CAs only
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("TLS handshake"), std::string::npos) << r.error->message;
  EXPECT_FALSE(r.error->timed_out);
  // Trusted, but for 127.0.0.1 only: "localhost" is another name.
  ::setenv("REQUESTS_CA_BUNDLE", cert.cert.c_str(), 1);
  const HttpGetResult other =
      http_get("https://localhost:" + std::to_string(server.port()) + "/ok", {});
  ASSERT_TRUE(other.error);
  EXPECT_NE(other.error->message.find("TLS handshake"), std::string::npos) << other.error->message;
  // A bundle that is not there is named.
  ::setenv("SSL_CERT_FILE", "/nonexistent/ca.pem", 1);
  const HttpGetResult missing = http_get(server.url("/ok"), {});
  ASSERT_TRUE(missing.error);
  EXPECT_NE(missing.error->message.find("cannot read the CA bundle /nonexistent/ca.pem "
                                        "(SSL_CERT_FILE)"),
            std::string::npos)
      << missing.error->message;
}

TEST_F(HttpGet, RedirectsAreFollowedUpToTheLimit) {
  TestServer server;
  const HttpGetResult r = http_get(server.url("/moved"), {});
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.response.body, "hello");
  EXPECT_EQ(r.response.url, server.url("/ok"));
  HttpGetOptions o;
  o.max_redirects = 3;
  const HttpGetResult loop = http_get(server.url("/loop"), o);
  ASSERT_TRUE(loop.error);
  EXPECT_EQ(loop.error->message, "more than 3 redirects");
  EXPECT_EQ(server.requests.load(), 2 + 4);
}

TEST_F(HttpGet, TheDeadlineCoversTheWholeExchange) {
  TestServer server;
  HttpGetOptions o;
  o.timeout_s = 0.3;
  const auto start = std::chrono::steady_clock::now();
  const HttpGetResult r = http_get(server.url("/slow"), o);
  ASSERT_TRUE(r.error);
  EXPECT_TRUE(r.error->timed_out) << r.error->message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1200));
}

TEST_F(HttpGet, HttpsGoesThroughTheProxyUnlessNoProxyNamesTheHost) {
  TestCertificate cert;
  ASSERT_TRUE(cert.ok);
  TestServer server(&cert);
  TunnelProxy proxy;
  ::setenv("SSL_CERT_FILE", cert.cert.c_str(), 1);
  ::setenv("HTTPS_PROXY", proxy.url().c_str(), 1);
  const HttpGetResult r = http_get(server.url("/ok"), {});
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.response.body, "hello");
  EXPECT_EQ(proxy.tunnels.load(), 1);
  EXPECT_EQ(proxy.authorization, "Basic dXNlcjpzZWNyZXQ=");  // user:secret
  ::setenv("NO_PROXY", "example.com,127.0.0.1", 1);
  ASSERT_FALSE(http_get(server.url("/ok"), {}).error);
  EXPECT_EQ(proxy.tunnels.load(), 1);  // direct
  ::unsetenv("NO_PROXY");
  ::setenv("HTTPS_PROXY", "socks5://127.0.0.1:1080", 1);
  const HttpGetResult socks = http_get(server.url("/ok"), {});
  ASSERT_TRUE(socks.error);
  EXPECT_NE(socks.error->message.find("is not an http:// proxy"), std::string::npos)
      << socks.error->message;
}

TEST_F(HttpGet, NotAUrlIsSaid) {
  const HttpGetResult r = http_get("ftp://example.com/x", {});
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "not an http:// or https:// URL");
}

}  // namespace
}  // namespace servescope
