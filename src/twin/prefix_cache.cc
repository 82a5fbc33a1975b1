#include "twin/prefix_cache.h"

#include <algorithm>
#include <numeric>

namespace servescope {
namespace {

// FNV-1a over 64-bit words, seeded with the hash of everything before (the chain).
std::uint64_t mix(std::uint64_t h, std::uint64_t word) {
  for (int i = 0; i < 8; ++i) {
    h ^= (word >> (8 * i)) & 0xffU;
    h *= 0x100000001b3ULL;
  }
  return h;
}

constexpr std::uint64_t kSeed = 0xcbf29ce484222325ULL;

}  // namespace

std::vector<std::uint64_t> prefix_chunks_of_ids(const nlohmann::json& ids) {
  std::vector<std::uint64_t> out;
  std::uint64_t h = kSeed;
  std::int64_t n = 0;
  for (const auto& id : ids) {
    h = mix(h, static_cast<std::uint64_t>(id.get<std::int64_t>()));
    if (++n % kPrefixChunkTokens == 0)
      out.push_back(h);
  }
  return out;
}

std::vector<std::uint64_t> prefix_chunks_of_text(std::string_view text) {
  constexpr std::size_t kChunkBytes = 4 * kPrefixChunkTokens;
  std::vector<std::uint64_t> out;
  std::uint64_t h = kSeed;
  for (std::size_t i = 0; i + kChunkBytes <= text.size(); i += kChunkBytes) {
    for (std::size_t j = i; j < i + kChunkBytes; ++j)
      h = mix(h, static_cast<unsigned char>(text[j]));
    out.push_back(h);
  }
  return out;
}

PrefixCache::PrefixCache(std::int64_t block_tokens, std::int64_t capacity_tokens)
    : block_(std::max<std::int64_t>(1, block_tokens)),
      capacity_chunks_(static_cast<std::size_t>(
          std::max<std::int64_t>(1, capacity_tokens / kPrefixChunkTokens))) {}

std::int64_t PrefixCache::admit(const std::vector<std::uint64_t>& chunks,
                                std::int64_t prompt_tokens) {
  std::size_t matched = 0;
  while (matched < chunks.size() && held_.count(chunks[matched]) > 0)
    ++matched;
  // Whole engine blocks of whole chunks (a block smaller than a chunk counts chunks).
  const std::int64_t unit = std::lcm(block_, kPrefixChunkTokens);
  std::int64_t hit = static_cast<std::int64_t>(matched) * kPrefixChunkTokens / unit * unit;
  hit = std::min(hit, std::max<std::int64_t>(0, (prompt_tokens - 1) / block_ * block_));
  for (std::uint64_t c : chunks) {
    if (held_.insert(c).second)
      order_.push_back(c);
  }
  while (order_.size() > capacity_chunks_) {
    held_.erase(order_.front());
    order_.pop_front();
  }
  return std::max<std::int64_t>(0, hit);
}

}  // namespace servescope
