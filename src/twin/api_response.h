// The bodies the twin answers a generation with: OpenAI completion and chat-completion objects,
// their server-sent-event chunks (`data: {...}\n\n`, ending with `data: [DONE]`), and the
// engine's native generation body (rendered by its profile). Token chunks are spliced from
// precomputed prefixes, so a stream event costs one small append.
#pragma once

#include <cstdint>
#include <string>

#include "engines/twin_profile.h"
#include "twin/api_request.h"

namespace servescope {

class ResponseRenderer {
 public:
  ResponseRenderer(const GenerationRequest& request, std::string id, std::string model,
                   std::int64_t created, const TwinProfile& profile);

  /// Appends the SSE events for tokens [from, from + count) (the finishing event when `finished`).
  void stream_tokens(std::string& out, std::int64_t from, std::int32_t count, bool finished,
                     double e2e_seconds);
  /// Appends what follows the last token event: the usage event when asked for, then [DONE].
  void stream_end(std::string& out, std::int64_t tokens) const;
  /// The non-streaming body after `tokens` output tokens.
  std::string body(std::int64_t tokens, double e2e_seconds) const;

  const GenerationRequest& request() const { return request_; }

 private:
  std::string usage_json(std::int64_t completion) const;
  void append_usage_json(std::string& out, std::int64_t completion) const;

  GenerationRequest request_;
  std::string id_;
  std::string model_;
  std::int64_t created_;
  const TwinProfile& profile_;
  std::string prefix_;  // an event up to the token text
  std::string suffix_;  // after the token text, for an unfinished event
  bool sent_role_ = false;
  std::string text_;  // native streams repeat the whole text so far
};

/// Appends `payload` as one HTTP/1.1 chunk.
void append_http_chunk(std::string& out, std::string_view payload);

}  // namespace servescope
