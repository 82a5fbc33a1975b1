#include "twin/api_response.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "twin/token_text.h"

namespace servescope {
namespace {

std::string json_quote(std::string_view s) {
  return nlohmann::json(std::string(s)).dump();
}

}  // namespace

void append_http_chunk(std::string& out, std::string_view payload) {
  if (payload.empty())
    return;
  char size[20];
  const auto hex = std::to_chars(size, size + sizeof size, payload.size(), 16);
  out.append(size, hex.ptr);
  out.append("\r\n");
  out.append(payload);
  out.append("\r\n");
}

ResponseRenderer::ResponseRenderer(const GenerationRequest& request, std::string id,
                                   std::string model, std::int64_t created,
                                   const TwinProfile& profile)
    : request_(request),
      id_(std::move(id)),
      model_(std::move(model)),
      created_(created),
      profile_(profile) {
  const std::string head = fmt::format(
      R"(data: {{"id":{},"object":"{}","created":{},"model":{},"choices":[{{"index":0,)",
      json_quote(id_),
      request_.kind == ApiKind::kChat ? "chat.completion.chunk" : "text_completion", created_,
      json_quote(model_));
  if (request_.kind == ApiKind::kChat) {
    prefix_ = head + R"("delta":{"content":")";
    suffix_ = R"("},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null})";
  } else {
    prefix_ = head + R"("text":")";
    suffix_ = R"(","logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null})";
  }
  suffix_ += "\n\n";
}

std::string ResponseRenderer::usage_json(std::int64_t completion) const {
  std::string out;
  append_usage_json(out, completion);
  return out;
}

// Every stream event with continuous usage carries this: written in place, no allocation.
void ResponseRenderer::append_usage_json(std::string& out, std::int64_t completion) const {
  const auto number = [&out](std::int64_t v) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
  };
  out += R"({"prompt_tokens":)";
  number(request_.prompt_tokens);
  out += R"(,"total_tokens":)";
  number(request_.prompt_tokens + completion);
  out += R"(,"completion_tokens":)";
  number(completion);
  out += R"(,"prompt_tokens_details":null})";
}

void ResponseRenderer::stream_tokens(std::string& out, std::int64_t from, std::int32_t count,
                                     bool finished, double e2e_seconds) {
  if (request_.kind == ApiKind::kNative) {
    append_tokens(text_, from, count);
    NativeGenerateView v;
    v.id = id_;
    v.text = text_;
    v.prompt_tokens = request_.prompt_tokens;
    v.completion_tokens = from + count;
    v.finished = finished;
    v.e2e_seconds = e2e_seconds;
    out += "data: ";
    out += profile_.native_generate_json(v);
    out += "\n\n";
    return;
  }
  if (request_.kind == ApiKind::kChat && !sent_role_) {
    sent_role_ = true;
    out += fmt::format(
        R"(data: {{"id":{},"object":"chat.completion.chunk","created":{},"model":{},"choices":[{{"index":0,"delta":{{"role":"assistant","content":""}},"logprobs":null,"finish_reason":null,"matched_stop":null}}],"usage":null}})"
        "\n\n",
        json_quote(id_), created_, json_quote(model_));
  }
  if (!finished && !request_.continuous_usage) {
    out += prefix_;
    append_tokens(out, from, count);
    out += suffix_;
    return;
  }
  // The last token event carries the finish reason; continuous usage puts usage in every event.
  out += prefix_;
  append_tokens(out, from, count);
  out += request_.kind == ApiKind::kChat ? R"("},"logprobs":null,"finish_reason":)"
                                         : R"(","logprobs":null,"finish_reason":)";
  out += finished ? R"("length")" : "null";
  out += R"(,"matched_stop":null}],"usage":)";
  if (request_.continuous_usage)
    append_usage_json(out, from + count);
  else
    out += "null";
  out += "}\n\n";
}

void ResponseRenderer::stream_end(std::string& out, std::int64_t tokens) const {
  if (request_.kind != ApiKind::kNative && request_.include_usage) {
    out += fmt::format(
        R"(data: {{"id":{},"object":"{}","created":{},"model":{},"choices":[],"usage":{}}})"
        "\n\n",
        json_quote(id_),
        request_.kind == ApiKind::kChat ? "chat.completion.chunk" : "text_completion", created_,
        json_quote(model_), usage_json(tokens));
  }
  out += "data: [DONE]\n\n";
}

std::string ResponseRenderer::body(std::int64_t tokens, double e2e_seconds) const {
  std::string text;
  append_tokens(text, 0, tokens);
  if (request_.kind == ApiKind::kNative) {
    NativeGenerateView v;
    v.id = id_;
    v.text = text;
    v.prompt_tokens = request_.prompt_tokens;
    v.completion_tokens = tokens;
    v.finished = true;
    v.e2e_seconds = e2e_seconds;
    return profile_.native_generate_json(v);
  }
  if (request_.kind == ApiKind::kChat) {
    return fmt::format(
        R"({{"id":{},"object":"chat.completion","created":{},"model":{},"choices":[{{"index":0,"message":{{"role":"assistant","content":{},"reasoning_content":null,"tool_calls":null}},"logprobs":null,"finish_reason":"length","matched_stop":null}}],"usage":{}}})",
        json_quote(id_), created_, json_quote(model_), json_quote(text), usage_json(tokens));
  }
  return fmt::format(
      R"({{"id":{},"object":"text_completion","created":{},"model":{},"choices":[{{"index":0,"text":{},"logprobs":null,"finish_reason":"length","matched_stop":null}}],"usage":{}}})",
      json_quote(id_), created_, json_quote(model_), json_quote(text), usage_json(tokens));
}

}  // namespace servescope
