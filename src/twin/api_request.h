// Generation requests the twin accepts: OpenAI-compatible completions and chat completions,
// and the engine's native generation API (read by its profile). Validation is strict — a
// malformed body, a field the engine does not know, or a wrong type is a 400 with one line
// that names the field — so clients under test learn about their mistakes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/twin_profile.h"

namespace servescope {

enum class ApiKind { kCompletions, kChat, kNative };

struct GenerationRequest {
  ApiKind kind = ApiKind::kCompletions;
  std::int64_t prompt_tokens = 0;
  std::int64_t max_tokens = 0;
  bool stream = false;
  bool include_usage = false;     // stream_options.include_usage
  bool continuous_usage = false;  // stream_options.continuous_usage_stats
  bool ignore_eos = false;
  std::string model;  // as the client named it ("" when absent)
  // The prompt's chained chunk hashes, for the prefix cache (twin/prefix_cache.h); empty where
  // the request gives only a length.
  std::vector<std::uint64_t> prefix_chunks;
};

/// Output tokens when a request does not say: OpenAI's completions default (16); for chat and
/// the native API the engine would stop at the end-of-sequence token, which the twin cannot
/// know, so it stops at 128 (SGLang's max_new_tokens default).
inline constexpr std::int64_t kDefaultCompletionTokens = 16;
inline constexpr std::int64_t kDefaultChatTokens = 128;

/// Parses an OpenAI-compatible body. `extra_fields`: fields the engine accepts beyond OpenAI's.
Result<GenerationRequest> parse_openai_request(ApiKind kind, std::string_view body,
                                               const std::vector<std::string>& extra_fields);

/// Converts the profile's reading of a native request.
GenerationRequest native_request(const NativeGenerateRequest& native);

}  // namespace servescope
