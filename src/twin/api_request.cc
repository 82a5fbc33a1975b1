#include "twin/api_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "twin/prefix_cache.h"
#include "twin/token_text.h"

namespace servescope {
namespace {

using nlohmann::json;

// OpenAI's request fields (API reference, completions and chat completions).
const std::vector<std::string> kCompletionFields = {"model",
                                                    "prompt",
                                                    "best_of",
                                                    "echo",
                                                    "frequency_penalty",
                                                    "logit_bias",
                                                    "logprobs",
                                                    "max_tokens",
                                                    "n",
                                                    "presence_penalty",
                                                    "seed",
                                                    "stop",
                                                    "stream",
                                                    "stream_options",
                                                    "suffix",
                                                    "temperature",
                                                    "top_p",
                                                    "user"};
const std::vector<std::string> kChatFields = {"model",
                                              "messages",
                                              "audio",
                                              "frequency_penalty",
                                              "function_call",
                                              "functions",
                                              "logit_bias",
                                              "logprobs",
                                              "max_completion_tokens",
                                              "max_tokens",
                                              "metadata",
                                              "modalities",
                                              "n",
                                              "parallel_tool_calls",
                                              "prediction",
                                              "presence_penalty",
                                              "reasoning_effort",
                                              "response_format",
                                              "seed",
                                              "service_tier",
                                              "stop",
                                              "store",
                                              "stream",
                                              "stream_options",
                                              "temperature",
                                              "tool_choice",
                                              "tools",
                                              "top_logprobs",
                                              "top_p",
                                              "user"};
const std::vector<std::string> kNumberFields = {
    "temperature", "top_p", "frequency_penalty", "presence_penalty", "repetition_penalty", "min_p"};

bool listed(const std::vector<std::string>& list, std::string_view key) {
  return std::find(list.begin(), list.end(), key) != list.end();
}

Result<std::int64_t> prompt_tokens(const json& prompt) {
  if (prompt.is_string())
    return approximate_tokens(prompt.get_ref<const std::string&>());
  if (prompt.is_array()) {
    if (prompt.empty())
      return fail("'prompt' must not be empty");
    if (std::all_of(prompt.begin(), prompt.end(),
                    [](const json& x) { return x.is_number_integer(); }))
      return static_cast<std::int64_t>(prompt.size());
    if (prompt.size() == 1)
      return prompt_tokens(prompt[0]);
    return fail(
        "'prompt' with several prompts (a batch) is not supported by the twin; send one per "
        "request");
  }
  return fail("'prompt' must be a string, a list of token ids, or a list with one of them");
}

Result<std::int64_t> chat_tokens(const json& messages) {
  if (!messages.is_array() || messages.empty())
    return fail("'messages' must be a non-empty list of {role, content} objects");
  std::int64_t tokens = chat_template_tokens(static_cast<std::int64_t>(messages.size()));
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return fail(fmt::format("messages[{}] must be an object with a string 'role'", i));
    auto c = m.find("content");
    if (c == m.end() || c->is_null())
      continue;
    if (c->is_string()) {
      tokens += approximate_tokens(c->get_ref<const std::string&>());
    } else if (c->is_array()) {
      for (const json& part : *c) {
        if (!part.is_object() || !part.contains("type"))
          return fail(fmt::format("messages[{}].content parts must be objects with a 'type'", i));
        if (auto t = part.find("text"); t != part.end() && t->is_string())
          tokens += approximate_tokens(t->get_ref<const std::string&>());
      }
    } else {
      return fail(fmt::format("messages[{}].content must be a string or a list of parts", i));
    }
  }
  return tokens;
}

// The chat as one text for the prefix cache: each message's role and text in order (validated
// by chat_tokens first).
std::string chat_text(const json& messages) {
  std::string out;
  for (const json& m : messages) {
    out += m["role"].get<std::string>();
    out += '\x1f';
    auto c = m.find("content");
    if (c != m.end() && c->is_string()) {
      out += c->get_ref<const std::string&>();
    } else if (c != m.end() && c->is_array()) {
      for (const json& part : *c) {
        if (auto t = part.find("text"); t != part.end() && t->is_string())
          out += t->get_ref<const std::string&>();
      }
    }
    out += '\x1e';
  }
  return out;
}

Result<std::optional<std::int64_t>> max_tokens_field(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null())
    return std::optional<std::int64_t>();
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0)
    return fail(fmt::format("'{}' must be a non-negative integer", name));
  return std::optional<std::int64_t>(it->get<std::int64_t>());
}

}  // namespace

