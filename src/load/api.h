// The generation APIs `bench --api` speaks: OpenAI completions and chat completions, and an
// engine's native API (from its ClientProfile). Builds request bytes ahead of the run; says
// which fields of a response carry the text and the token counts.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/client_profile.h"
#include "load/url.h"

namespace servescope {

enum class ApiKind { kCompletions, kChat, kNative };

struct ApiSpec {
  ApiKind kind = ApiKind::kCompletions;
  std::string name;  // as --api takes it
  std::string path;
  NativeApi native;  // kNative only
};

/// "openai-completions", "openai-chat", or an engine's native API name.
Result<ApiSpec> resolve_api(std::string_view name);
/// Every name resolve_api accepts, for the help text and errors.
std::vector<std::string> api_names();

struct BodyOptions {
  std::string model;  // "" leaves the field out
  bool stream = true;
  bool ignore_eos = true;
  bool continuous_usage = true;  // ask for usage in every stream event (per-token timing)
};

/// The JSON body of one request for `prompt` (plain text) asking for `max_tokens`.
std::string request_body(const ApiSpec& api, std::string_view prompt, std::int64_t max_tokens,
                         const BodyOptions& options);
/// The same for a prompt of token ids, which the server counts exactly: completions send
/// "prompt": [ids...]; a native API gets the ids under "input_ids" in place of its text field
/// (SGLang's /generate). Chat messages cannot carry ids: for kChat this fails.
Result<std::string> request_body(const ApiSpec& api, std::span<const std::int32_t> token_ids,
                                 std::int64_t max_tokens, const BodyOptions& options);
/// The HTTP/1.1 request bytes for a POST of `body` to the API's path.
std::string http_post(const ServerUrl& url, std::string_view path, std::string_view body,
                      bool stream);
/// The HTTP/1.1 request bytes for a GET.
std::string http_get(const ServerUrl& url, std::string_view path);

}  // namespace servescope
