#include "load/http_response_parser.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

struct Parsed {
  HttpResponseParser::State state;
  std::string body;
  int status;
  bool keep_alive;
};

Parsed parse(const std::string& text, std::size_t piece, bool close_at_end = false) {
  HttpResponseParser p;
  std::string body;
  for (std::size_t i = 0; i < text.size(); i += piece) {
    p.feed(std::string_view(text).substr(i, piece), [&](std::string_view b) {
      body.append(b);
      return true;
    });
  }
  if (close_at_end)
    p.close();
  return {p.state(), body, p.status(), p.keep_alive()};
}

TEST(HttpResponseParser, ContentLengthChunkedAndCloseDelimitedBodiesSplitAnywhere) {
  const std::string length = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
  const std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2;ext=1\r\nlo\r\n0\r\n\r\n";
  const std::string closed = "HTTP/1.0 200 OK\r\n\r\nhello";
  for (std::size_t piece = 1; piece <= chunked.size(); ++piece) {
    const Parsed a = parse(length, piece);
    EXPECT_EQ(a.state, HttpResponseParser::State::kDone);
    EXPECT_EQ(a.body, "hello");
    EXPECT_TRUE(a.keep_alive);
    const Parsed b = parse(chunked, piece);
    EXPECT_EQ(b.state, HttpResponseParser::State::kDone) << piece;
    EXPECT_EQ(b.body, "hello");
    const Parsed c = parse(closed, piece, true);
    EXPECT_EQ(c.state, HttpResponseParser::State::kDone);
    EXPECT_EQ(c.body, "hello");
    EXPECT_FALSE(c.keep_alive);
  }
}

TEST(HttpResponseParser, StatusAndConnectionHeaders) {
  const Parsed p = parse("HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 7);
  EXPECT_EQ(p.status, 503);
  EXPECT_FALSE(p.keep_alive);
  EXPECT_EQ(p.state, HttpResponseParser::State::kDone);
}

TEST(HttpResponseParser, GarbageAndOverlongHeadsAreErrors) {
  EXPECT_EQ(parse("SSH-2.0-OpenSSH\r\n\r\n", 3).state, HttpResponseParser::State::kError);
  EXPECT_EQ(parse("garbage", 100).state, HttpResponseParser::State::kError);
  EXPECT_EQ(parse("HTTP/1.1 200 OK\r\nX: " + std::string(70000, 'a'), 4096).state,
            HttpResponseParser::State::kError);
  EXPECT_EQ(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 5).state,
            HttpResponseParser::State::kError);
}

TEST(HttpResponseParser, ACutResponseIsNotDone) {
  EXPECT_EQ(parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhel", 100, true).state,
            HttpResponseParser::State::kBody);
}

}  // namespace
}  // namespace servescope
