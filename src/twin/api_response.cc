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
  const OpenAiDialect& d = profile_.openai_dialect();
  const bool chat = request_.kind == ApiKind::kChat;
  const std::string head = fmt::format(
      R"(data: {{"id":{},"object":"{}","created":{},"model":{},"choices":[{{"index":0,)",
      json_quote(id_), chat ? "chat.completion.chunk" : "text_completion", created_,
      json_quote(model_));
  prefix_ = head + (chat ? R"("delta":{"content":")" : R"("text":")");
  suffix_ = std::string(chat ? R"("})" : R"(")") + R"(,"logprobs":null,"finish_reason":null)" +
            (chat ? d.chat_chunk_choice_extra : d.completion_chunk_choice_extra) + "}]" +
            (d.chunk_usage_null ? R"(,"usage":null)" : "") + "}\n\n";
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
  out += profile_.openai_dialect().stream_usage_extra;
  out += '}';
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
  const OpenAiDialect& d = profile_.openai_dialect();
  const bool chat = request_.kind == ApiKind::kChat;
  if (chat && !sent_role_) {
    sent_role_ = true;
    out += fmt::format(
        R"(data: {{"id":{},"object":"chat.completion.chunk","created":{},"model":{},"choices":[{{"index":0,"delta":{{"role":"assistant","content":""}},"logprobs":null,"finish_reason":null{}}}]{}{}}})"
        "\n\n",
        json_quote(id_), created_, json_quote(model_), d.chat_role_choice_extra,
        d.chunk_usage_null ? R"(,"usage":null)" : "", d.chat_role_chunk_extra);
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
  out += chat ? R"("},"logprobs":null,"finish_reason":)" : R"(","logprobs":null,"finish_reason":)";
  out += finished ? R"("length")" : "null";
  if (finished)
    out += chat ? d.chat_chunk_final_extra : d.completion_chunk_final_extra;
  else
    out += chat ? d.chat_chunk_choice_extra : d.completion_chunk_choice_extra;
  out += "}]";
  if (request_.continuous_usage) {
    out += R"(,"usage":)";
    append_usage_json(out, from + count);
  } else if (d.chunk_usage_null) {
    out += R"(,"usage":null)";
  }
  if (finished && !request_.include_usage)
    out += d.final_chunk_extra;
  out += "}\n\n";
}

void ResponseRenderer::stream_end(std::string& out, std::int64_t tokens) const {
  if (request_.kind != ApiKind::kNative && request_.include_usage) {
    out += fmt::format(
        R"(data: {{"id":{},"object":"{}","created":{},"model":{},"choices":[],"usage":{}{}}})"
        "\n\n",
        json_quote(id_),
        request_.kind == ApiKind::kChat ? "chat.completion.chunk" : "text_completion", created_,
        json_quote(model_), usage_json(tokens), profile_.openai_dialect().usage_chunk_extra);
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
  const OpenAiDialect& d = profile_.openai_dialect();
  // Non-streaming usage: the stream's usage object with the dialect's non-streaming fields.
  std::string usage = R"({"prompt_tokens":)" + std::to_string(request_.prompt_tokens) +
                      R"(,"total_tokens":)" + std::to_string(request_.prompt_tokens + tokens) +
                      R"(,"completion_tokens":)" + std::to_string(tokens) + d.usage_extra + "}";
  if (request_.kind == ApiKind::kChat) {
    return fmt::format(
        R"({{"id":{},"object":"chat.completion","created":{},"model":{},"choices":[{{"index":0,"message":{{"role":"assistant","content":{}{}}},"logprobs":null,"finish_reason":"length"{}}}],"usage":{}{}}})",
        json_quote(id_), created_, json_quote(model_), json_quote(text), d.chat_message_extra,
        d.chat_choice_extra, usage, d.chat_body_extra);
  }
  return fmt::format(
      R"({{"id":{},"object":"text_completion","created":{},"model":{},"choices":[{{"index":0,"text":{},"logprobs":null,"finish_reason":"length"{}}}],"usage":{}{}}})",
      json_quote(id_), created_, json_quote(model_), json_quote(text), d.completion_choice_extra,
      usage, d.completion_body_extra);
}

}  // namespace servescope
