#include "twin/api_request.h"

#include <gtest/gtest.h>

#include "twin/token_text.h"

namespace servescope {
namespace {

const std::vector<std::string> kExtra = {"ignore_eos", "top_k"};

TEST(ApiRequestTest, ReadsACompletionRequest) {
  auto r = parse_openai_request(
      ApiKind::kCompletions,
      R"({"model": "m", "prompt": "twelve bytes", "max_tokens": 7, "stream": true,
                                    "stream_options": {"include_usage": true}, "ignore_eos": true, "top_k": 5})",
      kExtra);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->prompt_tokens, 3);  // 12 bytes / 4
  EXPECT_EQ(r->max_tokens, 7);
  EXPECT_TRUE(r->stream);
  EXPECT_TRUE(r->include_usage);
  EXPECT_FALSE(r->continuous_usage);
  EXPECT_TRUE(r->ignore_eos);
  EXPECT_EQ(r->model, "m");
}

TEST(ApiRequestTest, CountsTokenIdsExactlyAndChatsWithTheirTemplate) {
  auto ids = parse_openai_request(ApiKind::kCompletions, R"({"prompt": [1, 2, 3, 4, 5]})", kExtra);
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->prompt_tokens, 5);
  EXPECT_EQ(ids->max_tokens, kDefaultCompletionTokens);
  auto chat = parse_openai_request(ApiKind::kChat,
                                   R"({"messages": [{"role": "system", "content": "abcdefgh"},
                                                    {"role": "user", "content": [{"type": "text", "text": "abcd"}]}],
                                       "max_completion_tokens": 9})",
                                   kExtra);
  ASSERT_TRUE(chat) << chat.message();
  EXPECT_EQ(chat->prompt_tokens, 2 + 1 + chat_template_tokens(2));
  EXPECT_EQ(chat->max_tokens, 9);
}

TEST(ApiRequestTest, RefusesBadRequestsNamingTheField) {
  struct Case {
    ApiKind kind;
    const char* body;
    const char* needle;
  };
  const Case cases[] = {
      {ApiKind::kCompletions, "{", "Invalid JSON"},
      {ApiKind::kCompletions, "[1]", "JSON object"},
      {ApiKind::kCompletions, R"({"max_tokens": 3})", "'prompt' is required"},
      {ApiKind::kCompletions, R"({"prompt": "x", "frobnicate": 1})", "frobnicate"},
      {ApiKind::kCompletions, R"({"prompt": "x", "max_tokens": -1})", "max_tokens"},
      {ApiKind::kCompletions, R"({"prompt": "x", "temperature": "hot"})", "temperature"},
      {ApiKind::kCompletions, R"({"prompt": "x", "n": 3})", "'n' must be 1"},
      {ApiKind::kCompletions, R"({"prompt": ["a", "b"]})", "batch"},
      {ApiKind::kCompletions, R"({"prompt": "x", "stream_options": {"bogus": true}})",
       "stream_options.bogus"},
      {ApiKind::kCompletions, R"({"prompt": "x", "stream": "yes"})", "'stream'"},
      {ApiKind::kChat, R"({"messages": "hi"})", "messages"},
      {ApiKind::kChat, R"({"messages": [{"content": "x"}]})", "role"},
      {ApiKind::kChat, R"({"messages": [{"role": "user", "content": 5}]})", "content"},
      {ApiKind::kChat, R"({"prompt": "x", "messages": []})", "prompt"},
  };
  for (const Case& c : cases) {
    auto r = parse_openai_request(c.kind, c.body, kExtra);
    ASSERT_FALSE(r) << c.body;
    EXPECT_NE(r.message().find(c.needle), std::string::npos) << c.body << " → " << r.message();
  }
}

TEST(TokenTextTest, OutputTokensReCountToTheirNumber) {
  std::string text;
  append_tokens(text, 0, 37);
  EXPECT_EQ(approximate_tokens(text), 37);
  EXPECT_EQ(approximate_tokens(""), 1);
  EXPECT_EQ(token_text(0), token_text(16));
}

}  // namespace
}  // namespace servescope
