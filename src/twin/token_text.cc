#include "twin/token_text.h"

#include <array>

namespace servescope {
namespace {

constexpr std::array<std::string_view, 16> kWords = {" the", " and", " for", " you", " are", " not",
                                                     " was", " can", " all", " has", " one", " but",
                                                     " her", " his", " any", " new"};

}  // namespace

std::int64_t approximate_tokens(std::string_view text) {
  const auto n = static_cast<std::int64_t>((text.size() + 3) / 4);
  return n < 1 ? 1 : n;
}

std::string_view token_text(std::int64_t index) {
  return kWords[static_cast<std::size_t>(index) % kWords.size()];
}

void append_tokens(std::string& out, std::int64_t from, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i)
    out += token_text(from + i);
}

}  // namespace servescope
