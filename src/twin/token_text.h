// The twin has no tokenizer. Prompt tokens are counted by a documented approximation: one
// token per 4 bytes of UTF-8 text, rounded up, at least 1 (the common rule of thumb for
// English BPE vocabularies); a chat adds 4 tokens per message and 3 for the assistant's turn
// (role markers of chat templates). Prompts given as token ids count exactly. Output tokens
// are 4-byte words, so the twin's own output re-counts to the same number of tokens.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace servescope {

std::int64_t approximate_tokens(std::string_view text);
/// Template overhead of a chat: 4 tokens per message plus 3.
inline std::int64_t chat_template_tokens(std::int64_t messages) {
  return 4 * messages + 3;
}
/// The text of output token `index` (0-based): one of 16 four-byte words.
std::string_view token_text(std::int64_t index);
/// Appends the text of tokens [from, from + count).
void append_tokens(std::string& out, std::int64_t from, std::int64_t count);

}  // namespace servescope
