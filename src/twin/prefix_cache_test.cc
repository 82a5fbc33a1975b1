// The twin's prefix cache: whole blocks of a prompt's leading chunks that an earlier prompt had,
// chained (a chunk counts only after every chunk before it matched), the last token always
// computed, the oldest chunks forgotten beyond the pool.
#include "twin/prefix_cache.h"

#include <gtest/gtest.h>

#include <numeric>

namespace servescope {
namespace {

nlohmann::json ids(int first, int count) {
  std::vector<int> v(static_cast<std::size_t>(count));
  std::iota(v.begin(), v.end(), first);
  return v;
}

nlohmann::json concat(nlohmann::json a, const nlohmann::json& b) {
  for (const auto& x : b)
    a.push_back(x);
  return a;
}

TEST(PrefixCache, AnEarlierPromptsWholeBlocksAreHitAndTheLastTokenIsComputed) {
  PrefixCache cache(64, 1 << 20);
  const auto system = ids(100, 1000);  // 62 whole chunks of 16, 15 blocks of 64 (960 tokens)
  const auto a = concat(system, ids(5000, 100));
  const auto b = concat(system, ids(9000, 100));
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(a), 1100), 0);     // nothing cached yet
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(b), 1100), 960);   // 62 chunks → 15 blocks
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(a), 1100), 1088);  // all of a's 68 chunks: 17 blocks
  // The same prompt again: at most prompt − 1 tokens, in whole blocks.
  const auto whole = ids(100, 1024);
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(whole), 1024), 960);
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(whole), 1024), 960);
}

TEST(PrefixCache, AChunkMatchesOnlyAfterEverythingBeforeIt) {
  PrefixCache cache(16, 1 << 20);
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(concat(ids(1, 16), ids(500, 64))), 80), 0);
  // The same 64 tokens after a different first chunk: no hit.
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(concat(ids(2, 16), ids(500, 64))), 80), 0);
  // Text: 4 bytes a token, chunks of 64 bytes.
  const std::string text(640, 'x');
  EXPECT_EQ(cache.admit(prefix_chunks_of_text(text), 160), 0);
  EXPECT_EQ(cache.admit(prefix_chunks_of_text(text + "tail of another prompt"), 166), 160);
}

TEST(PrefixCache, BeyondThePoolTheOldestChunksAreForgotten) {
  PrefixCache cache(16, 64);  // four chunks
  const auto first = ids(1, 64);
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(first), 65), 0);
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(ids(1000, 64)), 65), 0);  // pushes `first` out
  EXPECT_EQ(cache.admit(prefix_chunks_of_ids(first), 65), 0);
}

}  // namespace
}  // namespace servescope
