#include "load/sse_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace servescope {
namespace {

std::vector<std::string> parse_in_pieces(const std::string& text, std::size_t piece) {
  SseParser p;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); i += piece) {
    p.feed(std::string_view(text).substr(i, piece), [&](std::string_view d) {
      out.emplace_back(d);
      return true;
    });
  }
  return out;
}

TEST(SseParser, EventsSplitAtAnyByteComeOutWhole) {
  const std::string text =
      ": ping\n\ndata: {\"a\":1}\n\ndata:no-space\r\n\r\ndata: line1\ndata: line2\n\nevent: x\r"
      "data: [DONE]\r\r";
  const std::vector<std::string> want = {"{\"a\":1}", "no-space", "line1\nline2", "[DONE]"};
  for (std::size_t piece = 1; piece <= text.size(); ++piece)
    EXPECT_EQ(parse_in_pieces(text, piece), want) << "piece " << piece;
}

TEST(SseParser, CountsLinesThatAreNotServerSentEvents) {
  SseParser p;
  int events = 0;
  p.feed("<html>\nnot an event\n\n", [&](std::string_view) {
    ++events;
    return true;
  });
  EXPECT_EQ(events, 0);
  EXPECT_EQ(p.foreign_lines(), 2u);
}

TEST(SseParser, AnEventOverTheLimitIsAnErrorAndNothingMoreIsBuffered) {
  SseParser p(1024);
  const std::string chunk(600, 'x');
  auto ignore = [](std::string_view) { return true; };
  EXPECT_EQ(p.feed("data: " + chunk, ignore), SseParser::Status::kOk);
  EXPECT_EQ(p.feed(chunk, ignore), SseParser::Status::kTooLong);
  EXPECT_EQ(p.feed(chunk, ignore), SseParser::Status::kTooLong);
  EXPECT_LE(p.pending_bytes(), 2048u);
}

TEST(SseParser, StopsWhenTheCallbackAsks) {
  SseParser p;
  int events = 0;
  const auto status = p.feed("data: 1\n\ndata: 2\n\n", [&](std::string_view) {
    ++events;
    return false;
  });
  EXPECT_EQ(status, SseParser::Status::kStop);
  EXPECT_EQ(events, 1);
}

}  // namespace
}  // namespace servescope
