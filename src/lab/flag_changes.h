// The differences `bisect` isolates: flags as typed ("--kv-cache-dtype fp8_e4m3"), grouped
// from a flag string without knowing the engine (a word starting with '-' opens a flag, the
// words after it are its values), and the changes that turn the good flag set into the bad
// one. A configuration is the good set with a subset of the changes applied.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

/// One flag as typed: its name ("--kv-cache-dtype", from "--x=v" too) and its words.
struct TypedFlag {
  std::string name;
  std::vector<std::string> words;  // {"--kv-cache-dtype", "fp8_e4m3"} or {"--x=v"}

  /// The words joined by spaces, as a person typed them.
  std::string text() const;
  bool operator==(const TypedFlag& other) const { return words == other.words; }
};

/// Splits a flag string ("--tp 4 --disable-radix-cache") into flags. `what` names the input
/// in errors ("--good"). Fails on words before the first flag, unbalanced quotes, and a flag
/// given twice (bisect compares flags by name).
Result<std::vector<TypedFlag>> parse_flags(std::string_view text, std::string_view what);

struct FlagChange {
  enum class Kind { kAdd, kChange, kRemove };
  Kind kind = Kind::kAdd;
  std::string name;
  TypedFlag flag;  // the bad configuration's flag (kAdd, kChange) or the good one's (kRemove)

  /// As typed in the bad configuration: "--kv-cache-dtype fp8_e4m3"; a removal reads
  /// "no --enable-foo".
  std::string label() const;
};

/// The changes from `good` to `bad`: changed flags and additions in the bad set's order, then
/// removals in the good set's order. Empty when the two sets hold the same flags.
std::vector<FlagChange> flag_changes(const std::vector<TypedFlag>& good,
                                     const std::vector<TypedFlag>& bad);

/// The flag words of `good` with the changes at `subset` (indices into `changes`) applied:
/// changed flags edited in place, removed flags dropped, added flags appended.
std::vector<std::string> apply_flag_changes(const std::vector<TypedFlag>& good,
                                            const std::vector<FlagChange>& changes,
                                            const std::vector<std::size_t>& subset);

/// The labels of the changes at `subset`.
std::vector<std::string> change_labels(const std::vector<FlagChange>& changes,
                                       const std::vector<std::size_t>& subset);

}  // namespace servescope
