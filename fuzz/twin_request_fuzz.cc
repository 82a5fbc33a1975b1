// libFuzzer target: what the twin reads from a client — an OpenAI-compatible completions or chat
// body (its strict validation, the prompt's token count) and the prompt's chunk hashes for the
// prefix cache, which must hold whatever the body says.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "twin/api_request.h"
#include "twin/prefix_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1)
    return 0;
  // The first byte picks the API.
  const servescope::ApiKind kind =
      data[0] % 2 == 0 ? servescope::ApiKind::kCompletions : servescope::ApiKind::kChat;
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto request = servescope::parse_openai_request(kind, body, {"ignore_eos"});
  if (!request)
    return 0;
  servescope::PrefixCache cache(16, 4096);
  cache.admit(request->prefix_chunks, request->prompt_tokens);
  cache.admit(request->prefix_chunks, request->prompt_tokens);
  return 0;
}
