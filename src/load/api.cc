#include "load/api.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "engines/engine.h"

namespace servescope {

std::vector<std::string> api_names() {
  std::vector<std::string> out = {"openai-completions", "openai-chat"};
  for (const auto& engine : engines()) {
    const ClientProfile* p = engine->client_profile();
    if (p != nullptr && !p->native.name.empty())
      out.push_back(p->native.name);
  }
  return out;
}

Result<ApiSpec> resolve_api(std::string_view name) {
  ApiSpec api;
  api.name = std::string(name);
  if (name == "openai-completions") {
    api.kind = ApiKind::kCompletions;
    api.path = "/v1/completions";
    return api;
  }
  if (name == "openai-chat") {
    api.kind = ApiKind::kChat;
    api.path = "/v1/chat/completions";
    return api;
  }
  for (const auto& engine : engines()) {
    const ClientProfile* p = engine->client_profile();
    if (p != nullptr && !p->native.name.empty() && p->native.name == name &&
        p->native.body != nullptr) {
      api.kind = ApiKind::kNative;
      api.path = p->native.path;
      api.native = p->native;
      return api;
    }
  }
  std::string known;
  for (const std::string& n : api_names())
    known += (known.empty() ? "" : ", ") + n;
  return fail(fmt::format("--api {}: unknown API; use one of {}", name, known));
}

namespace {

// `quoted`: the prompt as a JSON value (a string, or a list of ids for completions).
std::string request_body_with(const ApiSpec& api, std::string_view quoted, std::int64_t max_tokens,
                              const BodyOptions& o) {
  if (api.kind == ApiKind::kNative)
    return api.native.body(quoted, max_tokens, o.stream, o.ignore_eos);
  std::string out = "{";
  if (!o.model.empty())
    out += fmt::format(R"("model":{},)", nlohmann::json(o.model).dump());
  if (api.kind == ApiKind::kChat)
    out += fmt::format(R"("messages":[{{"role":"user","content":{}}}],)", quoted);
  else
    out += fmt::format(R"("prompt":{},)", quoted);
  out += fmt::format(R"("max_tokens":{},"temperature":0)", max_tokens);
  if (o.ignore_eos)
    out += R"(,"ignore_eos":true)";
  if (o.stream) {
    out += R"(,"stream":true,"stream_options":{"include_usage":true)";
    if (o.continuous_usage)
      out += R"(,"continuous_usage_stats":true)";
    out += "}";
  }
  out += "}";
  return out;
}

}  // namespace

std::string request_body(const ApiSpec& api, std::string_view prompt, std::int64_t max_tokens,
                         const BodyOptions& o) {
  return request_body_with(api, nlohmann::json(std::string(prompt)).dump(), max_tokens, o);
}

Result<std::string> request_body(const ApiSpec& api, std::span<const std::int32_t> token_ids,
                                 std::int64_t max_tokens, const BodyOptions& o) {
  if (api.kind == ApiKind::kChat)
    return fail(
        fmt::format("--api {}: chat messages are text and cannot carry token ids", api.name));
  if (token_ids.empty())
    return fail("a token-id prompt needs at least one id");
  std::string ids = "[";
  for (std::size_t i = 0; i < token_ids.size(); ++i)
    ids += fmt::format("{}{}", i == 0 ? "" : ",", token_ids[i]);
  ids += "]";
  if (api.kind == ApiKind::kCompletions)
    return request_body_with(api, ids, max_tokens, o);
  // A native body puts the ids where its text goes; that field becomes "input_ids".
  auto body = nlohmann::ordered_json::parse(
      api.native.body(ids, max_tokens, o.stream, o.ignore_eos), nullptr, false);
  if (!body.is_object())
    return fail(fmt::format("--api {}: the request body is not a JSON object", api.name));
  const auto parsed_ids = nlohmann::ordered_json::parse(ids);
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  bool placed = false;
  for (auto& [key, value] : body.items()) {
    if (!placed && value == parsed_ids) {
      out["input_ids"] = std::move(value);
      placed = true;
    } else {
      out[key] = std::move(value);
    }
  }
  if (!placed)
    return fail(fmt::format("--api {}: no prompt field to carry token ids", api.name));
  return out.dump();
}

std::string http_post(const ServerUrl& url, std::string_view path, std::string_view body,
                      bool stream) {
  return fmt::format(
      "POST {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: servescope-bench\r\nContent-Type: "
      "application/json\r\nAccept: {}\r\nContent-Length: {}\r\n\r\n{}",
      url.target(path), url.authority(), stream ? "text/event-stream" : "application/json",
      body.size(), body);
}

std::string http_get(const ServerUrl& url, std::string_view path) {
  return fmt::format("GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: servescope-bench\r\n\r\n",
                     url.target(path), url.authority());
}

}  // namespace servescope
