// The twin's prefix cache: which leading part of a prompt the engine already holds from an
// earlier request, so that only the rest is prefilled (vLLM's automatic prefix caching, SGLang's
// radix cache). Prompts are compared in chunks of kPrefixChunkTokens tokens, each chunk's hash
// chained to the ones before it, so a chunk matches only where everything before it matched.
// Token-id prompts are compared by their ids; text by its bytes (4 bytes a token, the twin's
// count); a native request that gives only a length has nothing to compare and never hits.
#pragma once

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace servescope {

inline constexpr std::int64_t kPrefixChunkTokens = 16;

/// Chained hashes of each whole chunk of a token-id prompt.
std::vector<std::uint64_t> prefix_chunks_of_ids(const nlohmann::json& ids);
/// Chained hashes of each whole chunk (64 bytes) of a text prompt.
std::vector<std::uint64_t> prefix_chunks_of_text(std::string_view text);

class PrefixCache {
 public:
  /// `block_tokens`: the engine's cache block (hits are whole blocks); `capacity_tokens`: what
  /// the cache may keep (the KV pool), oldest chunks forgotten first.
  PrefixCache(std::int64_t block_tokens, std::int64_t capacity_tokens);

  /// Tokens of a prompt of `prompt_tokens` the cache holds, in whole blocks, leaving at least
  /// the last token to compute (the engines prefill it for its logits); then remembers the
  /// prompt's chunks.
  std::int64_t admit(const std::vector<std::uint64_t>& chunks, std::int64_t prompt_tokens);

 private:
  std::int64_t block_;
  std::size_t capacity_chunks_;
  std::unordered_set<std::uint64_t> held_;
  std::deque<std::uint64_t> order_;  // insertion order, for forgetting
};

}  // namespace servescope