Result<GenerationRequest> parse_openai_request(ApiKind kind, std::string_view body,
                                               const std::vector<std::string>& extra_fields) {
  const json j = json::parse(body, nullptr, false);
  if (j.is_discarded())
    return fail("Invalid JSON in the request body");
  if (!j.is_object())
    return fail("The request body must be a JSON object");
  const auto& known = kind == ApiKind::kChat ? kChatFields : kCompletionFields;
  for (const auto& [key, value] : j.items()) {
    if (!listed(known, key) && !listed(extra_fields, key))
      return fail(fmt::format("Unknown field '{}' in the request", key));
    if (listed(kNumberFields, key) && !value.is_null() && !value.is_number())
      return fail(fmt::format("'{}' must be a number", key));
  }
  GenerationRequest r;
  r.kind = kind;
  if (auto m = j.find("model"); m != j.end() && !m->is_null()) {
    if (!m->is_string())
      return fail("'model' must be a string");
    r.model = m->get<std::string>();
  }
  if (kind == ApiKind::kChat) {
    if (!j.contains("messages"))
      return fail("Field 'messages' is required");
    auto t = chat_tokens(j["messages"]);
    if (!t)
      return t.error();
    r.prompt_tokens = *t;
    r.prefix_chunks = prefix_chunks_of_text(chat_text(j["messages"]));
  } else {
    if (!j.contains("prompt"))
      return fail("Field 'prompt' is required");
    auto t = prompt_tokens(j["prompt"]);
    if (!t)
      return t.error();
    r.prompt_tokens = *t;
    const json& p =
        j["prompt"].is_array() && j["prompt"].size() == 1 && !j["prompt"][0].is_number_integer()
            ? j["prompt"][0]
            : j["prompt"];
    r.prefix_chunks = p.is_string() ? prefix_chunks_of_text(p.get_ref<const std::string&>())
                                    : prefix_chunks_of_ids(p);
  }
  auto max_tokens = max_tokens_field(j, "max_tokens");
  if (!max_tokens)
    return max_tokens.error();
  auto max_completion = max_tokens_field(j, "max_completion_tokens");
  if (!max_completion)
    return max_completion.error();
  if (*max_completion)
    r.max_tokens = **max_completion;
  else if (*max_tokens)
    r.max_tokens = **max_tokens;
  else
    r.max_tokens = kind == ApiKind::kChat ? kDefaultChatTokens : kDefaultCompletionTokens;

  if (auto n = j.find("n"); n != j.end() && !n->is_null()) {
    if (!n->is_number_integer() || n->get<std::int64_t>() < 1)
      return fail("'n' must be a positive integer");
    if (n->get<std::int64_t>() != 1)
      return fail("'n' must be 1: the twin generates one choice per request");
  }
  if (auto s = j.find("stream"); s != j.end() && !s->is_null()) {
    if (!s->is_boolean())
      return fail("'stream' must be a boolean");
    r.stream = s->get<bool>();
  }
  if (auto o = j.find("stream_options"); o != j.end() && !o->is_null()) {
    if (!o->is_object())
      return fail("'stream_options' must be an object");
    for (const auto& [key, value] : o->items()) {
      if (key != "include_usage" && key != "continuous_usage_stats")
        return fail(fmt::format("Unknown field 'stream_options.{}'", key));
      if (!value.is_boolean())
        return fail(fmt::format("'stream_options.{}' must be a boolean", key));
    }
    r.include_usage = o->value("include_usage", false);
    r.continuous_usage = o->value("continuous_usage_stats", false);
  }
  if (auto e = j.find("ignore_eos"); e != j.end() && !e->is_null()) {
    if (!e->is_boolean())
      return fail("'ignore_eos' must be a boolean");
    r.ignore_eos = e->get<bool>();
  }
  return r;
}

GenerationRequest native_request(const NativeGenerateRequest& native) {
  GenerationRequest r;
  r.kind = ApiKind::kNative;
  r.prompt_tokens = native.input_ids ? std::max<std::int64_t>(1, *native.input_ids)
                                     : approximate_tokens(native.text);
  if (!native.input_ids)
    r.prefix_chunks = prefix_chunks_of_text(native.text);
  r.max_tokens = native.max_new_tokens.value_or(kDefaultChatTokens);
  r.stream = native.stream;
  r.ignore_eos = native.ignore_eos;
  return r;
}

}  // namespace servescope
